// SharedParameters: a model's weights and its optimizer's state kept in a hub's database as one
// versioned row, which any number of processes read and update at once (A3C's shared network,
// a parameter server). A push reads the latest version, computes the new weights with no lock
// held, and stores them as version + 1 only if the row is still at the version it read
// (compare-and-swap, in a short write transaction); otherwise it reads the newer version and
// applies its update again. So n pushes, from whatever processes, raise the version by exactly n
// and none is lost or applied to weights it did not see.
//   lifecycle::SharedParameters shared(hub, "a3c_CartPole-v1");
//   shared.create(net.named_weights());                 // version 0, unless it exists already
//   auto latest = shared.pull();                        // {version, weights, optimizer, counters}
//   shared.apply_gradients({.gradients = grads, .counters = {{"env_steps", 80}}}, make_rmsprop);
//
// The row lives in the table shared_parameters (project, name), made on first use; the hub's
// model versions are untouched (save a snapshot with Hub::save_model to serve or keep one).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/hub/hub.hpp"
#include "strata/hub/shared_connection.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/optim/optimizer.hpp"

namespace strata::lifecycle {

// Named running totals stored with the weights and added to by pushes ("env_steps", "episodes").
using SharedCounters = std::map<std::string, double>;

// One version of the shared row.
struct SharedSnapshot {
  int64_t version = 0;               // 0 when created, + 1 per push
  io::NamedTensors weights;          // by the names create() was given
  io::NamedTensors optimizer_state;  // Optimizer::named_state() after the last apply_gradients
  SharedCounters counters;
  double updated_at = 0;  // unix seconds of the last write
};

// What one push did.
struct PushResult {
  int64_t version = 0;    // the version it stored
  int64_t conflicts = 0;  // times another push came first and the update was applied again
  SharedSnapshot latest;  // what it stored (to continue from without another pull)
};

// Gradients for apply_gradients, and counters to add in the same version.
struct GradientPush {
  io::NamedTensors gradients;  // by weight name; a weight not named keeps its value and state
  SharedCounters counters;     // added to the stored counters
};

// Makes the optimizer over the given parameters (hyper-parameters fixed by the caller);
// apply_gradients loads the stored state into it. `latest` holds the counters after this
// push's counters were added (for a learning-rate schedule over a shared step count).
using SharedOptimizerFactory =
    std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> params, const SharedSnapshot& latest)>;

class SharedParameters {
 public:
  // Throws strata::Error on an empty name. Makes the table when the hub has none.
  SharedParameters(hub::Hub& hub, std::string name);

  const std::string& name() const { return name_; }

  // Stores `weights` as version 0 with no optimizer state and no counters, unless a row of this
  // name exists (another process made it first: kept as it is). Returns the stored row.
  SharedSnapshot create(const io::NamedTensors& weights);
  // The latest version; throws strata::Error naming the parameters when there is no row.
  SharedSnapshot pull() const;
  std::optional<SharedSnapshot> try_pull() const;
  // The latest version number only (nothing read but it), or nothing when there is no row.
  std::optional<int64_t> version() const;

  // The compare-and-swap loop: update(latest) changes a copy of the latest row in place (it may
  // run several times, each on a newer row, so it must depend on nothing but its argument and
  // values it captured); the result is stored as latest.version + 1 if no push came between.
  // Throws strata::Error after `max_tries` conflicts in a row, or when the update renames,
  // drops or reshapes a weight.
  PushResult push(const std::function<void(SharedSnapshot&)>& update, int64_t max_tries = 10000);

  // A push that applies gradients with an optimizer: the latest weights become its parameters,
  // its stored state is loaded (none before the first push), one step() runs, and the new
  // weights and state are stored with the counters added. Throws strata::Error naming a gradient
  // whose weight is unknown or whose shape differs.
  PushResult apply_gradients(const GradientPush& push, const SharedOptimizerFactory& make_optimizer,
                             int64_t max_tries = 10000);

  // Deletes the row (nothing when there is none).
  void remove();

 private:
  hub::SharedConnection connection_;
  std::string name_;
};

}  // namespace strata::lifecycle
