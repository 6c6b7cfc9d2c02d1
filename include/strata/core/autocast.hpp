// bf16 mixed precision on the CPU, as PyTorch's torch.autocast("cpu", dtype=torch.bfloat16): inside
// an AutocastBF16 scope the CPU's matmul (and so dense layers and recurrent cells) and convolution
// kernels, forward and backward, round their float32 operands to bf16 and run oneDNN's bf16
// primitives with float32 outputs; weights, activations between those ops, reductions, losses and
// optimizer state stay float32 (the master copies). docs/mixed_precision.md has the policy.
//
// Hardware: a CPU with AVX512_BF16 (or AMX) runs bf16 natively. Elsewhere oneDNN 2.6 runs the same
// primitives by emulation on AVX-512 (slower than float32), so a scope there falls back to float32,
// after one warning on stderr, unless STRATA_BF16_EMULATE=1 (tests use it to run the bf16 path on
// any AVX-512 machine). The scope is per thread, like PyTorch's.
#pragma once

namespace strata {

// Whether this CPU has native bf16 arithmetic (CPUID: AVX512_BF16; every AMX CPU has it too).
bool cpu_has_native_bf16();
// Whether a scope would run bf16 here: native bf16, or STRATA_BF16_EMULATE=1 with AVX-512.
bool bf16_autocast_available();

class AutocastBF16 {
 public:
  // enabled = false: float32 inside, even within an enabled scope (torch.autocast(enabled=False)).
  explicit AutocastBF16(bool enabled = true);
  ~AutocastBF16();
  AutocastBF16(const AutocastBF16&) = delete;
  AutocastBF16& operator=(const AutocastBF16&) = delete;

  // Whether bf16 runs in this scope (false: disabled, or the float32 fallback).
  bool active() const { return active_; }

 private:
  bool previous_;
  bool active_;
};

// Whether the innermost scope of this thread runs bf16: what the CPU kernels read.
bool autocast_bf16_active();

}  // namespace strata
