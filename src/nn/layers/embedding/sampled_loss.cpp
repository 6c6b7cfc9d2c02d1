#include "strata/nn/layers/embedding.hpp"

#include <cmath>
#include <set>
#include <vector>

#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

void check_labels(const Tensor& labels, const char* op) {
  STRATA_CHECK(labels.defined() && is_index_dtype(labels.dtype()) && (labels.dim() == 1 || labels.dim() == 2), op,
               ": labels must be int64 or int32 of shape [batch] or [batch, num_true], got ",
               labels.defined() ? labels.shape().str() + " " + dtype_name(labels.dtype()) : "undefined");
}

// [B, num_true] int64.
Tensor labels_2d(const Tensor& labels) {
  Tensor l = labels.dtype() == kInt64 ? labels : cast(labels, kInt64);
  return labels.dim() == 1 ? reshape(l, {l.size(0), 1}) : l;
}

// The logits of the true classes then the sampled ones, [B, num_true + num_sampled], with
// log(expected count) subtracted; `targets` receives 1 / num_true for the true, 0 for the rest.
Tensor sampled_logits(const Tensor& weights, const Tensor& biases, const Tensor& labels, const Tensor& inputs,
                      const CandidateSample& sample, bool remove_accidental_hits, const char* op, Tensor& targets) {
  check_labels(labels, op);
  STRATA_CHECK(weights.defined() && biases.defined() && inputs.defined() && is_floating(inputs.dtype()) &&
                   weights.dtype() == inputs.dtype() && biases.dtype() == inputs.dtype() && weights.dim() == 2 &&
                   biases.dim() == 1 && biases.size(0) == weights.size(0) && inputs.dim() == 2 &&
                   inputs.size(1) == weights.size(1) && inputs.size(0) == labels.size(0),
               op,
               ": expected floating weights [V, E], biases [V], inputs [B, E] of one dtype and labels [B, ...], got ",
               weights.defined() ? weights.shape().str() : "undefined", ", ",
               biases.defined() ? biases.shape().str() : "undefined", ", ",
               inputs.defined() ? inputs.shape().str() + " " + dtype_name(inputs.dtype()) : "undefined", " and ",
               labels.shape().str());
  STRATA_CHECK(sample.sampled.defined() && sample.sampled.dim() == 1 && sample.sampled_expected.defined() &&
                   sample.true_expected.defined() && sample.true_expected.shape() == labels_2d(labels).shape(),
               op, ": the candidate sample does not match labels of shape ", labels.shape().str());
  const Tensor lab = labels_2d(labels);
  const int64_t B = lab.size(0), T = lab.size(1), S = sample.sampled.size(0), E = inputs.size(1);
  const DType dt = inputs.dtype();
  Tensor ids = concat({reshape(lab, {B * T}), cast(sample.sampled, kInt64)}, 0);
  Tensor w = embedding(weights, ids), b = index_select(biases, 0, ids);
  Tensor true_logits = sum(unsqueeze(inputs, 1) * reshape(narrow(w, 0, 0, B * T), {B, T, E}), {-1}) +
                       reshape(narrow(b, 0, 0, B * T), {B, T}) - log(cast(sample.true_expected, dt));
  Tensor noise_logits =
      matmul(inputs, mT(narrow(w, 0, B * T, S))) + narrow(b, 0, B * T, S) - log(cast(sample.sampled_expected, dt));
  if (remove_accidental_hits) {
    Tensor hits = sum(eq(unsqueeze(lab, -1), reshape(cast(sample.sampled, kInt64), {1, 1, S})), {1}) > 0.0;
    // A large finite value rather than -inf: a zero target times -inf would be NaN.
    noise_logits = masked_fill(noise_logits, hits, -1e30);
  }
  targets = concat({full({B, T}, 1.0 / T, dt), zeros({B, S}, dt)}, 1);
  return concat({true_logits, noise_logits}, 1);
}

Tensor reduce(const Tensor& per_example, Reduction r) {
  return r == Reduction::none ? per_example : r == Reduction::sum ? sum(per_example) : mean(per_example);
}

}  // namespace

CandidateSample log_uniform_candidates(const Tensor& true_classes, int64_t num_sampled, int64_t range_max, bool unique,
                                       Generator* gen) {
  check_labels(true_classes, "log_uniform_candidates");
  STRATA_CHECK(num_sampled > 0 && range_max > 0 && (!unique || num_sampled <= range_max),
               "log_uniform_candidates: need 0 < num_sampled", unique ? " <= range_max" : "",
               " and range_max > 0, got num_sampled ", num_sampled, " and range_max ", range_max);
  std::mt19937_64& engine = (gen ? *gen : default_generator()).engine();
  std::uniform_real_distribution<double> uniform01(0.0, 1.0);
  const double log_range = std::log(static_cast<double>(range_max) + 1);
  // TensorFlow's LogUniformSampler: exp(u · log(range + 1)) - 1, rounded down.
  auto draw = [&] { return (static_cast<int64_t>(std::exp(uniform01(engine) * log_range)) - 1) % range_max; };
  auto probability = [&](int64_t k) { return std::log((k + 2.0) / (k + 1.0)) / log_range; };

  std::vector<int64_t> sampled;
  int64_t tries = 0;
  std::set<int64_t> seen;
  while (static_cast<int64_t>(sampled.size()) < num_sampled) {
    ++tries;
    int64_t k = draw();
    if (!unique || seen.insert(k).second) sampled.push_back(k);
  }
  auto expected = [&](int64_t k) {
    double p = probability(k);
    return tries == num_sampled ? p * num_sampled : -std::expm1(tries * std::log1p(-p));
  };
  Tensor lab = labels_2d(true_classes);
  std::vector<double> true_expected, sampled_expected;
  for (int64_t k : lab.to_vector<int64_t>()) true_expected.push_back(expected(k));
  for (int64_t k : sampled) sampled_expected.push_back(expected(k));
  return {from_vector(sampled), from_vector(true_expected, lab.shape()), from_vector(sampled_expected)};
}

Tensor nce_loss(const Tensor& weights, const Tensor& biases, const Tensor& labels, const Tensor& inputs,
                const CandidateSample& sample, bool remove_accidental_hits, Reduction reduction) {
  Tensor targets;
  Tensor logits = sampled_logits(weights, biases, labels, inputs, sample, remove_accidental_hits, "nce_loss", targets);
  return reduce(sum(binary_cross_entropy_with_logits(logits, targets, Reduction::none), {1}), reduction);
}

Tensor sampled_softmax_loss(const Tensor& weights, const Tensor& biases, const Tensor& labels, const Tensor& inputs,
                            const CandidateSample& sample, bool remove_accidental_hits, Reduction reduction) {
  Tensor targets;
  Tensor logits =
      sampled_logits(weights, biases, labels, inputs, sample, remove_accidental_hits, "sampled_softmax_loss", targets);
  return cross_entropy(logits, targets, reduction);
}

}  // namespace strata::nn
