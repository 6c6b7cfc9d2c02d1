#include "strata/train/callback.hpp"

#include "strata/core/error.hpp"

namespace strata::train {

TrainingState& Callback::state() const {
  STRATA_CHECK(state_ != nullptr, "Callback: state(), model() and optimizer() are only available during fit()");
  return *state_;
}

nn::Layer& Callback::model() const { return *state().model; }
optim::Optimizer& Callback::optimizer() const { return *state().optimizer; }

}  // namespace strata::train
