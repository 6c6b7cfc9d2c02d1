// The in-process worker: slot threads lease and run tasks, one heartbeat thread renews the
// leases of the running ones; every thread has its own connection (a Link), reopened with
// back-off when the database goes away.
#include "strata/workflow/worker.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "strata/core/intra_op_threads.hpp"
#include "strata/core/limits.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::workflow {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string default_worker_id() {
  static std::atomic<int> counter{0};
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  return std::string(host[0] ? host : "host") + ":" + std::to_string(::getpid()) + ":" + std::to_string(++counter);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string fence(const Lease& l) {
  return "task=" + std::to_string(l.task.id) + " attempt=" + std::to_string(l.attempt) + " kind=" + l.task.kind;
}

}  // namespace

struct Worker::Impl {
  Impl(std::string u, const TaskRegistry& r, WorkerOptions o, hub::HubOptions h)
      : url(std::move(u)), registry(r), options(std::move(o)), hub_options(std::move(h)) {}

  // One thread's connection to the hub, reopened after a failure with growing pauses.
  class Link {
   public:
    explicit Link(Impl& w) : w_(w) {}
    Queue& queue() {
      if (!queue_) {
        hub_.emplace(hub::Hub::open(w_.url, w_.hub_options));
        queue_.emplace(*hub_);
      }
      return *queue_;
    }
    hub::Hub& hub() { return *hub_; }
    // Drops the connection after `e`; returns how long to wait before the next try.
    double broken(const std::exception& e) {
      queue_.reset();
      hub_.reset();
      ++failures_;
      w_.count(&WorkerStats::reconnects);
      w_.emit(std::string("reconnecting: ") + e.what());
      return std::min(w_.options.max_reconnect_seconds, 0.05 * std::pow(2.0, std::min(failures_ - 1, 20)));
    }
    void healthy() { failures_ = 0; }

   private:
    Impl& w_;
    std::optional<hub::Hub> hub_;
    std::optional<Queue> queue_;
    int failures_ = 0;
  };

  struct Running {
    int64_t task_id, attempt;
    TaskContext* context;
  };

  std::string url;
  const TaskRegistry& registry;
  WorkerOptions options;
  hub::HubOptions hub_options;
  std::vector<std::string> kinds;
  std::atomic<bool> stopping{false};
  std::atomic<int> slots_left{0};
  std::atomic<int> busy{0};  // slots leasing or running a task
  std::deque<Lease> handed;  // leased by one slot for others waiting (guarded by mu)
  int wanting = 0;           // slots in next_lease (guarded by mu)
  bool leasing = false;      // a slot is leasing for the others (guarded by mu)
  // Counts a slot busy for its scope.
  struct Busy {
    explicit Busy(std::atomic<int>& n) : n_(n) { ++n_; }
    ~Busy() { --n_; }
    std::atomic<int>& n_;
  };
  mutable std::mutex mu;  // guards running, stats and the waits below
  std::condition_variable wake;
  std::vector<Running> running;
  WorkerStats stats;
  std::thread background;
  std::exception_ptr background_failure;  // what ended a start()ed run(), for join()

