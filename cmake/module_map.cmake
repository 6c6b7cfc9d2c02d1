# The module map of docs/architecture.md, in one place: each module (a folder under src/ and
# include/strata/), in dependency order, with the modules it uses and the documented exceptions.
# CMakeLists.txt builds these modules; tests/module_map checks every include against the map.
#
# strata_module(<folder> [USES <module>...] [PRIVATE <module>...] [EXCEPTIONS <module>...])
#   USES: modules declared before it; it may include them and everything they may include, and
#   so may the modules that use it.
#   PRIVATE: modules it is implemented with but does not pass on (ops runs kernels; nn may not).
#   EXCEPTIONS: modules it includes by an exception documented in docs/architecture.md; not
#   passed on either.
# Sets STRATA_MODULES (the folders in order) and STRATA_SEES_<folder> (what each may include).

set(STRATA_MODULES)

macro(strata_module module)
  cmake_parse_arguments(_strata_module "" "" "USES;PRIVATE;EXCEPTIONS" ${ARGN})
  set(_strata_uses ${module})
  foreach(_used ${_strata_module_USES})
    if(NOT DEFINED STRATA_USES_${_used})
      message(FATAL_ERROR "module ${module} uses ${_used}, which is not declared before it")
    endif()
    list(APPEND _strata_uses ${STRATA_USES_${_used}})
  endforeach()
  list(REMOVE_DUPLICATES _strata_uses)
  set(STRATA_USES_${module} ${_strata_uses})
  set(STRATA_SEES_${module} ${_strata_uses} ${_strata_module_PRIVATE} ${_strata_module_EXCEPTIONS})
  # The edges as declared, for the diagram (cmake/module_map_diagram.cmake).
  set(STRATA_DECLARED_USES_${module} ${_strata_module_USES})
  set(STRATA_DECLARED_PRIVATE_${module} ${_strata_module_PRIVATE})
  set(STRATA_DECLARED_EXCEPTIONS_${module} ${_strata_module_EXCEPTIONS})
  list(APPEND STRATA_MODULES ${module})
endmacro()

# strata_include_exception(<file> <include>...): a test or tool file that includes beyond what
# the map lets it (cmake/check_module_map.cmake), with the reason in a comment above it.
set(STRATA_INCLUDE_EXCEPTIONS)
macro(strata_include_exception file)
  foreach(_included ${ARGN})
    list(APPEND STRATA_INCLUDE_EXCEPTIONS "${file}|${_included}")
  endforeach()
endmacro()

