// Keras' and TensorLayer 2's weight names and orders, mapped to Strata's, so that their HDF5
// files (io/hdf5.hpp) load into Strata layers by name or by order. Layouts agree already:
// Dense kernels are [in, out] and Conv2D kernels [kh, kw, in, out] in all three; see
// docs/interop.md for what differs (batch-norm order, recurrent gate order).
#pragma once
#include <string>
#include <vector>

#include "strata/io/hdf5.hpp"

namespace strata::io {

// A weight's own name in Strata's terms: the ":0" TensorFlow appends is dropped and
// kernel / weights / filters -> W, bias / biases -> b, depthwise_kernel -> depthwise_W,
// pointwise_kernel -> pointwise_W, moving_variance -> moving_var; others are kept.
std::string strata_weight_name(const std::string& name);

// Every layer's weights, named "<layer>/<strata_weight_name>" (the names of
// nn::Layer::named_weights), in Strata's order: batch norm's beta before gamma. A layer with a
// depthwise_kernel and no pointwise_kernel (Keras's DepthwiseConv2D) names it W, as Strata's
// DepthwiseConv2d does (SeparableConv2D's stays depthwise_W).
// Recurrent layers: Keras's LSTM / GRU / SimpleRNN (kernel [in, gates·u], recurrent_kernel
// [u, gates·u], bias; LSTM gates i, f, c, o; GRU z, r, h with reset_after's [2, 3u] bias) are
// Strata's layouts and gate orders already: their weights keep the names kernel,
// recurrent_kernel, bias under the layer group ("lstm/lstm_cell/kernel:0" in group "lstm" ->
// "lstm/kernel"). TensorFlow 1's LSTMCell / BasicLSTMCell (TensorLayer 1's RNNLayer: one kernel
// [in + u, 4u] in gate order i, j, f, o and forget_bias 1 added at run time) is converted with
// tf_lstm_to_keras. A weight
// whose file name has another layer in front ("dense/kernel:0" in group "model_1", a nested
// model) is named after that inner layer. Throws strata::Error if two weights get one name.
NamedTensors strata_weights(const std::vector<LayerWeights>& layers);

// TensorFlow 1's LSTM cell weights -> Keras's (and Strata's): kernel [in + u, 4u] splits into
// kernel [in, 4u] and recurrent_kernel [u, 4u]; gate blocks i, j, f, o become i, f, c (= j), o;
// forget_bias is folded into the forget gate's bias. Returns {kernel, recurrent_kernel, bias}.
// Throws strata::Error naming `what` when the shapes are not such a cell's.
NamedTensors tf_lstm_to_keras(const Tensor& kernel, const Tensor& bias, double forget_bias = 1.0,
                              const std::string& what = "lstm");

// strata_weights(load_hdf5_weights(path)): a Keras .h5 (save_weights or a whole model.save)
// or a TensorLayer save_weights_to_hdf5 file, ready for nn::assign_weights(_by_name).
NamedTensors load_keras_weights(const std::string& path);

}  // namespace strata::io
