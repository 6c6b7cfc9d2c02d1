#include "kernels/cpu/dnnl_context.hpp"

#include <xmmintrin.h>
#include <pmmintrin.h>

#include <cstdlib>
#include <memory>
#include <new>

#include "strata/core/error.hpp"

namespace strata::kernels::cpu {
namespace {

// Denormals slow float math by ~100x; training drifts into them after a few epochs. Flush them
// to zero (FTZ/DAZ) on the loading thread, once: threads inherit the mode from the thread that
// creates them (POSIX: the floating-point environment), so every thread made afterwards, OpenMP's
// included, has it. No parallel region here: it would give the loading thread an OpenMP team for
// good, and a second team (a server's batch worker) would then stop libgomp's threads from
// spinning between regions (include/strata/core/intra_op_threads.hpp).
struct FlushDenormals {
  FlushDenormals() {
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
  }
};
const FlushDenormals flush_denormals;

}  // namespace

dnnl::engine& dnnl_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& dnnl_stream() {
  // One per thread: a stream is not safe to use from two threads at once, and two threads
  // training two models (a worker running tasks concurrently) must not share one.
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

dnnl::primitive_attr own_scratchpad(dnnl::primitive_attr attr) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void run_primitive(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
                   std::unordered_map<int, dnnl::memory> args) {
  // Grown to the largest need seen on this thread and kept: primitives run one at a time here.
  struct FreeAligned {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, FreeAligned> buffer;
  thread_local size_t capacity = 0;
  const dnnl::memory::desc need = pd.scratchpad_desc();
  if (const size_t bytes = need.get_size(); bytes > 0) {
    if (bytes > capacity) {
      const size_t rounded = (bytes + 63) / 64 * 64;
      buffer.reset(std::aligned_alloc(64, rounded));
      if (!buffer) throw std::bad_alloc();
      capacity = rounded;
    }
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(need, dnnl_engine(), buffer.get()));
  }
  prim.execute(dnnl_stream(), args);
  dnnl_stream().wait();
}

dnnl::memory::data_type dnnl_type(DType t) {
  switch (t) {
    case DType::f32: return dnnl::memory::data_type::f32;
    case DType::bf16:
      return dnnl::memory::data_type::bf16;
    case DType::i32: return dnnl::memory::data_type::s32;
    case DType::u8: return dnnl::memory::data_type::u8;
    default: throw Error(std::string("oneDNN does not compute in ") + dtype_name(t));
  }
}

}  // namespace strata::kernels::cpu
