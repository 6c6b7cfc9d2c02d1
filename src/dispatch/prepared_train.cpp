// The prepared training-kernel tables (strata/dispatch/prepared_train.hpp); the CPU backend
// registers into them from prepared_train_kernels.cpp.
#include "strata/dispatch/prepared_train.hpp"

namespace strata::dispatch {

constinit decltype(prepare_conv_train) prepare_conv_train{"prepare_conv_train"};
constinit decltype(prepare_linear_train) prepare_linear_train{"prepare_linear_train"};
constinit decltype(prepare_pool_train) prepare_pool_train{"prepare_pool_train"};

}  // namespace strata::dispatch
