// MobileNetV1 (Howard et al. 2017), alpha 1.0, as Keras applications' MobileNet and
// TensorLayer's MobileNetV1: a 3x3 stride-2 convolution, then 13 depthwise-separable blocks
// (3x3 depthwise, 1x1 pointwise, each followed by batch norm and ReLU6), global mean pool and a
// 1x1 convolution to 1000 classes with softmax. 4,253,864 weights, batch-norm statistics
// included (Keras's count). Input [-1, 224, 224, 3], NHWC.
//
// Layers carry Keras's names, so that a Keras .h5 loads by name (interop::load_pretrained):
// conv1, conv1_bn, then per block i = 1..13 [conv_pad_i (stride-2 blocks 2, 4, 6, 12)],
// conv_dw_i, conv_dw_i_bn, conv_pw_i, conv_pw_i_bn, and global_average_pooling2d,
// reshape_1, dropout, conv_preds, predictions. Keras's weightless ReLU6 layers (conv1_relu,
// conv_dw_i_relu, ...) are the batch norms' activations here, and its final Reshape and
// softmax Activation are conv_preds's softmax (over the channels, the classes) and the
// Reshape "predictions". Batch norm keeps Keras's epsilon 1e-3 and decay (momentum) 0.99.
// TensorLayer's mobilenet .npz (its weights in this same order) loads by order.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

// end_with: the last layer kept, one of the names above ("conv_pw_13_bn" for features).
// Throws strata::Error naming the model when it is not one of them.
std::shared_ptr<Model> mobilenet_v1(const std::string& end_with = "predictions",
                                    const Shape& input = {-1, 224, 224, 3});

}  // namespace strata::nn::zoo
