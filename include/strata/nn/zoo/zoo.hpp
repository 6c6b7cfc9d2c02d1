// The model zoo's umbrella header: VGG16/19 (static and dynamic), MobileNetV1, SqueezeNetV1,
// ResNet50, U-Net, and pretrained weights from TensorLayer .npz or Keras .h5 files.
#pragma once
#include "strata/nn/zoo/mobilenet.hpp"
#include "strata/nn/zoo/pretrained.hpp"
#include "strata/nn/zoo/resnet.hpp"
#include "strata/nn/zoo/squeezenet.hpp"
#include "strata/nn/zoo/unet.hpp"
#include "strata/nn/zoo/vgg.hpp"
#include "strata/nn/zoo/vgg_module.hpp"
