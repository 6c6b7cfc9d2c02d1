// The CPU's skip-gram update with negative sampling (word2vec.c's and gensim's inner loop;
// strata/dispatch/skip_gram.hpp): one input row against a positive target and its negatives in
// two passes over the rows, the logistic from a table instead of expf, fixed-width blocks the
// compiler turns into vector FMAs. skip_gram_step and train_skip_gram both call it, so the step's
// test checks the trainer's code.
#include "kernels/cpu/skip_gram.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace strata::kernels::cpu {
namespace {

// σ(x) from 1024 intervals over [-8, 8] with linear interpolation (error under 3e-6, where
// word2vec.c's step table is off by up to 3e-3), σ(±8) beyond. 4 KB: it stays in L1 beside the rows.
class SigmoidTable {
 public:
  SigmoidTable() {
    for (int i = 0; i <= kSize; ++i) value_[i] = static_cast<float>(1 / (1 + std::exp(-(-kMax + i / kScale))));
    value_[kSize + 1] = value_[kSize];  // x == kMax reads one past the last interval
  }
  float operator()(float x) const {
    float at = (x + kMax) * kScale;
    at = at > 0 ? std::min(at, static_cast<float>(kSize)) : 0.0f;  // NaN (a diverged run) reads σ(-8)
    const int i = static_cast<int>(at);
    return value_[i] + (at - static_cast<float>(i)) * (value_[i + 1] - value_[i]);
  }
  static const SigmoidTable& get() {
    static const SigmoidTable table;
    return table;
  }

 private:
  static constexpr int kSize = 1024;
  static constexpr float kMax = 8, kScale = kSize / (2 * kMax);
  float value_[kSize + 2];
};

// The dot product in 16 separate lanes (one AVX-512 register or two AVX ones), summed as a tree at
// the end: GCC vectorises it without -ffast-math's reassociation, and, unlike `omp simd
// reduction`, does not spill the lanes and add them one by one.
constexpr int64_t kLanes = 16;

inline float dot(const float* __restrict a, const float* __restrict b, int64_t n) {
  float lane[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lane[j] += a[k + j] * b[k + j];
  float sum = 0;
  for (; k < n; ++k) sum += a[k] * b[k];
  for (int64_t width = kLanes / 2; width > 0; width /= 2)
    for (int64_t j = 0; j < width; ++j) lane[j] += lane[j + width];
  return lane[0] + sum;
}

}  // namespace

// First every target's dot product and scale g_t (into g[count]); then, target by target, o_t
// moves by g_t v while grad gathers g_t o_t; v moves by grad last. Both use the values before
// the step (exact gradient descent when the targets are distinct). The loss is a log per target,
// a cost the trainer samples.
double skip_gram_update(float* __restrict v, float* out, int64_t dim, const int64_t* targets, int64_t count,
                        float alpha, float* __restrict g, float* __restrict grad, bool with_loss) {
  const SigmoidTable& sigmoid = SigmoidTable::get();
  // The output rows are scattered over a table larger than L2: ask for all their cache lines
  // first, so that their misses overlap instead of each dot product waiting for its own.
  for (int64_t t = 0; t < count; ++t)
    for (int64_t k = 0; k < dim; k += 64 / sizeof(float)) __builtin_prefetch(out + targets[t] * dim + k, 1);
  double loss = 0;
  for (int64_t t = 0; t < count; ++t) {
    const float p = sigmoid(dot(out + targets[t] * dim, v, dim));
    const float label = t == 0 ? 1.0f : 0.0f;
    g[t] = (label - p) * alpha;
    if (with_loss) loss -= std::log(std::max(t == 0 ? p : 1 - p, 1e-7f));
  }
  for (int64_t t = 0; t < count; ++t) {
    float* __restrict o = out + targets[t] * dim;
    const float gt = g[t];
    if (t == 0) {
#pragma omp simd
      for (int64_t k = 0; k < dim; ++k) {
        grad[k] = gt * o[k];
        o[k] += gt * v[k];
      }
    } else {
#pragma omp simd
      for (int64_t k = 0; k < dim; ++k) {
        grad[k] += gt * o[k];
        o[k] += gt * v[k];
      }
    }
  }
#pragma omp simd
  for (int64_t k = 0; k < dim; ++k) v[k] += grad[k];
  return loss;
}

}  // namespace strata::kernels::cpu
