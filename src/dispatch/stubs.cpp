// The dispatch tables themselves. constinit: every table is empty before any static
// initialiser runs, so backends may register from their own static initialisers in any order.
#include "strata/dispatch/stubs.hpp"

#include "strata/core/error.hpp"

namespace strata::dispatch {

#define STRATA_DEFINE_STUB(name) constinit decltype(name) name{#name};
STRATA_DISPATCH_STUBS(STRATA_DEFINE_STUB)
#undef STRATA_DEFINE_STUB

void throw_no_kernel(const char* family, Device device) {
  if (device.type == DeviceType::Meta)
    throw NoDataError(std::string(family) + ": the meta device has no shape-only kernel for this op (meta tensors " +
                      "have a shape and a dtype but no data)");
  throw Error(std::string(family) + ": no kernel registered for device " + device.str() +
              " (this backend does not implement the op)");
}

Device common_device(const char* op, const std::vector<Tensor>& tensors) {
  detail::DeviceOfArgs where(op);
  for (const Tensor& t : tensors) where.note(t);
  return where.device();
}

void throw_mixed_devices(const char* family, Device a, Device b) {
  throw Error(std::string(family) + ": expected every tensor on one device, got " + a.str() + " and " + b.str() +
              " (move them with .to(device))");
}

}  // namespace strata::dispatch
