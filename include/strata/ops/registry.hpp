// The op table: every differentiable op, one line per op, in one list per family. The list
// generates the `Op` enum, the names and the table the conformance test walks
// (tests/ops/conformance_*.cpp fails when an op in it has no case), and recording a node takes an
// `Op`, so an op missing from the table cannot record one.
//
// Each entry says whether the op's backward can itself be differentiated (create_graph):
// `any` when the backward is written in differentiable ops or in backward ops that record their
// own backward; `first` when it is a fused kernel without one (differentiating it twice throws an
// error naming the op).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "strata/core/unary_ops.hpp"

// The unary family: the list of core/unary_ops.hpp, less its ops without a backward (logical_not).
#define STRATA_UNARY_OPS(X) STRATA_UNARY_OP_LIST(STRATA_REGISTRY_UNARY, X)
#define STRATA_REGISTRY_UNARY(X, op, name, dtypes, backward, ...) STRATA_REGISTRY_UNARY_##backward(X, op)
#define STRATA_REGISTRY_UNARY_any(X, op) X(op, any)
#define STRATA_REGISTRY_UNARY_first(X, op) X(op, first)
#define STRATA_REGISTRY_UNARY_none(X, op)
#define STRATA_BINARY_OPS(X) \
  X(add, any) X(sub, any) X(mul, any) X(div, any) X(pow, any) X(maximum, any) X(minimum, any) X(where, any) X(cast, any)
#define STRATA_REDUCE_OPS(X)                                                                                    \
  X(sum, any) X(mean, any) X(prod, any) X(amax, any) X(amin, any) X(var, any) X(std, any) X(norm, any)           \
  X(logsumexp, any) X(cumsum, any)
#define STRATA_SHAPE_OPS(X)                                                                                     \
  X(reshape, any) X(permute, any) X(squeeze, any) X(unsqueeze, any) X(slice, any) X(select, any) X(expand, any)  \
  X(contiguous, any) X(clone, any) X(to_device, any)
#define STRATA_COMBINE_OPS(X) \
  X(concat, any) X(stack, any) X(split, any) X(chunk, any) X(pad, any) X(tile, any) X(flip, any) X(roll, any)
#define STRATA_LINALG_OPS(X) X(matmul, any) X(linear, any)
#define STRATA_INDEXING_OPS(X)                                                                                   \
  X(index_select, any) X(gather, any) X(scatter_add, any) X(masked_select, any) X(masked_fill, any)               \
  X(embedding, any) X(sort, any) X(topk, any)
#define STRATA_CONV_POOL_OPS(X)                                                                                  \
  X(conv1d, first) X(conv2d, first) X(conv3d, first) X(conv_transpose1d, first) X(conv_transpose2d, first)        \
  X(conv_transpose3d, first) X(max_pool1d, first) X(max_pool2d, first) X(max_pool3d, first) X(avg_pool1d, first) \
  X(avg_pool2d, first) X(avg_pool3d, first)
#define STRATA_NN_OPS(X)                                                                                         \
  X(softmax, any) X(log_softmax, any) X(dropout, any) X(cross_entropy, first) X(nll_loss, first)                  \
  X(binary_cross_entropy_with_logits, first) X(mse_loss, first) X(l1_loss, first) X(huber_loss, first)             \
  X(batch_norm, first) X(layer_norm, first) X(lstm_cell, first) X(gru_cell, first)

#define STRATA_ALL_OPS(X)                                                                                 \
  STRATA_UNARY_OPS(X) STRATA_BINARY_OPS(X) STRATA_REDUCE_OPS(X) STRATA_SHAPE_OPS(X) STRATA_COMBINE_OPS(X) \
  STRATA_LINALG_OPS(X) STRATA_INDEXING_OPS(X) STRATA_CONV_POOL_OPS(X) STRATA_NN_OPS(X)

namespace strata::ops {

enum class Op : uint16_t {
#define STRATA_OP_ENUMERATOR(name, order) name,
  STRATA_ALL_OPS(STRATA_OP_ENUMERATOR)
#undef STRATA_OP_ENUMERATOR
};

enum class BackwardOrder : uint8_t { any, first };

struct OpInfo {
  Op op;
  const char* name;           // as users call it: "conv2d"
  const char* backward_name;  // the node of its backward when that records a graph: "relu backward"
  BackwardOrder order;
};

inline constexpr std::array op_table{
#define STRATA_OP_INFO(name, order) OpInfo{Op::name, #name, #name " backward", BackwardOrder::order},
    STRATA_ALL_OPS(STRATA_OP_INFO)
#undef STRATA_OP_INFO
};

// The enum and the table come from one list; these checks keep them so.
namespace detail {
constexpr size_t op_count() {
  size_t n = 0;
#define STRATA_OP_COUNT(name, order) ++n;
  STRATA_ALL_OPS(STRATA_OP_COUNT)
#undef STRATA_OP_COUNT
  return n;
}
constexpr bool table_indexed_by_op() {
  for (size_t i = 0; i < op_table.size(); ++i)
    if (static_cast<size_t>(op_table[i].op) != i) return false;
  return true;
}
constexpr bool names_unique() {
  for (size_t i = 0; i < op_table.size(); ++i)
    for (size_t j = i + 1; j < op_table.size(); ++j)
      if (std::string_view(op_table[i].name) == op_table[j].name) return false;
  return true;
}
}  // namespace detail
static_assert(op_table.size() == detail::op_count(), "the op table lost an entry");
static_assert(detail::table_indexed_by_op(), "op_table[i] must describe Op(i)");
static_assert(detail::names_unique(), "an op name appears twice in the op lists");

constexpr const OpInfo& op_info(Op op) { return op_table[static_cast<size_t>(op)]; }
constexpr const char* op_name(Op op) { return op_info(op).name; }

}  // namespace strata::ops
