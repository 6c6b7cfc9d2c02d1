#include "postgres_cluster.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace strata::hub::testing {
namespace {

std::string shell_output(const std::string& command) {
  std::string out;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    char buf[512];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    ::pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

std::unique_ptr<PostgresCluster> g_cluster;
std::string g_why;
bool g_tried = false;

// Stops the cluster after the last test.
class ClusterEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_cluster) g_cluster->stop();
  }
};
[[maybe_unused]] auto* const g_environment = ::testing::AddGlobalTestEnvironment(new ClusterEnvironment);

}  // namespace

const std::string& PostgresCluster::why() { return g_why; }

PostgresCluster* PostgresCluster::get() {
  if (g_tried) return g_cluster.get();
  g_tried = true;
  auto c = std::unique_ptr<PostgresCluster>(new PostgresCluster);
  c->bin_ = shell_output("ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1");
  if (c->bin_.empty() || !std::filesystem::exists(c->bin_ + "/initdb")) {
    const std::string initdb = shell_output("command -v initdb");
    if (initdb.empty()) {
      g_why = "PostgreSQL's server binaries (initdb, pg_ctl) are not installed";
      return nullptr;
    }
    c->bin_ = std::filesystem::path(initdb).parent_path().string();
  }
  c->as_root_ = ::geteuid() == 0;
  if (c->as_root_ && !::getpwnam("postgres")) {
    g_why = "running as root and there is no postgres user to run the server as";
    return nullptr;
  }
  char tmpl[] = "/tmp/strata_pg_XXXXXX";
  if (!::mkdtemp(tmpl)) {
    g_why = "cannot make a temporary directory";
    return nullptr;
  }
  c->dir_ = tmpl;
  if (c->as_root_) std::system(("chown postgres '" + c->dir_ + "'").c_str());
  c->port_ = free_port();
  const std::string init = c->run_as_owner("'" + c->bin_ + "/initdb' -D '" + c->dir_ + "/data' -U postgres -A trust -E UTF8 --locale=C --no-sync >'" + c->dir_ + "/initdb.log' 2>&1");
  const std::string start = c->run_as_owner(
      "'" + c->bin_ + "/pg_ctl' -D '" + c->dir_ + "/data' -l '" + c->dir_ + "/server.log' -w -t 30 -o \"-p " +
      std::to_string(c->port_) + " -k '" + c->dir_ + "' -c listen_addresses=127.0.0.1 -c fsync=off" +
      " -c synchronous_commit=off -c full_page_writes=off -c max_connections=100\" start >/dev/null 2>&1");
  if (std::system(init.c_str()) != 0 || std::system(start.c_str()) != 0) {
    g_why = "could not start a PostgreSQL cluster (see " + c->dir_ + "/*.log)";
    return nullptr;
  }
  g_cluster = std::move(c);
  return g_cluster.get();
}

std::string PostgresCluster::run_as_owner(const std::string& command) const {
  if (!as_root_) return command;
  std::string quoted;
  for (char ch : command) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return "runuser -u postgres -- sh -c '" + quoted + "'";
}

std::string PostgresCluster::url(const std::string& database) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

bool PostgresCluster::psql(const std::string& database, const std::string& sql) {
  std::string quoted;
  for (char ch : sql) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  const std::string cmd = "PGOPTIONS='-c client_min_messages=warning' '" + bin_ + "/psql' -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p " + std::to_string(port_) +
                          " -U postgres -d '" + database + "' -c '" + quoted + "' >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

void PostgresCluster::create_database(const std::string& name) {
  if (!psql("postgres", "CREATE DATABASE \"" + name + "\"")) throw std::runtime_error("cannot create database " + name);
}

void PostgresCluster::drop_database(const std::string& name) {
  psql("postgres", "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
}

void PostgresCluster::stop() {
  if (dir_.empty()) return;
  std::system(run_as_owner("'" + bin_ + "/pg_ctl' -D '" + dir_ + "/data' -m immediate -w stop >/dev/null 2>&1").c_str());
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  dir_.clear();
}

}  // namespace strata::hub::testing