  void emit(const std::string& line) {
    if (options.on_event) options.on_event(line);
  }
  void count(int64_t WorkerStats::*field) {
    std::lock_guard lock(mu);
    ++(stats.*field);
  }
  // Sleeps up to `seconds`, waking early on stop().
  void pause(double seconds) {
    std::unique_lock lock(mu);
    wake.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stopping.load(); });
  }

  // Idle, for exit_when_idle: no slot is leasing or running a task (whose failure could put it
  // back after a retry delay) and no task this worker could run waits, even for its delay.
  bool idle_for_good(Link& link) {
    return busy == 0 && !link.queue().has_ready(kinds, options.tags);
  }

  // The next task for this slot: one another slot leased for it, or a batch this slot leases
  // for itself and the slots waiting with it (one statement for up to `concurrency` tasks,
  // each started at once on its slot). Nothing when no task is ready.
  std::optional<Lease> next_lease(Link& link) {
    std::unique_lock lock(mu);
    ++wanting;
    wake.wait(lock, [&] { return !handed.empty() || !leasing; });
    if (!handed.empty()) {
      --wanting;
      Lease mine = std::move(handed.front());
      handed.pop_front();
      return mine;
    }
    leasing = true;
    const int batch_size = wanting;
    lock.unlock();
    std::vector<Lease> batch;
    try {
      batch = link.queue().lease_and_start(options.id, kinds, options.tags, options.lease_seconds, batch_size);
    } catch (...) {
      lock.lock();
      leasing = false;
      --wanting;
      wake.notify_all();
      throw;
    }
    lock.lock();
    leasing = false;
    --wanting;
    std::optional<Lease> mine;
    for (auto& l : batch) {
      if (!mine) mine = std::move(l);
      else handed.push_back(std::move(l));  // at most one per slot waiting above
    }
    wake.notify_all();
    return mine;
  }

  void slot_loop() {
    // Each slot's tasks get their share of the cores: a slot thread's tensor work makes an
    // OpenMP team of its own, and teams outnumbering the cores put every parallel region to
    // sleep and wake (a CNN training step +50-70%, docs/benchmarks.md "One more OpenMP team").
    const IntraOpThreadLimit share(intra_op_threads_share(options.concurrency));
    Link link(*this);
    double idle = 0.001;
    while (!stopping) {
      try {
        bool ran = false;
        {
          Busy held(busy);
          std::optional<Lease> lease = next_lease(link);
          link.healthy();
          // Each result's commit leases this slot's next task, until none is ready.
          for (; lease; ran = true) lease = run_task(link, *lease);
        }
        if (!ran) {
          if (options.exit_when_idle && idle_for_good(link)) break;
          if (!link.queue().wait_for_work(idle)) pause(idle);
          idle = std::min(idle * 2, options.max_idle_poll_seconds);
          continue;
        }
        idle = 0.001;
      } catch (const std::exception& e) {
        pause(link.broken(e));
      }
    }
  }

  // Runs a task leased and started by lease_and_start; returns the next one, leased by its
  // commit (unless stopping).
  std::optional<Lease> run_task(Link& link, Lease& lease) {
    const auto leased = Clock::now();
    lease.started_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    json params;
    std::string error;
    bool permanent = false;
    try {
      // The row may come from any client: bound its nesting before anything recursive reads it.
      check_json_depth(lease.task.params, "task " + std::to_string(lease.task.id) + " params");
      params = registry.validate(lease.task.kind, json::parse(lease.task.params));
    } catch (const std::exception& e) {
      error = e.what();
      permanent = true;  // retrying cannot make bad parameters good
    }
    TaskContext context(lease.task, params, link.hub());
    json result;
    bool ok = false;
    if (!permanent) {
      {
        std::lock_guard lock(mu);
        running.push_back({lease.task.id, lease.attempt, &context});
      }
      try {
        result = registry.at(lease.task.kind).fn(context);
        ok = true;
      } catch (const std::exception& e) {
        error = e.what();
      } catch (...) {
        error = "the task function threw something that is not a std::exception";
      }
      std::lock_guard lock(mu);
      std::erase_if(running, [&](const Running& r) { return r.context == &context; });
    }
    NextLeases next{.kinds = kinds, .tags = options.tags, .lease_seconds = options.lease_seconds};
    commit(link, lease, ok, result, error, permanent, context.log_tail, context.outputs, seconds_since(leased),
           stopping ? nullptr : &next);
    if (next.leased.empty()) return std::nullopt;
    return std::move(next.leased.front());
  }

  // Commits the attempt's end, retrying through reconnects; after a reconnect a refusal may
  // mean our own commit went through before the connection broke, so the task is read back.
  // On success, `next` (when given) gets the slot's next task leased in the same commit; a
  // commit whose reply was lost may have leased one that is then left to expire and replay.
  void commit(Link& link, const Lease& lease, bool ok, const json& result, const std::string& error, bool permanent,
              const std::string& log_tail, const TaskOutputs& outputs, double seconds, NextLeases* next) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(60.0, 2 * options.lease_seconds));
    const std::string text = ok ? result.dump() : std::string();
    bool reconnected = false;
    for (;;) {
      try {
        Queue& q = link.queue();
        std::string what;
        if (ok) {
          if (next) next->leased.clear();
          bool done = q.complete(lease, text, log_tail, &outputs, next);
          if (!done && reconnected) {
            auto t = q.get(lease.task.id);
            done = t && t->status == TaskStatus::succeeded && t->attempts == lease.attempt && t->worker == lease.worker;
          }
          what = done ? "succeeded" : "refused";
        } else {
          FailOutcome outcome = q.fail(lease, error, log_tail, permanent);
          if (outcome == FailOutcome::refused && reconnected) {
            auto t = q.get(lease.task.id);
            if (t && t->attempts == lease.attempt && t->error == error)
              outcome = t->status == TaskStatus::failed ? FailOutcome::failed : FailOutcome::retrying;
          }
          what = outcome == FailOutcome::failed ? "failed" : outcome == FailOutcome::retrying ? "retrying" : "refused";
        }
        link.healthy();
        count(what == "succeeded" ? &WorkerStats::succeeded : what == "refused" ? &WorkerStats::refused : &WorkerStats::failed);
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.3f", seconds);
        emit(what + " " + fence(lease) + " seconds=" + secs +
             (what == "refused" ? " (the lease had been taken away: stale result dropped)" : "") +
             (ok ? "" : " error: " + error));
        return;
      } catch (const std::exception& e) {
        const double wait = link.broken(e);
        reconnected = true;
        if (Clock::now() > deadline) {
          emit("gave up committing " + fence(lease) + ": the hub stayed unreachable; the lease will expire and the task replay");
          return;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(wait));
      }
    }
  }

  void heartbeat_loop() {
    Link link(*this);
    const auto interval = std::chrono::duration<double>(options.lease_seconds / 3);
    std::unique_lock lock(mu);
    while (slots_left > 0) {
      wake.wait_for(lock, interval, [&] { return slots_left == 0; });
      if (slots_left == 0 || running.empty()) continue;
      std::vector<Running> beats = running;
      lock.unlock();
      std::vector<std::pair<int64_t, int64_t>> lost;
      try {
        for (const auto& r : beats) {
          Lease l;
          l.task.id = r.task_id;
          l.attempt = r.attempt;
          l.worker = options.id;
          if (!link.queue().heartbeat(l, options.lease_seconds)) lost.emplace_back(r.task_id, r.attempt);
        }
        link.healthy();
      } catch (const std::exception& e) {
        link.broken(e);  // the next beat reconnects; leases are renewed well before they expire
      }
      lock.lock();
      for (const auto& r : running)
        for (const auto& [id, attempt] : lost)
          if (r.task_id == id && r.attempt == attempt) r.context->lost = true;
    }
  }
};

