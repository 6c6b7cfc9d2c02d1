#include "postgres_cluster.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

namespace strata::hub::testing {
namespace {

namespace fs = std::filesystem;

// How long an unused shared cluster waits for the next program before it is removed.
constexpr int kLingerSeconds = 10;

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

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
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

// Holds an exclusive flock on a file while alive: the shared cluster's state changes under it.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_;
};

std::unique_ptr<PostgresCluster> g_cluster;
std::string g_why;
bool g_tried = false;
pid_t g_owner = 0;  // a forked child that calls exit() must not release its parent's share

}  // namespace

const std::string& PostgresCluster::why() { return g_why; }

bool PostgresCluster::find_server() {
  bin_ = shell_output("ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1");
  if (bin_.empty() || !fs::exists(bin_ + "/initdb")) {
    const std::string initdb = shell_output("command -v initdb");
    if (initdb.empty()) {
      g_why = "PostgreSQL's server binaries (initdb, pg_ctl) are not installed";
      return false;
    }
    bin_ = fs::path(initdb).parent_path().string();
  }
  as_root_ = ::geteuid() == 0;
  if (as_root_ && !::getpwnam("postgres")) {
    g_why = "running as root and there is no postgres user to run the server as";
    return false;
  }
  return true;
}

std::string PostgresCluster::pg_ctl(const std::string& args) const {
  return run_as_owner("'" + bin_ + "/pg_ctl' -D '" + dir_ + "/data' " + args);
}

bool PostgresCluster::start_server() {
  return std::system(pg_ctl("-l '" + dir_ + "/server.log' -w -t 30 -o \"-p " + std::to_string(port_) + " -k '" +
                            dir_ + "' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off" +
                            " -c full_page_writes=off -c max_connections=200 " + server_options_ +
                            "\" start >/dev/null 2>&1")
                         .c_str()) == 0;
}

bool PostgresCluster::create(const std::string& dir) {
  dir_ = dir;
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::create_directories(dir_, ec);
  if (as_root_) std::system(("chown postgres '" + dir_ + "'").c_str());
  port_ = free_port();
  const std::string init = run_as_owner("'" + bin_ + "/initdb' -D '" + dir_ + "/data' -U postgres -A trust -E UTF8 --locale=C --no-sync >'" + dir_ + "/initdb.log' 2>&1");
  if (std::system(init.c_str()) != 0 || !start_server()) {
    g_why = "could not start a PostgreSQL cluster (see " + dir_ + "/*.log)";
    return false;
  }
  return true;
}

PostgresCluster* PostgresCluster::get() {
  if (g_tried) return g_cluster.get();
  g_tried = true;
  auto c = std::unique_ptr<PostgresCluster>(new PostgresCluster);
  if (!c->find_server()) return nullptr;
  const std::string base = (fs::temp_directory_path() / ("strata_pg_" + std::to_string(::geteuid()))).string();
  c->dir_ = base;
  c->lock_ = base + ".lock";
  {
    FileLock lock(c->lock_);
    std::ifstream port_file(c->dir_ + "/port");
    const bool running = port_file >> c->port_ && std::system(c->pg_ctl("status >/dev/null 2>&1").c_str()) == 0;
    if (!running) {
      std::system(c->pg_ctl("-m immediate -w stop >/dev/null 2>&1").c_str());
      if (!c->create(base)) return nullptr;
      std::ofstream(c->dir_ + "/port") << c->port_;
    }
    std::error_code ec;
    fs::create_directories(c->dir_ + "/users", ec);
    std::ofstream(c->dir_ + "/users/" + std::to_string(::getpid()));
  }
  g_owner = ::getpid();
  g_cluster = std::move(c);
  std::atexit([] {
    if (g_cluster && ::getpid() == g_owner) g_cluster->release();
  });
  return g_cluster.get();
}

