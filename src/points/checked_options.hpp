// Options checked against their declared rules before a layer makes its children from them
// (the check in the constructor's body would come after the children).
#pragma once
#include "strata/nn/option_table.hpp"

namespace strata::points {

template <class Options>
Options checked(Options options, const nn::Layer& owner) {
  nn::check_options(options, owner);
  return options;
}

}  // namespace strata::points
