// Rounding float32 to bf16 for autocast's operands (strata/core/autocast.hpp; matmul.cpp,
// conv_kernels.cpp): the same bits as bfloat16::round_bits (round to nearest even, overflow to
// ±inf, a NaN kept a quiet NaN of its sign, denormals rounded like any value), 16 elements an
// instruction on AVX-512 and on the OpenMP threads for large tensors. The generic cast (copy_into
// through convert_element, one element at a time) took about a third of the bf16 CNN's step.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// dst[i] = bfloat16::round_bits(src[i]) for i in [0, n).
void round_to_bf16(const float* src, uint16_t* dst, int64_t n);

// dst[i] = bfloat16::round_bits(y[i] > 0 ? g[i] : 0): relu's backward pass and the rounding of
// its result in one pass (the same bits as the two passes).
void relu_backward_to_bf16(const float* g, const float* y, uint16_t* dst, int64_t n);

// A bf16 copy of the float32 tensor `x`, rounded as above. With keep_strides, when x's elements
// fill a block of memory without gaps in some order (a transposed matrix, a permuted tensor), the
// copy has x's strides, so no transposing copy is made; otherwise, and without keep_strides, the
// copy is contiguous: a transposed matrix (rank 2, or 3 with a batch axis) is rounded by a tiled
// transposing copy, other strided views by the generic element-by-element cast.
Tensor bf16_copy(const Tensor& x, bool keep_strides = false);

// bf16_copy for an operand of autocast's kernels: within an AutocastCopies scope
// (strata/core/autocast_copies.hpp), the copy held for x's elements viewed in x's order, if any,
// else a new copy, which the scope then holds. Only copies in x's order are held and handed back
// (x contiguous, or keep_strides and x gap-free); a transposing copy is made every time. For a
// relu pair of the scope (x the gradient at a relu's output), the masked gradient rounded.
Tensor bf16_operand(const Tensor& x, bool keep_strides = false);

}  // namespace strata::kernels::cpu
