// bf16 copies of float32 operands made once and used again (docs/mixed_precision.md, "Autocast").
// Under AutocastBF16 the CPU's matmul and convolution kernels round their float32 operands to bf16
// before every primitive; an op whose forward and backward passes read the same operand (a dense
// layer's weight W in the forward and Wᵀ in the backward; a convolution's input in the forward and
// in the weight gradient; an output gradient read by both backward kernels) rounded it every time.
//
// Inside an AutocastCopies scope (per thread, nestable) the kernels remember the bf16 copy they
// make of an operand that fills a block of memory (contiguous, or, where the kernel keeps the
// operand's strides, any gap-free order such as a transposed matrix), and hand it back when the
// same elements (the same memory: first element and count) come again, in any gap-free order,
// instead of rounding again. An op keeps the copies of the operands its backward pass will read
// (copies_of) and opens a scope seeded with them around that pass, as PyTorch's autocast keeps
// the bf16 copy of a weight for the whole autocast region.
//
// The promise the opener makes: nothing writes those operands while the scope lives, nor, for
// copies kept for a backward pass, between the forward pass and that backward pass (the backward
// pass uses the operands the forward pass used: in PyTorch, writing them in between is refused
// by the version counter; here the kept copy is what the backward pass reads). Each copy holds
// its source, so no other tensor can take that memory while the copy is remembered.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

class AutocastCopies {
 public:
  // `bf16` holds `source` rounded to bf16, laid out so that the element at a given offset from
  // source.raw_data() is at the same offset from bf16.raw_data().
  // With relu_output defined, the operand `source` stands for relu's backward pass: the gradient
  // `source` arriving at y = relu_output, kept where y > 0 and 0 elsewhere (a relu pair; both
  // contiguous). A convolution with a fused relu hands its bf16 kernels that pair instead of the
  // masked gradient, so that they mask and round it in one pass (bf16, undefined until the first
  // kernel asks, is then the masked gradient rounded). Only bf16 operands read a pair: its
  // maker passes `source` only to kernels that round it (autocast on, float32, the CPU).
  struct Copy {
    Tensor source;
    Tensor bf16;
    Tensor relu_output;
  };

  // A scope that starts with the copies `kept` (from copies_of in a forward pass).
  explicit AutocastCopies(std::vector<Copy> kept = {});
  ~AutocastCopies();
  AutocastCopies(const AutocastCopies&) = delete;
  AutocastCopies& operator=(const AutocastCopies&) = delete;

  // The copies this scope holds of t's elements (t's first element and count).
  std::vector<Copy> copies_of(const Tensor& t) const;

  // Whether kernels hold and hand back copies (default true; for every thread). Off, every operand
  // is rounded each time, as before these scopes: results are the same bits either way (the
  // tests compare them), as torch.set_autocast_cache_enabled switches PyTorch's weight cache.
  static void set_enabled(bool enabled);
  static bool enabled();

  // For the kernels. The copy of x's elements held by this thread's scopes (innermost first), or
  // null; the caller checks that x's order is one the copy can be viewed in.
  static Copy* find(const Tensor& x);
  // Remembers in the innermost scope that `bf16` is `x` rounded (laid out as Copy says); nothing
  // outside a scope.
  static void remember(const Tensor& x, const Tensor& bf16);

 private:
  std::vector<Copy> copies_;
};

}  // namespace strata
