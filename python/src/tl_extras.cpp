// strata._strata.tl_extras: TensorLayer's small tools outside prepro (fixed-slope activations,
// tl.rein.log_weight, seq_minibatches2, class_balancing_oversample), which strata.tl.act,
// strata.tl.iterate and strata.tl.utils wrap under TensorLayer's names.
#include "bindings.hpp"
#include "strata/data/class_balancing.hpp"
#include "strata/data/seq_minibatches2.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/rl/log_weight.hpp"

namespace strata::python {

void bind_tl_extras(py::module_& m) {
  py::module_ t = m.def_submodule("tl_extras", "TensorLayer's activations, log_weight and data helpers");
  t.def(
      "ramp", [](py::handle x, double lo, double hi) { return nn::ramp(as_tensor(x), lo, hi); }, py::arg("x"),
      py::arg("v_min") = 0.0, py::arg("v_max") = 1.0);
  t.def(
      "leaky_relu6", [](py::handle x, double a) { return nn::leaky_relu6(as_tensor(x), a); }, py::arg("x"),
      py::arg("alpha") = 0.2);
  t.def(
      "leaky_twice_relu6",
      [](py::handle x, double lo, double hi) { return nn::leaky_twice_relu6(as_tensor(x), lo, hi); }, py::arg("x"),
      py::arg("alpha_low") = 0.2, py::arg("alpha_high") = 0.2);
  t.def(
      "log_weight", [](py::handle p, py::handle w) { return rl::log_weight(as_tensor(p), as_tensor(w)); },
      py::arg("probs"), py::arg("weights"));
  t.def(
      "seq_minibatches2",
      [](py::handle x, py::handle y, int64_t batch_size, int64_t num_steps) {
        py::list out;
        for (const auto& b : data::seq_minibatches2(as_tensor(x), as_tensor(y), batch_size, num_steps))
          out.append(py::make_tuple(b.inputs, b.targets));
        return out;
      },
      py::arg("inputs"), py::arg("targets"), py::arg("batch_size"), py::arg("num_steps"));
  t.def(
      "class_balancing_oversample",
      [](py::handle x, const std::vector<int64_t>& labels) {
        auto b = data::class_balancing_oversample(as_tensor(x), labels);
        return py::make_tuple(b.x, b.labels);
      },
      py::arg("x"), py::arg("labels"));
}

}  // namespace strata::python
