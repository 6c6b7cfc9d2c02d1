#include "strata/core/autocast.hpp"

#include <cpuid.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <utility>

#include "strata/core/autocast_copies.hpp"

namespace strata {
namespace {

thread_local bool bf16_active = false;
thread_local std::vector<AutocastCopies*> copy_scopes;  // innermost last
std::atomic<bool> copies_enabled{true};

bool same_elements(const Tensor& a, const Tensor& b) {
  return a.raw_data() == b.raw_data() && a.numel() == b.numel() && a.dtype() == b.dtype() && a.device() == b.device();
}

bool cpuid_bit(unsigned leaf, unsigned subleaf, int reg, unsigned bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(leaf, subleaf, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[reg] >> bit) & 1u;
}

bool emulation_requested() {
  const char* v = std::getenv("STRATA_BF16_EMULATE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

bool cpu_has_native_bf16() {
  // CPUID leaf 7 subleaf 1, EAX bit 5: AVX512_BF16 (Cooper Lake, Sapphire Rapids, Zen 4 and later).
  static const bool has = cpuid_bit(7, 1, 0, 5);
  return has;
}

bool bf16_autocast_available() {
  // oneDNN's emulated bf16 needs AVX-512 (leaf 7 subleaf 0, EBX bit 16: AVX512F; bit 30: AVX512BW).
  static const bool avx512 = cpuid_bit(7, 0, 1, 16) && cpuid_bit(7, 0, 1, 30);
  return cpu_has_native_bf16() || (avx512 && emulation_requested());
}

AutocastBF16::AutocastBF16(bool enabled) : previous_(bf16_active), active_(enabled && bf16_autocast_available()) {
  if (enabled && !active_) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      std::cerr << "strata: bf16 autocast: this CPU has no native bf16 (AVX512_BF16 or AMX); running float32 "
                   "instead (STRATA_BF16_EMULATE=1 runs oneDNN's slower emulated bf16)\n";
    });
  }
  bf16_active = active_;
}

AutocastBF16::~AutocastBF16() { bf16_active = previous_; }

bool autocast_bf16_active() { return bf16_active; }

AutocastCopies::AutocastCopies(std::vector<Copy> kept) : copies_(std::move(kept)) { copy_scopes.push_back(this); }

AutocastCopies::~AutocastCopies() {
  // Scopes are objects with automatic storage, so they close innermost first.
  copy_scopes.erase(std::find(copy_scopes.begin(), copy_scopes.end(), this));
}

std::vector<AutocastCopies::Copy> AutocastCopies::copies_of(const Tensor& t) const {
  std::vector<Copy> found;
  if (!t.defined()) return found;
  for (const Copy& c : copies_)
    if (same_elements(c.source, t)) found.push_back(c);
  return found;
}

void AutocastCopies::set_enabled(bool enabled) { copies_enabled = enabled; }
bool AutocastCopies::enabled() { return copies_enabled; }

AutocastCopies::Copy* AutocastCopies::find(const Tensor& x) {
  // Switched off, only the relu pairs are found: they say what an operand stands for.
  const bool all = copies_enabled;
  for (auto scope = copy_scopes.rbegin(); scope != copy_scopes.rend(); ++scope)
    for (Copy& c : (*scope)->copies_)
      if ((all || c.relu_output.defined()) && same_elements(c.source, x)) return &c;
  return nullptr;
}

void AutocastCopies::remember(const Tensor& x, const Tensor& bf16) {
  if (copies_enabled && !copy_scopes.empty()) copy_scopes.back()->copies_.push_back({x, bf16, Tensor()});
}

}  // namespace strata
