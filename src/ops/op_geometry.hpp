// A convolution's or a pool's geometry from its operands, checked as the ops check them: shared
// by those ops and the prepared ones (prepared.cpp), which need it before any data exists. x
// [N, spatial (nsp axes)..., C] may be a meta tensor: only its shape is read. Errors name `op`.
#pragma once
#include "strata/dispatch/window.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/pool.hpp"

namespace strata::ops {

dispatch::ConvGeometry conv_geometry(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& opt, int nsp,
                                     const char* op);
dispatch::PoolGeometry pool_geometry(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& opt, int nsp,
                                     bool max, const char* op);

}  // namespace strata::ops
