// Translating a Window into oneDNN's terms: its real spatial axes as dims, and memory
// descriptors of channels-last activations (tags nwc / nhwc / ndhwc, used without copies).
#pragma once
#include <string>

#include "kernels/cpu/dnnl_context.hpp"
#include "kernels/cpu/spatial_window.hpp"

namespace strata::kernels::cpu {

// The last `nsp` entries of a 3-axis array (oneDNN's dilation is ours minus one).
inline dnnl::memory::dims real_axes(const Window& w, const Window::Axes& a, int64_t minus = 0) {
  dnnl::memory::dims d;
  for (int i = 3 - w.nsp; i < 3; ++i) d.push_back(a[i] - minus);
  return d;
}

// [batch, spatial..., channels] as oneDNN's logical (N, C, spatial...) in a channels-last layout.
inline dnnl::memory::desc channels_last_md(const Window& w, const Window::Axes& spatial, int64_t channels,
                                           dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
  dnnl::memory::dims dims{w.batch, channels};
  for (int64_t s : real_axes(w, spatial)) dims.push_back(s);
  using tag = dnnl::memory::format_tag;
  const tag t = w.nsp == 1 ? tag::nwc : w.nsp == 2 ? tag::nhwc : tag::ndhwc;
  return dnnl::memory::desc(dims, type, t);
}

// A cache key naming every field of a window.
inline std::string window_key(const char* name, const Window& w) {
  std::string k = key_of(name, w.nsp, w.batch);
  for (const Window::Axes* a : {&w.in, &w.out, &w.kernel, &w.stride, &w.dilation, &w.pad_before, &w.pad_after})
    for (int64_t v : *a) k += '|' + std::to_string(v);
  return k;
}

}  // namespace strata::kernels::cpu
