// SqueezeNetV1 as TensorLayer's SqueezeNetV1, which is SqueezeNet v1.1 (Iandola et al. 2016;
// github.com/forresti/SqueezeNet, SqueezeNet_v1.1): a 3x3 stride-2 convolution of 64 filters,
// 3x3 stride-2 max pools after conv1, fire3 and fire5, eight fire modules (a 1x1 squeeze
// convolution, then 1x1 and 3x3 expand convolutions of 4x the squeeze's filters, concatenated;
// ReLU after each), dropout 0.5, a 1x1 convolution to 1000 classes and a global mean pool:
// logits, no softmax, as TensorLayer's. 1,235,496 weights. Input [-1, 224, 224, 3], NHWC.
//
// Names (TensorLayer's): conv1, maxpool1, fire2 ... fire9 (inside: fireN.squeeze1x1,
// fireN.expand1x1, fireN.expand3x3, fireN.concat, and fireN.max for fire3 and fire5), drop1,
// conv10, globalmeanpool. TensorLayer's squeezenet .npz loads by order (interop::load_pretrained).
// TensorLayer's model starts with a Lambda scaling [0, 1] inputs by 255; this one takes the
// inputs as the weights expect them (multiply by 255 yourself for TensorLayer's weights).
#pragma once
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

// end_with: TensorLayer's end points conv1, maxpool1, fire2 ... fire9, drop1, out (conv10 and
// the pool). Throws strata::Error naming the model when it is not one of them.
std::shared_ptr<Model> squeezenet_v1(const std::string& end_with = "out", const Shape& input = {-1, 224, 224, 3});

}  // namespace strata::nn::zoo
