# The CUDA backend (src/kernels/cuda, docs/cuda.md): libstrata_cuda, a library of its own that
# libstrata loads the first time a CUDA device is asked for, so that programs and tests that run on
# the CPU load neither it nor the CUDA libraries. Built where nvcc is found (STRATA_CUDA=AUTO);
# its kernels compile for the GPUs of STRATA_CUDA_ARCHITECTURES even where no GPU is present.
set(STRATA_CUDA AUTO CACHE STRING "Build the CUDA backend, libstrata_cuda: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE STRATA_CUDA PROPERTY STRINGS AUTO ON OFF)
# sm_90: H100/H200; sm_80: A100 and the GPUs since.
set(STRATA_CUDA_ARCHITECTURES "80;90" CACHE STRING "GPU architectures libstrata_cuda is compiled for")

set(STRATA_WITH_CUDA OFF)
# The sanitizer build is clang's, without CUDA: the backend's own kernels are still tested there,
# compiled for the host (tests/cuda).
if(NOT STRATA_CUDA STREQUAL "OFF" AND NOT STRATA_SANITIZE)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)  # NVIDIA's packages install it off PATH
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(STRATA_WITH_CUDA ON)
  elseif(STRATA_CUDA STREQUAL "ON")
    message(FATAL_ERROR "STRATA_CUDA=ON, but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "CUDA backend (libstrata_cuda): ${STRATA_WITH_CUDA}")

if(STRATA_WITH_CUDA)
  set(CMAKE_CUDA_ARCHITECTURES ${STRATA_CUDA_ARCHITECTURES})
  set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc 13's C++20 flag; libstrata's users are asked for C++20.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  # nlohmann_json's imported target names /usr/include; as -isystem for nvcc it breaks libstdc++'s
  # #include_next <math.h>. It is searched anyway.
  list(APPEND CMAKE_CUDA_IMPLICIT_INCLUDE_DIRECTORIES /usr/include)
  find_package(CUDAToolkit REQUIRED)
endif()

# Called after the module views exist (CMakeLists.txt).
function(strata_add_cuda_backend)
  if(NOT STRATA_WITH_CUDA)
    return()
  endif()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/kernels/cuda/*.cpp
       ${PROJECT_SOURCE_DIR}/src/kernels/cuda/*.cu)
  add_library(strata_cuda SHARED ${sources})
  set(view ${PROJECT_BINARY_DIR}/module_views/kernels/cuda)
  target_include_directories(strata_cuda PRIVATE ${view}/include ${view}/src)
  # The runtime linked statically: the backend needs only the driver (libcuda) where it runs.
  target_link_libraries(strata_cuda PRIVATE Strata::engine CUDA::cudart_static)
  # Extended lambdas: the kernels are STRATA_HD lambdas (portable.hpp); relaxed constexpr lets
  # device code use std::numeric_limits.
  target_compile_options(strata_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
  # libstrata_engine looks for it in its own folder (src/core/device_memory.cpp), where it is built.
endfunction()
