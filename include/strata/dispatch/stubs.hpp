// Every dispatch stub, as one list: what a backend may implement. A backend registers into the
// stubs it supports (kernels/cpu/backend.cpp is the complete example); code that treats every
// family alike (a wrapping test backend, coverage reports) expands STRATA_DISPATCH_STUBS(X),
// which calls X(stub) for each.
#pragma once
#include "strata/dispatch/conv.hpp"
#include "strata/dispatch/dropout.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/dispatch/index.hpp"
#include "strata/dispatch/loss.hpp"
#include "strata/dispatch/matmul.hpp"
#include "strata/dispatch/norm.hpp"
#include "strata/dispatch/optim.hpp"
#include "strata/dispatch/pointcloud.hpp"
#include "strata/dispatch/pool.hpp"
#include "strata/dispatch/reduce.hpp"
#include "strata/dispatch/rnn.hpp"
#include "strata/dispatch/skip_gram.hpp"
#include "strata/dispatch/softmax.hpp"

// The list is laid out by hand, families filling each line:
// clang-format off
#define STRATA_DISPATCH_STUBS(X)                                                                              \
  X(unary) X(binary) X(binary_inplace) X(add_scaled_inplace) X(where) X(copy_into) X(contiguous_copy) X(cast)  \
  X(fill) X(reduce) X(arg_reduce) X(cumsum) X(matmul3d) X(conv_forward) X(conv_backward_data)                 \
  X(conv_backward_weights) X(pool_forward) X(pool_backward) X(softmax_forward) X(softmax_backward)            \
  X(channel_mean_var) X(batch_norm_apply) X(batch_norm_backward) X(layer_norm_forward) X(layer_norm_backward) \
  X(take_axes) X(write_slab) X(put_add_axes) X(gather_along) X(scatter_add_along) X(sort_along)                \
  X(true_positions) X(one_hot) X(pointwise_loss) X(pointwise_loss_backward) X(check_class_ids)                 \
  X(cross_entropy_forward) X(cross_entropy_backward) X(nll_forward) X(nll_backward) X(dropout_apply)          \
  X(lstm_cell_forward) X(lstm_cell_backward) X(gru_cell_forward) X(gru_cell_backward) X(adam_step)           \
  X(farthest_point_sample) X(knn) X(ball_query) X(scatter_max_rows) X(voxel_cells) X(skip_gram_update)
// clang-format on
