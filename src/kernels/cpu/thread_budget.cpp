#include "kernels/cpu/thread_budget.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

#include "strata/core/intra_op_threads.hpp"

namespace strata::kernels::cpu {
namespace {

constexpr std::int64_t kSampleEveryNs = 100'000'000;
constexpr int kSamplesAveraged = 4;  // 0.4 s: a passing process does not cost a thread

// Reads a small /proc file into `buf` (those are generated in one read); empty on failure.
std::string_view read_proc(const char* path, std::array<char, 8192>& buf) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  ::close(fd);
  return n > 0 ? std::string_view(buf.data(), static_cast<std::size_t>(n)) : std::string_view{};
}

// Threads of this process in state R (running or waiting for a core), the caller included.
int own_runnable_threads() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return 1;
  int runnable = 0;
  std::array<char, 8192> buf;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + entry->d_name + "/stat";
    if (task_state_from_stat(read_proc(path.c_str(), buf)) == 'R') ++runnable;
  }
  ::closedir(dir);
  return std::max(runnable, 1);
}

int usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(omp_get_num_procs(), 1);
}

class ThreadBudget {
 public:
  ThreadBudget()
      : max_threads_(intra_op_threads_max()), cpus_(usable_cpus()), budget_(max_threads_) {
    const char* env = std::getenv("STRATA_ADAPTIVE_THREADS");
    enabled_ = !(env != nullptr && std::string_view(env) == "0") && max_threads_ > 1;
  }

  int max_threads() const { return max_threads_; }

  int current() {
    if (!enabled_) return 0;
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch()).count();
    if (now >= next_sample_ns_.load(std::memory_order_relaxed)) sample(now);
    return budget_.load(std::memory_order_relaxed);
  }

 private:
  // One thread samples; the others keep the budget they read.
  void sample(std::int64_t now) {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    next_sample_ns_.store(now + kSampleEveryNs, std::memory_order_relaxed);
    std::array<char, 8192> buf;
    const int running = procs_running_from_stat(read_proc("/proc/stat", buf));
    if (running < 0) return;
    recent_others_[next_slot_] = std::max(running - own_runnable_threads(), 0);
    next_slot_ = (next_slot_ + 1) % kSamplesAveraged;
    int sum = 0;
    for (int o : recent_others_) sum += o;
    const int others = (sum + kSamplesAveraged / 2) / kSamplesAveraged;
    budget_.store(thread_budget(max_threads_, cpus_, others), std::memory_order_relaxed);
  }

  const int max_threads_;
  const int cpus_;
  bool enabled_ = true;
  std::atomic<std::int64_t> next_sample_ns_{0};
  std::atomic<int> budget_;
  std::mutex mu_;
  std::array<int, kSamplesAveraged> recent_others_{};
  int next_slot_ = 0;
};

}  // namespace

int thread_budget(int max_threads, int cpus, int others) {
  return std::clamp(cpus - others, 1, std::max(max_threads, 1));
}

int procs_running_from_stat(std::string_view proc_stat) {
  constexpr std::string_view key = "\nprocs_running ";
  const std::size_t at = proc_stat.find(key);
  if (at == std::string_view::npos) return -1;
  int n = 0;
  for (std::size_t i = at + key.size(); i < proc_stat.size() && proc_stat[i] >= '0' &&
                                        proc_stat[i] <= '9'; ++i)
    n = n * 10 + (proc_stat[i] - '0');
  return n;
}

char task_state_from_stat(std::string_view task_stat) {
  // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
  const std::size_t paren = task_stat.rfind(')');
  if (paren == std::string_view::npos || paren + 2 >= task_stat.size()) return '?';
  return task_stat[paren + 2];
}

int apply_thread_budget() {
  static ThreadBudget budget;
  thread_local int applied = 0;  // this thread's OpenMP count as last set here; 0: never set
  if (omp_in_parallel()) return omp_get_num_threads();
  const int cap = intra_op_thread_limit();
  // 0: adaptive threads turned off, or not for this thread
  int threads = intra_op_threads_follow_load() == FollowLoad::kYes ? budget.current() : 0;
  if (threads == 0 && cap == 0 && applied == 0) return omp_get_max_threads();  // left alone
  // Adaptive threads off (or not followed) but a cap was (or is) set here: count from intra_op_threads_max().
  if (threads == 0) threads = budget.max_threads();
  if (cap > 0) threads = std::min(threads, cap);
  if (threads != applied) {
    omp_set_num_threads(threads);
    applied = threads;
  }
  return threads;
}

}  // namespace strata::kernels::cpu
