// The lock each call of a layer holds (layer.cpp): a layer whose call passes arguments or results
// in members around Layer::operator() (Recurrent::run) holds it across that call too.
#pragma once
#include <mutex>

#include "strata/nn/layer.hpp"

namespace strata::nn {

std::recursive_mutex& call_mutex(const Layer& layer);

}  // namespace strata::nn
