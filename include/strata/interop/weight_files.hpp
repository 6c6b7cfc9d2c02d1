// Weight files for the real Keras 2 (tf.keras 2.13), Keras 3 (3.12) and TensorLayer 2 (2.2.5), both ways: each
// layer's weights under the names and in the order those libraries use. Tables in
// docs/interop.md ("Keras and TensorLayer"); tests/interop/test_weight_files.cpp checks them against
// files the libraries wrote and predictions they made from Strata's files.
#pragma once
#include <string>
#include <vector>

#include "strata/io/hdf5.hpp"
#include "strata/nn/layer.hpp"

namespace strata::interop {

enum class Library { keras, tensorlayer2 };

// The name `lib` gives this layer. All three number unnamed layers per kind in construction
// order, so a default Strata name "<kind>_<n>" becomes the library's default for the n-th layer
// of its kind: Keras's "<class>" for n = 1, then "<class>_<n-1>" (batchnorm_1 ->
// batch_normalization, conv2d_3 -> conv2d_2); TensorLayer 2's "<kind>_<n>" (lstm_1 and gru_1 ->
// rnn_1: TensorLayer counts its RNNs together). A name the user gave is kept.
std::string library_layer_name(const nn::Layer& layer, Library lib);
// library_layer_name of each layer, unless two would get one name (a model whose layers the user
// named as the library does, "conv2d" and "conv2d_1": the second looks like Strata's default
// conv2d_1, which Keras calls "conv2d"); then every layer keeps its own name, which is unique.
std::vector<std::string> library_layer_names(const std::vector<const nn::Layer*>& layers, Library lib);

// The layers that hold the weights: `model`'s descendants without children (or `model` itself),
// in call order: the libraries' model.layers, less the input layer.
std::vector<const nn::Layer*> leaf_layers(const nn::Layer& model);

// model's leaf layers under library_layer_names, each with its weights named (with ":0") and
// ordered as `lib` does: Keras kernel, bias; gamma, beta, moving_mean, moving_variance;
// "<layer>/lstm_cell/kernel:0", ... TensorLayer 2: Dense weights, biases; Conv filters, biases;
// batch norm's beta, gamma, moving_mean, moving_var; an RNN's kernel, recurrent_kernel, bias; and
// the input layer "_inputlayer_1" first. Layers without weights are included (TensorLayer's
// in-order loader counts them; Keras skips them). Throws strata::Error for a weight the library
// has no place for (a stacked recurrent layer's cell_k/...).
std::vector<io::LayerWeights> library_layers(const nn::Layer& model, Library lib);

// Writers, for the libraries' own loaders:
//   save_keras_hdf5    model.load_weights(path), by order or by_name=True (Keras's save_weights layout)
//   save_tl2_hdf5      tl.files.load_hdf5_to_weights(_in_order)
//   save_tl2_npz_dict  tl.files.load_and_assign_npz_dict
//   save_tl2_npz       tl.files.load_and_assign_npz (Strata's order is TensorLayer 2's)
void save_keras_hdf5(const nn::Layer& model, const std::string& path);
//   save_keras3_weights  Keras 3's model.load_weights(path) (Keras 3 wants the name to end in
//                        ".weights.h5"): its layout, layers under Keras's names, a recurrent
//                        layer's weights under its "cell"
void save_keras3_weights(const nn::Layer& model, const std::string& path);
void save_tl2_hdf5(const nn::Layer& model, const std::string& path);
void save_tl2_npz_dict(const nn::Layer& model, const std::string& path);
void save_tl2_npz(const nn::Layer& model, const std::string& path);

// A file the library wrote (Keras 2's .h5; Keras 3's .weights.h5 or .keras, read by name only;
// TensorLayer 2's .h5 or save_npz_dict .npz; for its
// save_npz list use assign_weights(model, io::load_npz_list(path))) into `model`, built. By
// name: each of the file's layers goes to the model's layer whose library_layer_names entry (or
// own name) it has, so default names match between fresh sessions; a file layer the model lacks is
// an error. Otherwise by order (weights in Strata's order, as io::strata_weights puts them).
// Returns how many weights were assigned.
size_t load_library_weights(nn::Layer& model, const std::string& path, Library lib, bool by_name = true);

}  // namespace strata::interop
