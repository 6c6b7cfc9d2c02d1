// The prepared-kernel tables (strata/dispatch/prepared.hpp), kept out of stubs.hpp's list so that
// adding them rebuilt no backend; the CPU backend registers into them from its own file.
#include "strata/dispatch/prepared.hpp"

namespace strata::dispatch {

constinit decltype(prepare_conv) prepare_conv{"prepare_conv"};
constinit decltype(prepare_pool) prepare_pool{"prepare_pool"};
constinit decltype(prepare_linear) prepare_linear{"prepare_linear"};
constinit decltype(prepare_int8_conv) prepare_int8_conv{"prepare_int8_conv"};
constinit decltype(prepare_int8_linear) prepare_int8_linear{"prepare_int8_linear"};

}  // namespace strata::dispatch