std::unique_ptr<PostgresCluster> PostgresCluster::start_own(const std::string& server_options) {
  static int counter = 0;
  auto c = std::unique_ptr<PostgresCluster>(new PostgresCluster);
  if (!c->find_server()) return nullptr;
  c->server_options_ = server_options;
  const std::string dir = (fs::temp_directory_path() / ("strata_pg_own_" + std::to_string(::getpid()) + "_" +
                                                        std::to_string(++counter))).string();
  if (!c->create(dir)) return nullptr;
  c->own_ = true;
  // Should this program die without running the destructor (a crash, a ctest timeout), a
  // detached shell stops the server and removes it once the program is gone.
  const std::string reaper = "while kill -0 " + std::to_string(::getpid()) + " 2>/dev/null; do sleep 1; done; " +
                             c->pg_ctl("-m immediate -w stop") + "; rm -rf '" + dir + "'";
  std::system(("setsid sh -c " + quoted(reaper) + " </dev/null >/dev/null 2>&1 &").c_str());
  return c;
}

PostgresCluster::~PostgresCluster() {
  if (!own_) return;
  std::system(pg_ctl("-m immediate -w stop >/dev/null 2>&1").c_str());
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

bool PostgresCluster::restart(std::chrono::milliseconds down) {
  if (!own_) throw std::logic_error("PostgresCluster::restart: the shared cluster is in use by other programs");
  if (std::system(pg_ctl("-m fast -w -t 30 stop >/dev/null 2>&1").c_str()) != 0) return false;
  std::this_thread::sleep_for(down);
  return start_server();
}

void PostgresCluster::release() {
  FileLock lock(lock_);
  std::error_code ec;
  fs::remove(dir_ + "/users/" + std::to_string(::getpid()), ec);
  // A detached shell stops the cluster later unless a live program has registered by then
  // (the files under users/ are named by pid; those of crashed programs are ignored).
  const std::string stop = pg_ctl("-m immediate -w stop");
  const std::string reaper = "sleep " + std::to_string(kLingerSeconds) + "; exec 9>'" + lock_ + "'; flock 9; " +
                             "for f in '" + dir_ + "'/users/*; do [ -e \"$f\" ] || continue; " +
                             "kill -0 \"${f##*/}\" 2>/dev/null && exit 0; rm -f \"$f\"; done; " + stop +
                             "; rm -rf '" + dir_ + "'";
  std::system(("setsid sh -c " + quoted(reaper) + " </dev/null >/dev/null 2>&1 &").c_str());
}

std::string PostgresCluster::run_as_owner(const std::string& command) const {
  if (!as_root_) return command;
  return "runuser -u postgres -- sh -c " + quoted(command);
}

std::string PostgresCluster::url(const std::string& database) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresCluster::client(const std::string& program, const std::string& database) const {
  return "PGOPTIONS='-c client_min_messages=warning' '" + bin_ + "/" + program + "' -h 127.0.0.1 -p " +
         std::to_string(port_) + " -U postgres -d " + quoted(database);
}

bool PostgresCluster::psql(const std::string& database, const std::string& sql) {
  const std::string cmd = client("psql", database) + " -q -X -v ON_ERROR_STOP=1 -c " + quoted(sql) + " >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

bool PostgresCluster::psql_file(const std::string& database, const std::string& path) {
  const std::string cmd = client("psql", database) + " -q -X -v ON_ERROR_STOP=1 -f " + quoted(path) + " >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

bool PostgresCluster::dump(const std::string& database, const std::string& path) {
  const std::string cmd = client("pg_dump", database) + " --no-owner --no-privileges -f " + quoted(path);
  return std::system(cmd.c_str()) == 0;
}

void PostgresCluster::create_database(const std::string& name) {
  if (!psql("postgres", "CREATE DATABASE \"" + name + "\"")) throw std::runtime_error("cannot create database " + name);
}

void PostgresCluster::drop_database(const std::string& name) {
  psql("postgres", "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
}

}  // namespace strata::hub::testing
