#include "kernels/cuda/runtime/vendor_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>

#include "kernels/cuda/runtime/runtime.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

void log_backend(const std::string& line) {
  static const bool on = env_equals("STRATA_CUDA_LOG", "1");
  if (on) std::fprintf(stderr, "strata cuda: %s\n", line.c_str());
}

void* load_vendor_library(const char* what, const char* env_switch, std::initializer_list<const char*> sonames) {
  if (env_equals(env_switch, "0")) {
    log_backend(std::string(what) + ": off (" + env_switch + "=0), the own kernels run");
    return nullptr;
  }
  std::string failures;
  for (const char* name : sonames) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      const link_map* map = nullptr;
      const bool found = dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name;
      log_backend(std::string(what) + ": loaded " + (found ? map->l_name : name));
      return lib;
    }
    const char* error = dlerror();
    failures += std::string(failures.empty() ? "" : "; ") + (error ? error : name);
  }
  log_backend(std::string(what) + ": not loaded, the own kernels run (" + failures + ")");
  return nullptr;
}

void* vendor_symbol(void* library, const char* what, const char* symbol) {
  void* address = dlsym(library, symbol);
  if (!address) {
    const char* error = dlerror();
    log_backend(std::string(what) + ": " + (error ? error : symbol) + "; not used");
  }
  return address;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
