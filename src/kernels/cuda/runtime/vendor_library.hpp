// NVIDIA's libraries (cuBLAS, cuDNN), loaded with dlopen so that libstrata_cuda needs only the
// driver where it runs: where one does not load, the backend's own kernels do its work. Every
// attempt is remembered: STRATA_CUDA_LOG=1 prints which file was loaded or each dlerror() text
// on stderr (scripts/gpu-check sets it), and STRATA_CUDA_<NAME>=0 turns a library off, to compare.
#pragma once
#include <initializer_list>
#include <string>

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// The first of `sonames` that loads, or nullptr (turned off by `env_switch`=0, or none loads).
// `what` names the library in the log ("cuBLAS").
void* load_vendor_library(const char* what, const char* env_switch, std::initializer_list<const char*> sonames);

// The address of `symbol` in `library`, or nullptr (logged with dlerror()'s text).
void* vendor_symbol(void* library, const char* what, const char* symbol);
// `slot` = `symbol` of `library` as a function pointer of slot's type; false when it is missing.
template <class F>
bool bind_symbol(void* library, const char* what, F& slot, const char* symbol) {
  slot = reinterpret_cast<F>(vendor_symbol(library, what, symbol));
  return slot != nullptr;
}

// Writes "strata cuda: <line>" on stderr when STRATA_CUDA_LOG=1.
void log_backend(const std::string& line);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
