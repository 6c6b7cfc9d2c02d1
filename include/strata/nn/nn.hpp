// The layer module's umbrella header.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/conv.hpp"
#include "strata/nn/dense.hpp"
#include "strata/nn/dropout.hpp"
#include "strata/nn/initializers.hpp"
#include "strata/nn/lambda.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/model.hpp"
#include "strata/nn/pool.hpp"
#include "strata/nn/reshape.hpp"
#include "strata/nn/sequential.hpp"
