// The model zoo's umbrella header: VGG16/19 (static and dynamic), MobileNetV1, SqueezeNetV1,
// ResNet50, U-Net. Pretrained weights from TensorLayer .npz or Keras .h5 files:
// strata/interop/pretrained.hpp.
#pragma once
#include "strata/nn/zoo/mobilenet.hpp"
#include "strata/nn/zoo/resnet.hpp"
#include "strata/nn/zoo/squeezenet.hpp"
#include "strata/nn/zoo/unet.hpp"
#include "strata/nn/zoo/vgg.hpp"
#include "strata/nn/zoo/vgg_module.hpp"
