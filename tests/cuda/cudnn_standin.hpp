// A host stand-in for the cuDNN entry points the CUDA backend calls (src/kernels/cuda/cudnn_api.hpp),
// for the emulated build: direct convolutions on the memory the wrapper's descriptors describe
// (NHWC tensors, NHWC filters, groups, padding, strides, dilations, alpha and beta), which refuse
// descriptors that disagree with each other, rank a failing algorithm first, and need a workspace
// that they overwrite. So the wrapper (cudnn_conv.cpp) is tested without a GPU.
#pragma once

namespace strata::testing {

// While on, the emulated backend's cudnn() returns the stand-in and its convolutions use it.
void use_cudnn_standin(bool on);
// Convolutions (forward, backward data, backward filter) the stand-in has run.
int cudnn_standin_runs();

}  // namespace strata::testing
