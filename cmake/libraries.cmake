# The shared libraries, along the module map (docs/architecture.md, "Libraries"): each holds the
# objects of its modules and links only the third-party libraries those modules use, so a program
# that needs tensors and layers loads the engine and neither SQL clients nor HDF5, protobuf or
# httplib (the `libraries_needed` test checks it). The umbrella target `strata` (Strata::strata
# when installed) links them all, for programs that want everything.
#
#   library   modules                            third-party libraries
#   engine    core .. nn, optim, train, data     OpenMP, oneDNN, zlib, PNG, JPEG
#   interop   interop, io's HDF5 files            HDF5
#   hub       hub, lifecycle                      SQLite, libpq, OpenSSL
#   workflow  workflow
#   serve     serve                               cpp-httplib
#   onnx      onnx                                protobuf (ONNX's messages)
#   rl, points, vision: one module each
# dist (MPI) and the CUDA backend were libraries of their own before this split (CMakeLists.txt,
# cmake/cuda.cmake).
set(STRATA_LIBRARIES engine interop hub workflow serve onnx rl points vision)
set(STRATA_LIBRARY_MODULES_engine core dispatch kernels/cpu kernels/meta autograd ops io data viz nn optim train)
set(STRATA_LIBRARY_MODULES_interop interop)
set(STRATA_LIBRARY_MODULES_hub hub lifecycle)
set(STRATA_LIBRARY_MODULES_workflow workflow)
set(STRATA_LIBRARY_MODULES_serve serve)
set(STRATA_LIBRARY_MODULES_onnx onnx)
set(STRATA_LIBRARY_MODULES_rl rl)
set(STRATA_LIBRARY_MODULES_points points)
set(STRATA_LIBRARY_MODULES_vision vision)
# Files placed in another library than their module's: io's HDF5 reader and writer (and the child
# process it reads in) are used only by interop's Keras and TensorLayer weight files, so they go
# where libhdf5 is linked; the engine's own formats (safetensors, npy, npz, pickle) stay in io.
set(STRATA_LIBRARY_FILES_interop src/io/hdf5.cpp src/io/keras.cpp src/io/child_process.cpp)

# What each library links: the Strata libraries below it (public: their headers are its users'
# too) and its third-party libraries (private).
set(STRATA_LIBRARY_USES_engine)
set(STRATA_LIBRARY_LINKS_engine OpenMP::OpenMP_CXX DNNL::dnnl ZLIB::ZLIB PNG::PNG JPEG::JPEG ${CMAKE_DL_LIBS})
set(STRATA_LIBRARY_USES_interop Strata::engine)
set(STRATA_LIBRARY_LINKS_interop hdf5::hdf5)
set(STRATA_LIBRARY_USES_hub Strata::engine)
set(STRATA_LIBRARY_LINKS_hub SQLite::SQLite3 OpenSSL::Crypto PkgConfig::LIBPQ)
set(STRATA_LIBRARY_USES_workflow Strata::hub)
set(STRATA_LIBRARY_USES_serve Strata::workflow)
set(STRATA_LIBRARY_LINKS_serve ${HTTPLIB_LINK_LIBRARIES})
set(STRATA_LIBRARY_USES_onnx Strata::engine)
set(STRATA_LIBRARY_LINKS_onnx onnx_proto)
set(STRATA_LIBRARY_USES_rl Strata::engine)
set(STRATA_LIBRARY_USES_points Strata::engine)
set(STRATA_LIBRARY_USES_vision Strata::engine)

# Target names: strata_lib_<library> (STRATA_LIBRARY_TARGETS), with the alias Strata::<library>
# and the file libstrata_<library>.so (strata_<module> is taken by the modules' object libraries).
set(STRATA_LIBRARY_TARGETS)
foreach(library ${STRATA_LIBRARIES})
  add_library(strata_lib_${library} SHARED)
  list(APPEND STRATA_LIBRARY_TARGETS strata_lib_${library})
  add_library(Strata::${library} ALIAS strata_lib_${library})
  set_target_properties(strata_lib_${library} PROPERTIES OUTPUT_NAME strata_${library} EXPORT_NAME ${library})
  target_include_directories(strata_lib_${library} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
  foreach(module ${STRATA_LIBRARY_MODULES_${library}})
    set(STRATA_LIBRARY_OF_${module} ${library})
  endforeach()
  # A library that calls what it does not link fails here, not in a user's program. Not under the
  # sanitizers: their runtime is linked into programs only.
  if(NOT STRATA_SANITIZE)
    target_link_options(strata_lib_${library} PRIVATE -Wl,--no-undefined)
  endif()
endforeach()

# A module's sources as object libraries in their libraries: `target` holds the module's own,
# `target`_in_<library> the files STRATA_LIBRARY_FILES_<library> place elsewhere. `view` is the
# module's view (CMakeLists.txt).
function(strata_module_objects module target view)
  if(NOT STRATA_LIBRARY_OF_${module})
    message(FATAL_ERROR "module ${module} is in no library of cmake/libraries.cmake")
  endif()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${module}/*.cpp)
  foreach(other ${STRATA_LIBRARIES})
    set(files)
    foreach(file ${STRATA_LIBRARY_FILES_${other}})
      if(file MATCHES "^src/${module}/[^/]+$")
        list(APPEND files ${PROJECT_SOURCE_DIR}/${file})
      endif()
    endforeach()
    if(files)
      list(REMOVE_ITEM sources ${files})
      strata_objects_into(${other} ${target}_in_${other} ${view} ${files})
    endif()
  endforeach()
  strata_objects_into(${STRATA_LIBRARY_OF_${module}} ${target} ${view} ${sources})
endfunction()

function(strata_objects_into library target view)
  add_library(${target} OBJECT ${ARGN})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    UNITY_BUILD ${STRATA_UNITY_LIBRARY} UNITY_BUILD_BATCH_SIZE 8)
  target_include_directories(${target} PRIVATE ${view}/include ${view}/src)
  target_link_libraries(${target} PRIVATE strata_module_flags)
  target_sources(strata_lib_${library} PRIVATE $<TARGET_OBJECTS:${target}>)
endfunction()

# Called once the modules' objects are in place.
function(strata_link_libraries)
  foreach(library ${STRATA_LIBRARIES})
    target_link_libraries(strata_lib_${library} PUBLIC ${STRATA_LIBRARY_USES_${library}}
      PRIVATE ${STRATA_LIBRARY_LINKS_${library}})
  endforeach()
  # Public headers include nlohmann/json.hpp, so every user gets it. OpenMP is passed on inside
  # this tree only (the rl examples and some benchmarks use it), not to installed users.
  target_link_libraries(strata_lib_engine PUBLIC nlohmann_json::nlohmann_json $<BUILD_INTERFACE:OpenMP::OpenMP_CXX>)
  add_library(strata INTERFACE)
  target_link_libraries(strata INTERFACE ${STRATA_LIBRARY_TARGETS})
  # A program linked against all of Strata loads all of it, though it calls nothing of (say) the
  # points library: saved models name layer classes that register when their library loads, and
  # Debian's linker drops a library whose symbols are not referenced (--as-needed by default).
  target_link_options(strata INTERFACE "LINKER:--no-as-needed")
endfunction()
