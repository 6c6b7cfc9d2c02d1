// Optimizer::named_state / load_state: the optimizer's memory as named tensors, for checkpoints.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/optim/optimizer.hpp"

namespace strata::optim {

namespace {

Tensor scalar_i64(int64_t v) { return from_vector(std::vector<int64_t>{v}, Shape{}); }
Tensor scalar_f64(double v) { return from_vector(std::vector<double>{v}, Shape{}); }

// The value of a scalar entry, checked to be one element of the expected kind.
int64_t read_i64(const std::string& who, const std::string& key, const Tensor& t) {
  STRATA_CHECK(t.dtype() == kInt64 && t.numel() == 1, who, ": state entry '", key,
               "' must be one int64 value, got ", dtype_name(t.dtype()), " ", t.shape().str());
  return t.to(kCPU).contiguous().data<int64_t>()[0];  // exact: item() goes through a double
}

// "<i>.<rest>" split into i and rest; nothing when the key has another form.
std::optional<std::pair<size_t, std::string>> param_key(const std::string& key) {
  const size_t dot = key.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  size_t index = 0;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + dot, index);
  if (ec != std::errc() || end != key.data() + dot) return std::nullopt;
  return std::pair{index, key.substr(dot + 1)};
}

}  // namespace

io::NamedTensors Optimizer::named_state() const {
  io::NamedTensors out = {{"lr", scalar_f64(lr_)}, {"params", scalar_i64(static_cast<int64_t>(params_.size()))}};
  for (size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].step == 0 && states_[i].buffers.empty()) continue;
    const std::string prefix = std::to_string(i) + ".";
    out.emplace_back(prefix + "step", scalar_i64(states_[i].step));
    // A copy: the checkpoint must not change as training goes on.
    for (const auto& [key, buffer] : states_[i].buffers) out.emplace_back(prefix + key, buffer.to(kCPU).clone());
  }
  return out;
}

void Optimizer::load_state(const io::NamedTensors& state) {
  const std::vector<std::string> known = buffer_names();
  std::optional<double> lr;
  std::optional<int64_t> count;
  std::vector<ParamState> loaded(params_.size());
  for (const auto& [key, tensor] : state) {
    STRATA_CHECK(tensor.defined(), name_, ": state entry '", key, "' is an undefined tensor");
    if (key == "lr") {
      STRATA_CHECK(is_floating(tensor.dtype()) && tensor.numel() == 1, name_,
                   ": state entry 'lr' must be one float value, got ", dtype_name(tensor.dtype()), " ",
                   tensor.shape().str());
      lr = tensor.item_double();
      continue;
    }
    if (key == "params") {
      count = read_i64(name_, key, tensor);
      STRATA_CHECK(*count == static_cast<int64_t>(params_.size()), name_, ": the state is of ", *count,
                   " parameters, this optimizer has ", params_.size());
      continue;
    }
    const auto parsed = param_key(key);
    STRATA_CHECK(parsed.has_value(), name_, ": unknown state entry '", key,
                 "' (expected lr, params, <index>.step or <index>.<buffer>)");
    const auto& [i, field] = *parsed;
    STRATA_CHECK(i < params_.size(), name_, ": state entry '", key, "' names parameter ", i, ", this optimizer has ",
                 params_.size());
    const Tensor& param = params_[i];
    if (field == "step") {
      loaded[i].step = read_i64(name_, key, tensor);
      STRATA_CHECK(loaded[i].step >= 0, name_, ": state entry '", key, "' must be >= 0, got ", loaded[i].step);
      continue;
    }
    STRATA_CHECK(std::find(known.begin(), known.end(), field) != known.end(), name_, ": state entry '", key,
                 "' is a buffer '", field, "' that ", name_, " does not use (a state saved by another optimizer?)");
    STRATA_CHECK(tensor.shape() == param.shape() && tensor.dtype() == param.dtype(), name_, ": state entry '", key,
                 "' is ", dtype_name(tensor.dtype()), " ", tensor.shape().str(), ", parameter ", i, " is ",
                 dtype_name(param.dtype()), " ", param.shape().str());
    STRATA_CHECK(loaded[i].buffers.emplace(field, tensor.to(param.device()).clone()).second, name_,
                 ": state entry '", key, "' appears twice");
  }
  STRATA_CHECK(lr.has_value() && count.has_value(), name_, ": the state lacks its '", lr ? "params" : "lr",
               "' entry (not an optimizer's named_state()?)");
  set_learning_rate(*lr);
  states_ = std::move(loaded);
}

}  // namespace strata::optim
