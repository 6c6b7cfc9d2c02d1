// The CUDA backend's recurrent-cell families, each with its stub's signature. STRATA_CUDA_RNN_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/rnn.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

dispatch::LstmCellOut lstm_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c);
dispatch::LstmCellGrads lstm_cell_backward(const Tensor& act, const Tensor& c, const Tensor& dh, const Tensor& dc);
dispatch::GruCellOut gru_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h);
dispatch::GruCellGrads gru_cell_backward(const Tensor& act, const Tensor& h_gates, const Tensor& h,
                                         const Tensor& dh);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_RNN_STUBS(X) X(lstm_cell_forward) X(lstm_cell_backward) X(gru_cell_forward) X(gru_cell_backward)
