// The CPU backend's row of every dispatch table (strata/dispatch/stubs.hpp lists them), filled
// in when the library loads. Its kernels serve any host-accessible device: results are made on
// the device of their inputs, so a backend whose memory the host can read may reuse them.
#include "kernels/cpu/adam_step.hpp"
#include "kernels/cpu/bf16_via_float32.hpp"
#include "kernels/cpu/conv_kernels.hpp"
#include "kernels/cpu/dropout_kernels.hpp"
#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/index_kernels.hpp"
#include "kernels/cpu/loss_kernels.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/norm_kernels.hpp"
#include "kernels/cpu/pointcloud_kernels.hpp"
#include "kernels/cpu/pool_kernels.hpp"
#include "kernels/cpu/reduce.hpp"
#include "kernels/cpu/rnn_cells.hpp"
#include "kernels/cpu/skip_gram.hpp"
#include "kernels/cpu/softmax_kernels.hpp"
#include "strata/dispatch/stubs.hpp"

namespace strata::kernels::cpu {
namespace {

// Each stub gets the CPU kernel of its own name; a stub with no such kernel fails to compile.
// bfloat16 arguments reach it as float32 (kernels/cpu/bf16_via_float32.hpp).
[[maybe_unused]] const bool registered = [] {
#define STRATA_REGISTER_CPU(name)     \
  dispatch::name.set(DeviceType::CPU, \
                     bf16_via_float32::kernel<static_cast<decltype(dispatch::name)::Fn>(&cpu::name)>());
  STRATA_DISPATCH_STUBS(STRATA_REGISTER_CPU)
#undef STRATA_REGISTER_CPU
  return true;
}();

}  // namespace
}  // namespace strata::kernels::cpu
