// Machines for the many-hosts test: each "host" is a network namespace joined to the test's
// own namespace by a veth pair (host i is 10.B.i.2, and reaches the test's side at 10.B.i.1),
// so its processes reach the database only over that link, which cut() takes down. Needs
// CAP_NET_ADMIN (`ip netns add`); ok() is false, and why() says so, where it is missing.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace strata::workflow::testing {

class NetworkHosts {
 public:
  explicit NetworkHosts(int n) {
    const int pid = static_cast<int>(::getpid());
    subnet_ = "10." + std::to_string(100 + pid % 150) + ".";
    tag_ = std::to_string(pid % 100000);
    for (int i = 0; i < n; ++i) {
      const std::string ns = name(i), outer = link(i), inner = "in" + tag_ + "_" + std::to_string(i);
      const std::string net = subnet_ + std::to_string(i) + ".";
      if (!run("ip netns add " + ns)) {
        why_ = "cannot create network namespaces (`ip netns add` needs CAP_NET_ADMIN)";
        return;
      }
      created_ = i + 1;
      if (!run("ip link add " + outer + " type veth peer name " + inner) || !run("ip link set " + inner + " netns " + ns) ||
          !run("ip addr add " + net + "1/24 dev " + outer) || !run("ip link set " + outer + " up") ||
          !run("ip netns exec " + ns + " ip addr add " + net + "2/24 dev " + inner) ||
          !run("ip netns exec " + ns + " ip link set " + inner + " up") || !run("ip netns exec " + ns + " ip link set lo up")) {
        why_ = "cannot set up the veth link of host " + std::to_string(i);
        return;
      }
    }
    ok_ = true;
  }
  ~NetworkHosts() {
    for (int i = 0; i < created_; ++i) {
      run("ip link delete " + link(i));
      run("ip netns delete " + name(i));
    }
  }
  NetworkHosts(const NetworkHosts&) = delete;
  NetworkHosts& operator=(const NetworkHosts&) = delete;

  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  // The command prefix that runs a program on host i.
  std::vector<std::string> on(int i) const { return {"ip", "netns", "exec", name(i)}; }
  // The address host i reaches this side at.
  std::string server_address(int i) const { return subnet_ + std::to_string(i) + ".1"; }
  // Takes host i's link down: its packets are dropped, its connections hang (no reset).
  bool cut(int i) const { return run("ip link set " + link(i) + " down"); }

 private:
  static bool run(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }
  std::string name(int i) const { return "strata" + tag_ + "h" + std::to_string(i); }
  std::string link(int i) const { return "out" + tag_ + "_" + std::to_string(i); }

  std::string subnet_, tag_, why_;
  int created_ = 0;
  bool ok_ = false;
};

}  // namespace strata::workflow::testing
