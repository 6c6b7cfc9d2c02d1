// A throw-away PostgreSQL cluster for the hub tests and benchmarks: initdb in a temporary
// directory (as the postgres user when running as root), started on a free loopback port the
// first time a program asks for it. Test programs run one after another (ctest runs each test
// case as its own process) share it: the last one to finish leaves it running for a few seconds
// for the next, after which it is stopped and removed.
#pragma once
#include <string>

namespace strata::hub::testing {

class PostgresCluster {
 public:
  // The running cluster, started on first use; null when it cannot be (why() says why).
  static PostgresCluster* get();
  static const std::string& why();

  std::string url(const std::string& database) const;
  void create_database(const std::string& name);
  void drop_database(const std::string& name);
  // Runs SQL with psql against `database`; true on success.
  bool psql(const std::string& database, const std::string& sql);

 private:
  std::string run_as_owner(const std::string& command) const;
  void release();  // at exit: stops the cluster soon unless another program starts using it
  std::string bin_, dir_, lock_;
  int port_ = 0;
  bool as_root_ = false;
};

}  // namespace strata::hub::testing
