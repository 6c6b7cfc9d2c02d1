// A throw-away PostgreSQL cluster for the hub tests and benchmarks: initdb in a temporary
// directory (as the postgres user when running as root), started on a free loopback port.
// get() gives the shared one, started the first time a program asks for it: test programs run
// one after another (ctest runs each test case as its own process) share it, and the last one to
// finish leaves it running for a few seconds for the next, after which it is stopped and removed.
// start_own() gives a program a cluster of its own, for tests that stop or restart the server
// (which must never happen to the shared one: other programs are using it).
#pragma once
#include <chrono>
#include <memory>
#include <string>

namespace strata::hub::testing {

class PostgresCluster {
 public:
  // The running shared cluster, started on first use; null when it cannot be (why() says why).
  static PostgresCluster* get();
  static const std::string& why();
  // A cluster of this program's own, in its own directory and on its own port, stopped and
  // removed when the pointer is destroyed; null when it cannot be started (why() says why).
  // `server_options` ("-c name=value ..."; no quotes or globs) come after, and so override,
  // the fast defaults: "-c fsync=on -c synchronous_commit=on -c full_page_writes=on" for a
  // durable one.
  static std::unique_ptr<PostgresCluster> start_own(const std::string& server_options = "");
  ~PostgresCluster();

  std::string url(const std::string& database) const;
  void create_database(const std::string& name);
  void drop_database(const std::string& name);
  // Runs SQL with psql against `database`; true on success.
  bool psql(const std::string& database, const std::string& sql);
  // Runs the SQL file at `path` (a dump) against `database`; true on success.
  bool psql_file(const std::string& database, const std::string& path);
  // Writes `database` as a plain SQL dump (pg_dump, no owners or privileges) to `path`.
  bool dump(const std::string& database, const std::string& path);
  // Stops the server (fast shutdown: clients are disconnected, running transactions rolled
  // back), leaves it down for `down`, then starts it again on the same port and data; true when
  // it is back. Only for a cluster of one's own.
  bool restart(std::chrono::milliseconds down);

 private:
  PostgresCluster() = default;
  bool find_server();                     // bin_ and as_root_; false (g_why set) when unusable
  bool create(const std::string& dir);    // initdb into `dir` on a free port, then start
  bool start_server();                    // pg_ctl start on port_ (waits until it accepts)
  std::string pg_ctl(const std::string& args) const;  // the pg_ctl command line, as the owner
  std::string run_as_owner(const std::string& command) const;
  // The command line of a client program (psql, pg_dump) connected to `database`.
  std::string client(const std::string& program, const std::string& database) const;
  void release();  // at exit: stops the shared cluster soon unless another program starts using it
  std::string bin_, dir_, lock_;
  int port_ = 0;
  bool as_root_ = false;
  bool own_ = false;  // removed by the destructor
  std::string server_options_;  // start_own's
};

}  // namespace strata::hub::testing
