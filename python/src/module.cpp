#include "bindings.hpp"

namespace strata::python {
void bind_prepro(pybind11::module_& m);     // prepro.cpp: TensorLayer's prepro tools (strata/vision/prepro.hpp)
void bind_tl_extras(pybind11::module_& m);  // tl_extras.cpp: TensorLayer's small tools outside prepro
void bind_visualize(pybind11::module_& m);  // visualize.cpp: t-SNE and weights as pictures (strata/viz)
}  // namespace strata::python

PYBIND11_MODULE(_strata, m) {
  m.doc() = "Strata: deep learning in C++ (the _strata extension; import strata)";
  strata::python::bind_errors(m);
  strata::python::bind_tensor(m);
  strata::python::bind_ops(m);
  strata::python::bind_nn(m);
  strata::python::bind_train(m);
  strata::python::bind_hub(m);
  strata::python::bind_data(m);
  strata::python::bind_points(m);
  strata::python::bind_rl(m);
  strata::python::bind_workflow(m);
  strata::python::bind_serve(m);
  strata::python::bind_prepro(m);
  strata::python::bind_tl_extras(m);
  strata::python::bind_visualize(m);
}
