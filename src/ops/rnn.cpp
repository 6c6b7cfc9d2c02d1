// lstm_cell and gru_cell: a forward kernel that keeps the activated gates, and a backward
// kernel that turns them into the gate gradients (strata/dispatch/rnn.hpp).
#include "strata/ops/rnn.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/rnn.hpp"

namespace strata {
namespace {

void check_step(const char* op, const Tensor& xg, const Tensor& hg, const Tensor& state, int gates) {
  ops::check_defined(xg, op, "x_gates");
  ops::check_defined(hg, op, "h_gates");
  ops::check_defined(state, op, "state");
  ops::check_floating(state, op);
  STRATA_CHECK(state.dim() == 2, op, ": expected the state as [batch, units], got shape ", state.shape().str());
  const Shape want{state.shape()[0], gates * state.shape()[1]};
  STRATA_CHECK(xg.shape() == want, op, ": expected x_gates of shape ", want.str(), " (", gates,
               " gates for the state's shape ", state.shape().str(), "), got ", xg.shape().str());
  STRATA_CHECK(hg.shape() == want, op, ": expected h_gates of shape ", want.str(), " (", gates,
               " gates for the state's shape ", state.shape().str(), "), got ", hg.shape().str());
  STRATA_CHECK(xg.dtype() == state.dtype() && hg.dtype() == state.dtype(), op,
               ": expected x_gates, h_gates and the state in one dtype, got ", dtype_name(xg.dtype()), ", ",
               dtype_name(hg.dtype()), " and ", dtype_name(state.dtype()));
}

}  // namespace

std::vector<Tensor> lstm_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c) {
  const char* op = "lstm_cell";
  check_step(op, x_gates, h_gates, c, 4);
  dispatch::LstmCellOut out = dispatch::lstm_cell_forward(x_gates, h_gates, c);
  if (autograd::needs_grad({&x_gates, &h_gates, &c}))
    ops::record(ops::Op::lstm_cell, {x_gates, h_gates, c}, {out.h, out.c}, [act = out.act, c](const ops::Grads& g) {
      dispatch::LstmCellGrads d = dispatch::lstm_cell_backward(act, c, g[0], g[1]);
      return ops::Grads{d.gates, d.gates, d.c};
    });
  return {out.h, out.c};
}

Tensor gru_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h) {
  const char* op = "gru_cell";
  check_step(op, x_gates, h_gates, h, 3);
  dispatch::GruCellOut out = dispatch::gru_cell_forward(x_gates, h_gates, h);
  if (autograd::needs_grad({&x_gates, &h_gates, &h}))
    ops::record(ops::Op::gru_cell, {x_gates, h_gates, h}, {out.h}, [act = out.act, h_gates, h](const ops::Grads& g) {
      dispatch::GruCellGrads d = dispatch::gru_cell_backward(act, h_gates, h, g[0]);
      return ops::Grads{d.x_gates, d.h_gates, d.h};
    });
  return out.h;
}

}  // namespace strata
