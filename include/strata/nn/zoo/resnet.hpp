// ResNet50 (He et al. 2015) in Keras applications' layout (keras.applications.ResNet50, TF2 /
// Keras 3 names): a 7x7 stride-2 convolution, a 3x3 stride-2 max pool, four stages of 3, 4, 6
// and 3 bottleneck blocks (1x1, 3x3, 1x1 convolutions with biases and batch norm, the
// stride on the first 1x1, a 1x1 projection shortcut in each stage's first block), global mean
// pool and a 1000-way softmax Dense. 25,636,712 weights, batch-norm statistics included
// (Keras's count). Input [-1, 224, 224, 3], NHWC.
//
// Keras's layer names, so its .h5 loads by name (interop::load_pretrained): conv1_pad,
// conv1_conv, conv1_bn, pool1_pad, pool1_pool; in block b of stage s (conv2 ... conv5)
// convS_blockB_0_conv / _0_bn (the shortcut, first blocks only), _1_conv, _1_bn, _2_conv,
// _2_bn, _3_conv, _3_bn, and the block's output convS_blockB_out (the add and its ReLU);
// avg_pool, predictions. Keras's weightless ReLU layers are the preceding batch norms'
// activations. Batch norm keeps Keras's epsilon 1.001e-5 and decay (momentum) 0.99.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

// end_with: the last layer or block kept: conv1_pad ... pool1_pool, a block output
// ("conv4_block6_out"), avg_pool or predictions. Throws strata::Error naming the model when it
// is not one of them.
std::shared_ptr<Model> resnet50(const std::string& end_with = "predictions", const Shape& input = {-1, 224, 224, 3});

}  // namespace strata::nn::zoo
