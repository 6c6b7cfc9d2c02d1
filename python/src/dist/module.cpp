// strata.dist (the _strata_dist extension): data-parallel training on MPI from Python,
// `mpirun -n 2 python train.py`. An extension of its own over libstrata_dist, so that
// `import strata` never loads MPI.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "strata/dist/dist.hpp"
#include "strata/nn/layer.hpp"

namespace py = pybind11;
using namespace strata;

PYBIND11_MODULE(_strata_dist, m) {
  m.doc() = "Data-parallel training on MPI (import strata.dist)";
  py::module_::import("strata._strata");  // Layer and Tensor's Python types
  m.def("init", [] {
    const dist::World& w = dist::init();
    py::dict d;
    d["rank"] = w.rank;
    d["size"] = w.size;
    d["local_rank"] = w.local_rank;
    d["local_size"] = w.local_size;
    return d;
  }, "Starts MPI (once) and returns {rank, size, local_rank, local_size}; one process without mpirun.");
  m.def("barrier", [] {
    py::gil_scoped_release release;
    dist::barrier();
  });
  m.def("all_reduce_sum", [](Tensor t) {
    py::gil_scoped_release release;
    dist::all_reduce(t, dist::ReduceOp::sum);
    return t;
  }, py::arg("tensor"), "Sums the tensor over the ranks, in place; returns it.");
  m.def("all_gather", [](const Tensor& t) {
    py::gil_scoped_release release;
    return dist::all_gather(t);
  }, py::arg("tensor"), "Every rank's tensor stacked along a new first axis.");
  m.def("broadcast", [](Tensor t, int root) {
    py::gil_scoped_release release;
    dist::broadcast(t, root);
    return t;
  }, py::arg("tensor"), py::arg("root") = 0);
  py::class_<dist::DataParallel, nn::Layer, std::shared_ptr<dist::DataParallel>>(
      m, "DataParallel", "Wraps a built model: gradients averaged over the ranks in buckets during backward.")
      .def(py::init([](nn::Layer& model, double bucket_megabytes) {
             return std::make_shared<dist::DataParallel>(model, dist::DataParallelOptions{.bucket_megabytes = bucket_megabytes});
           }), py::arg("model"), py::arg("bucket_megabytes") = 25.0, py::keep_alive<1, 2>())
      .def_property_readonly("rank", &dist::DataParallel::rank)
      .def_property_readonly("size", &dist::DataParallel::size);
}
