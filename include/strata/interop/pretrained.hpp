// Pretrained weights for a zoo model (or any built layer) from a file the user has:
//   auto net = nn::zoo::mobilenet_v1();
//   interop::load_pretrained(*net, "mobilenet_1_0_224_tf.h5");   // Keras, by layer name
//   interop::load_pretrained(*net, "mobilenet.npz");             // TensorLayer, by order
#pragma once
#include <string>

#include "strata/nn/layer.hpp"

namespace strata::interop {

// By the file's extension:
// - .npz: TensorLayer's save_npz (a `params` list), assigned by order; a model cut short by
//   end_with takes the first weights of the list, as TensorLayer's restore_params does.
// - .h5 / .hdf5: Keras's save_weights or model.save (io::load_keras_weights), assigned by
//   layer and weight name; the file's layers the model lacks (those after end_with, or another
//   top) are skipped. Keras's VGG names (block<b>_conv<c>) load into the zoo's (conv<b>_<c>).
// Every weight of the model must come from the file. Returns how many were assigned. Throws
// strata::Error naming the file and the weight for another extension, a weight the file lacks,
// or a shape that differs.
size_t load_pretrained(nn::Layer& model, const std::string& path);

}  // namespace strata::interop
