// A dispatch stub: one kernel family's implementations, one per device type (PyTorch's
// DispatchStub). Ops call the stub with their tensors; it finds the device they share and runs
// that device's kernel. Backends (kernels/cpu, kernels/meta, kernels/cuda, or a test's) fill in
// their row at load time with set(); a device with no kernel raises strata::Error naming the
// family and the device (NoDataError on the meta device, which static models catch).
//
// Device rule: every defined tensor argument must be on one device, except that a meta tensor
// makes the whole call meta (real weights meet shape-only activations in static models).
#pragma once
#include <array>
#include <type_traits>
#include <utility>

#include "strata/core/tensor.hpp"

namespace strata::dispatch {

[[noreturn]] void throw_no_kernel(const char* family, Device device);
[[noreturn]] void throw_mixed_devices(const char* family, Device a, Device b);
// The device `tensors` share by the rule above; throws naming `op` when they are on two devices.
Device common_device(const char* op, const std::vector<Tensor>& tensors);

namespace detail {

template <class T>
inline constexpr bool is_tensor_arg = std::is_same_v<std::remove_cvref_t<T>, Tensor> ||
                                      std::is_same_v<std::remove_cvref_t<T>, Tensor*> ||
                                      std::is_same_v<std::remove_cvref_t<T>, const Tensor*>;

// Folds the devices of an op's tensor arguments into the one it runs on.
class DeviceOfArgs {
 public:
  explicit DeviceOfArgs(const char* family) : family_(family) {}
  void note(const Tensor& t) {
    if (!t.defined()) return;
    const Device d = t.device();
    if (!found_) {
      device_ = d, found_ = true;
    } else if (d != device_) [[unlikely]] {
      if (d.type == DeviceType::Meta) device_ = d;
      else if (device_.type != DeviceType::Meta) throw_mixed_devices(family_, device_, d);
    }
  }
  void note(const Tensor* t) {
    if (t) note(*t);
  }
  template <class T>
  void note(const T&) {}
  Device device() const { return device_; }

 private:
  const char* family_;
  Device device_ = kCPU;
  bool found_ = false;
};

}  // namespace detail

template <class Signature>
class Stub;

template <class R, class... Args>
class Stub<R(Args...)> {
 public:
  using Signature = R(Args...);
  using Fn = R (*)(Args...);

  constexpr explicit Stub(const char* name) : name_(name) {}
  Stub(const Stub&) = delete;
  Stub& operator=(const Stub&) = delete;

  const char* name() const { return name_; }
  // Installs (or with nullptr removes) the kernel of a device type.
  void set(DeviceType type, Fn fn) { table_[static_cast<int>(type)] = fn; }
  Fn get(DeviceType type) const { return table_[static_cast<int>(type)]; }
  // ggml's supports_op: whether `type` has a kernel for this family.
  bool supports(DeviceType type) const { return get(type) != nullptr; }

  // Runs the kernel of the device the tensor arguments are on.
  R operator()(Args... args) const {
    static_assert((detail::is_tensor_arg<Args> || ...), "a stub without tensor arguments is called with on(device)");
    detail::DeviceOfArgs where(name_);
    (where.note(args), ...);
    return on(where.device(), std::forward<Args>(args)...);
  }
  // Runs the kernel of `device` (for families whose arguments name no tensor).
  R on(Device device, Args... args) const {
    const Fn fn = table_[static_cast<int>(device.type)];
    if (!fn) [[unlikely]]
      throw_no_kernel(name_, device);
    return fn(std::forward<Args>(args)...);
  }

 private:
  const char* name_;
  std::array<Fn, kDeviceTypeCount> table_{};
};

}  // namespace strata::dispatch
