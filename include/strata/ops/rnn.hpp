// Fused recurrent steps: all the gate nonlinearities and the new state of one LSTM or GRU step
// in one kernel, with a hand-written backward. Gate order and formulas are Keras's (TensorLayer's).
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// One LSTM step. The gate pre-activations come as two [batch, 4 * units] sums, x·W + b and
// h·U, added inside the kernel; gates in the order i, f, c, o:
//   c' = σ(f)·c + σ(i)·tanh(g),  h' = σ(o)·tanh(c').  Returns {h', c'}, each [batch, units].
std::vector<Tensor> lstm_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c);

// One GRU step, reset gate applied after the recurrent matmul (Keras 2's reset_after=True, cuDNN's
// and PyTorch's form): x_gates = x·W + b_in, h_gates = h·U + b_rec, both [batch, 3 * units],
// gates in the order z, r, n:
//   n = tanh(x_n + σ(r)·h_n),  h' = σ(z)·h + (1 - σ(z))·n.  Returns h' [batch, units].
Tensor gru_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h);

}  // namespace strata
