// The dispatch families the CUDA backend has kernels for (*.cu, portable.hpp): the GPU build
// registers them for DeviceType::CUDA (runtime/backend.cpp), the emulated build of tests/cuda for
// its test device. A family not listed raises "no kernel for cuda" naming itself.
#pragma once
#include "kernels/cuda/conv.hpp"
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/index.hpp"
#include "kernels/cuda/matmul.hpp"
#include "kernels/cuda/loss.hpp"
#include "kernels/cuda/norm.hpp"
#include "kernels/cuda/pointcloud.hpp"
#include "kernels/cuda/pool.hpp"
#include "kernels/cuda/reduce.hpp"
#include "kernels/cuda/rnn.hpp"
#include "kernels/cuda/training.hpp"

#define STRATA_CUDA_PORTABLE_STUBS(X)                                                              \
  STRATA_CUDA_ELEMENTWISE_STUBS(X) STRATA_CUDA_REDUCE_STUBS(X) STRATA_CUDA_LOSS_STUBS(X)           \
  STRATA_CUDA_TRAINING_STUBS(X) STRATA_CUDA_INDEX_STUBS(X) STRATA_CUDA_NORM_STUBS(X) STRATA_CUDA_POOL_STUBS(X) \
  STRATA_CUDA_RNN_STUBS(X) STRATA_CUDA_CONV_STUBS(X) STRATA_CUDA_MATMUL_STUBS(X)                 \
  STRATA_CUDA_POINTCLOUD_STUBS(X)