# core: holds the autograd metadata by an interface it declares (AutogradMetaInterface), so it
# includes nothing above it.
strata_module(core)
# dispatch: the kernel tables, keyed by device type; backends register into them.
strata_module(dispatch USES core)
strata_module(kernels/cpu USES core dispatch)
strata_module(kernels/meta USES core dispatch)
# kernels/cuda: the CUDA backend, its own library, libstrata_cuda (the only one linking the CUDA
# runtime), which libstrata loads when a CUDA device is first asked for (docs/cuda.md).
strata_module(kernels/cuda USES core dispatch)
# autograd: gradcheck and Tensor::retain_grad are tools on top of the graph that use ops.
strata_module(autograd USES core PRIVATE dispatch EXCEPTIONS ops)
strata_module(ops USES autograd PRIVATE dispatch)
strata_module(io USES core)
strata_module(data USES ops io)
# viz: pictures of a run (image grids, boxes with labels, training curves, animated PNG) in a
# bitmap font of its own, written with data's PNG encoder; data's image_tiles.hpp stays in data
# because train's TensorBoard image summaries tile images with it too.
strata_module(viz USES data)
# nn: io only for Strata's own format, safetensors (whole-model and weight files); other
# libraries' weight files are interop's. dispatch privately for the skip-gram update kernel
# and the compiled training steps' prepared kernels (dispatch/prepared_train.hpp).
strata_module(nn USES ops io PRIVATE dispatch)
# interop: the Keras / TensorLayer weight files and the zoo's pretrained weights (docs/interop.md).
strata_module(interop USES nn io)
strata_module(optim USES nn PRIVATE dispatch)
strata_module(hub USES io)
strata_module(train USES optim data)
# lifecycle: training that keeps its record in the hub (hub logging, checkpoints and resuming,
# static models saved whole, TensorBoard export of runs), so that train knows no hub.
strata_module(lifecycle USES train hub)
strata_module(workflow USES hub data)
# serve: static models come from the hub rebuilt by lifecycle::static_model (lifecycle/hub_models.hpp);
# the dashboard shows the workflow's plans.
strata_module(serve USES nn train lifecycle hub io workflow)
# dist: data-parallel training on MPI. Its own library, libstrata_dist (the only one linking MPI),
# so programs that train on one process link neither it nor MPI (docs/distributed.md).
strata_module(dist USES train)
set(STRATA_OWN_LIBRARY_MODULES kernels/cuda dist)
# rl: environments, returns and replay buffers, on nn/optim/train for the agents (docs/rl.md).
strata_module(rl USES train)
# onnx: static models to and from ONNX graphs, on Debian's libonnx proto library (docs/interop.md);
# protobuf's headers stay inside src/onnx.
strata_module(onnx USES nn io)
# points: 3-D point clouds (docs/pointclouds.md): files, data sets and augmentation on data, the
# layers on nn. The sampling and grouping ops are ops (strata/ops/pointcloud.hpp); scatter_max and
# voxelize call their dispatch families (scatter_max_rows, voxel_cells) themselves.
strata_module(points USES nn data viz PRIVATE dispatch)
# vision: image preprocessing and augmentation (TensorLayer's prepro: geometric, colour, elastic,
# featurewise / ZCA, boxes and key points; none of data's loaders uses it, so it sits above data),
# detection helpers (boxes, NMS, YOLO decoding and loss, COCO AP), darknet models (docs/detection.md).
strata_module(vision USES nn data)

# Tests that reach beyond their module's view, by exception (the library's own files have none).
# Internals with no public interface, checked by the cross-module regression tests: the hub's
# password hiding in URLs, io's child process running the HDF5 reader, the CPU thread budget.
strata_include_exception(tests/reliability/hub_password_hiding.cpp ../../src/hub/database.hpp)
strata_include_exception(tests/reliability/hdf5_reader_process.cpp io/child_process.hpp)
strata_include_exception(tests/reliability/thread_budget.cpp kernels/cpu/thread_budget.hpp)
# An int8 model saved whole into the hub and loaded back as a static model (lifecycle's), beside
# the model-file round trip of the same test.
strata_include_exception(tests/nn/test_int8.cpp strata/lifecycle/hub_models.hpp)
# The CUDA backend's tests run ops on an (emulated) CUDA device and compare them with the CPU's.
strata_include_exception(tests/cuda/test_emulated_index.cpp strata/ops/sort.hpp)
strata_include_exception(tests/cuda/test_emulated_pointcloud.cpp strata/ops/pointcloud.hpp strata/points/scatter.hpp)
# A whole Keras model, once loaded, is a Strata model like any other: the test trains it with Adam.
strata_include_exception(tests/interop/test_keras_model.cpp strata/optim/adam.hpp)
# The workflow tests register a task that trains a model; the workflow itself runs any task.
strata_include_exception(tests/workflow/linear_regression.hpp
  strata/nn/layers/dense.hpp strata/nn/initializers.hpp strata/optim/sgd.hpp)
# `strata serve` is tested on a PointNet++ model, which serve loads by its registered layers.
strata_include_exception(tests/serve/test_protocol.cpp strata/points/pointnet2.hpp)
# Keras and npz weight files loaded into nn layers: interop of io and nn, tested with io's files.
strata_include_exception(tests/io/test_npz_assign.cpp
  strata/nn/layers/dense.hpp strata/nn/load_weights.hpp strata/nn/layers/norm.hpp strata/nn/sequential.hpp)
