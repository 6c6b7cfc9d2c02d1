#include "strata/optim/optimizer.hpp"

#include <cmath>
#include <sstream>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::optim {

namespace {
std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params, double lr, std::string name)
    : params_(std::move(params)), states_(params_.size()), lr_(lr), name_(std::move(name)) {
  check_range("lr", lr, 0, INFINITY);
  for (size_t i = 0; i < params_.size(); ++i) {
    STRATA_CHECK(params_[i].defined(), name_, ": parameter ", i, " is an undefined tensor");
    STRATA_CHECK(is_floating(params_[i].dtype()), name_, ": parameter ", i, " must be a float tensor, got ",
                 dtype_name(params_[i].dtype()));
  }
}

void Optimizer::step() {
  NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor grad = params_[i].grad();
    if (!grad.defined()) continue;
    STRATA_CHECK(grad.shape() == params_[i].shape(), name_, ": parameter ", i, " has shape ",
                 params_[i].shape().str(), " but its gradient has shape ", grad.shape().str());
    ++states_[i].step;
    update(params_[i], grad, states_[i]);
  }
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
}

void Optimizer::set_learning_rate(double lr) {
  check_range("lr", lr, 0, INFINITY);
  lr_ = lr;
}

Tensor& Optimizer::buffer(ParamState& state, const std::string& key, const Tensor& like, double init) {
  auto it = state.buffers.find(key);
  if (it == state.buffers.end()) it = state.buffers.emplace(key, full_like(like, init)).first;
  // State follows its parameter when the model moves (Layer::to) between steps.
  else if (it->second.device() != like.device()) it->second = it->second.to(like.device());
  return it->second;
}

Tensor Optimizer::l2_grad(const Tensor& grad, const Tensor& param, double weight_decay) {
  if (weight_decay == 0) return grad;
  Tensor g = grad.clone();
  add_(g, param, weight_decay);
  return g;
}

void Optimizer::check_range(const char* what, double value, double low, double high, bool high_closed) const {
  bool ok = value >= low && (high_closed ? value <= high : value < high);
  if (std::isinf(high)) STRATA_CHECK(ok, name_, ": ", what, " must be >= ", num(low), ", got ", num(value));
  STRATA_CHECK(ok, name_, ": ", what, " must be in [", num(low), ", ", num(high), high_closed ? "]" : ")",
               ", got ", num(value));
}

}  // namespace strata::optim
