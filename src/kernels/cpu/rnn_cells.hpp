// LSTM and GRU cell CPU kernels (strata/dispatch/rnn.hpp documents them).
#pragma once
#include "strata/dispatch/rnn.hpp"

namespace strata::kernels::cpu {

using dispatch::GruCellGrads;
using dispatch::GruCellOut;
using dispatch::LstmCellGrads;
using dispatch::LstmCellOut;

LstmCellOut lstm_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c);
LstmCellGrads lstm_cell_backward(const Tensor& act, const Tensor& c, const Tensor& dh, const Tensor& dc);
GruCellOut gru_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h);
GruCellGrads gru_cell_backward(const Tensor& act, const Tensor& h_gates, const Tensor& h, const Tensor& dh);

}  // namespace strata::kernels::cpu
