// RNN, GRU and LSTM nodes: their attributes read and checked once, then imported as Strata's
// recurrent layers where those take them (onnx_import_recurrent.cpp), or by ONNX's definition as
// registered functions (onnx_import_recurrent_values.cpp, which also reads the attributes).
#pragma once
#include <string>
#include <vector>

#include "onnx_import.hpp"

namespace strata::onnx::detail {

// A node's kind and attributes, checked; activations resolved per direction (codes into
// kRecurrentActivations, with their alpha and beta, defaults filled in).
struct RecurrentSpec {
  enum Kind { rnn, gru, lstm } kind;
  int64_t dirs = 1;          // 2 when bidirectional
  bool reverse = false;      // direction "reverse"
  bool batch_major = false;  // layout 1
  bool linear_before_reset = false, input_forget = false;
  float clip = 0;  // 0: none
  std::vector<int64_t> acts;
  std::vector<float> alpha, beta;
  int gates() const { return kind == lstm ? 4 : kind == gru ? 3 : 1; }
  int acts_per_direction() const { return kind == lstm ? 3 : kind == gru ? 2 : 1; }
};

// ONNX's activation names for recurrent nodes, in the order of their codes.
inline const std::vector<std::string> kRecurrentActivations = {
    "Sigmoid",    "Tanh",        "Relu", "Affine",   "LeakyRelu", "ThresholdedRelu",
    "ScaledTanh", "HardSigmoid", "Elu",  "Softsign", "Softplus"};

RecurrentSpec recurrent_spec(const Importer& im, const pb::NodeProto& node);
// The node by ONNX's definition: each output it has that the graph reads, one function each.
void recurrent_values(Importer& im, const pb::NodeProto& node, const RecurrentSpec& spec);

}  // namespace strata::onnx::detail
