// A throw-away PostgreSQL cluster for the hub tests: initdb in a temporary directory (as the
// postgres user when the tests run as root), started on a free loopback port the first time a
// test asks for it, stopped and removed when the test program ends.
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
  void stop();

 private:
  std::string run_as_owner(const std::string& command) const;
  std::string bin_, dir_;
  int port_ = 0;
  bool as_root_ = false;
};

}  // namespace strata::hub::testing
