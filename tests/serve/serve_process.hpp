// A real `strata serve` (or `strata ui`) process for a test: started on a free port (--port 0; the
// port is read from its "listening on" line), killed when the test ends unless the test stopped it.
#pragma once
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <httplib.h>

extern char** environ;

namespace strata::testing {

class ServeProcess {
 public:
  // Runs `strata COMMAND --hub HUB --port 0 ARGS...` and waits until it listens.
  ServeProcess(const std::string& hub, const std::vector<std::string>& args, const std::string& command = "serve") {
    std::vector<std::string> argv = {STRATA_CLI_PATH, command, "--hub", hub, "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, cargv[0], &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
    stdout_ = ::fdopen(out[0], "r");
    char line[4096];
    const std::string marker = "listening on http://127.0.0.1:";
    while (std::fgets(line, sizeof line, stdout_) != nullptr) {
      const std::string text = line;
      if (auto at = text.find(marker); at != std::string::npos) {
        port_ = std::stoi(text.substr(at + marker.size()));
        return;
      }
    }
    throw std::runtime_error("strata " + command + " exited before listening (exit status " + std::to_string(wait()) + ")");
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    if (stdout_ != nullptr) std::fclose(stdout_);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    c.set_tcp_nodelay(true);  // else each request's body waits for the server's delayed ACK
    return c;
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // The exit status once the process ends (-1 if it was killed by a signal).
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
  int port_ = 0;
};

}  // namespace strata::testing