Worker::Worker(std::string hub_url, const TaskRegistry& registry, WorkerOptions options, hub::HubOptions hub_options)
    : impl_(std::make_unique<Impl>(std::move(hub_url), registry, std::move(options), std::move(hub_options))) {
  auto& o = impl_->options;
  STRATA_CHECK(o.concurrency >= 1, "Worker: concurrency must be at least 1, got ", std::to_string(o.concurrency));
  STRATA_CHECK(o.lease_seconds > 0, "Worker: lease_seconds must be positive, got ", std::to_string(o.lease_seconds));
  impl_->kinds = registry.names();
  STRATA_CHECK(!impl_->kinds.empty(), "Worker: the task registry is empty: register at least one task kind");
  if (o.id.empty()) o.id = default_worker_id();
}

Worker::~Worker() {
  stop();
  if (impl_->background.joinable()) impl_->background.join();
}

void Worker::run() {
  Impl& w = *impl_;
  w.slots_left = w.options.concurrency;
  std::thread heartbeat([&] { w.heartbeat_loop(); });
  std::vector<std::thread> slots;
  try {
    for (int i = 0; i < w.options.concurrency; ++i)
      slots.emplace_back([&] {
        w.slot_loop();
        {
          std::lock_guard lock(w.mu);
          --w.slots_left;
        }
        w.wake.notify_all();
      });
  } catch (const std::system_error& e) {
    // Fewer threads than slots (the process's limits): stop the slots made, which the heartbeat
    // waits for, rather than let the unjoined threads end the process.
    {
      std::lock_guard lock(w.mu);
      w.slots_left -= w.options.concurrency - static_cast<int>(slots.size());
    }
    stop();
    for (auto& t : slots) t.join();
    heartbeat.join();
    STRATA_CHECK(false, "Worker ", w.options.id, ": could start only ", slots.size(), " of ", w.options.concurrency,
                 " task slots (", e.what(), "); ask for fewer");
  }
  for (auto& t : slots) t.join();
  heartbeat.join();
}

void Worker::start() {
  STRATA_CHECK(!impl_->background.joinable(), "Worker::start: worker ", impl_->options.id, " is already running");
  impl_->background = std::thread([this] {
    try {
      run();
    } catch (...) {
      impl_->background_failure = std::current_exception();
    }
  });
}

void Worker::stop() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
}

void Worker::join() {
  if (impl_->background.joinable()) impl_->background.join();
  if (impl_->background_failure) std::rethrow_exception(std::exchange(impl_->background_failure, nullptr));
}

const std::string& Worker::id() const { return impl_->options.id; }

WorkerStats Worker::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

}  // namespace strata::workflow
