// The recurrent-cell kernel families: one pass over [batch, units] forward (keeping the
// activated gates) and one backward (turning them into the gate gradients). Gate inputs are 2-D
// with unit-stride rows (a time step sliced from a [batch, time, gates] projection is one).
#pragma once
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// LSTM, gates i, f, g, o: x_gates and h_gates [B, 4H], c [B, H] -> h', c' and act [B, 5H]
// (i, f, g, o and tanh(c') per row: all the backward needs besides c).
struct LstmCellOut {
  Tensor h, c, act;
};
struct LstmCellGrads {
  Tensor gates, c;  // dL/d(x_gates) (= dL/d(h_gates)) [B, 4H], dL/dc [B, H]
};
extern Stub<LstmCellOut(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c)> lstm_cell_forward;
extern Stub<LstmCellGrads(const Tensor& act, const Tensor& c, const Tensor& dh, const Tensor& dc)>
    lstm_cell_backward;

// GRU, gates z, r, n: x_gates and h_gates [B, 3H], h [B, H] -> h' and act [B, 3H] (z, r, n).
struct GruCellOut {
  Tensor h, act;
};
struct GruCellGrads {
  Tensor x_gates, h_gates, h;
};
extern Stub<GruCellOut(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h)> gru_cell_forward;
extern Stub<GruCellGrads(const Tensor& act, const Tensor& h_gates, const Tensor& h, const Tensor& dh)>
    gru_cell_backward;

}  // namespace strata::dispatch
