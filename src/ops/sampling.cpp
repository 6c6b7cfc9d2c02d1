// Sampling on the host: each row's weights are read once as doubles, turned into a running sum,
// and each draw is a binary search of a uniform number in it. Rows are few and small enough
// (vocabularies, batches of a generator) that a kernel per device is not worth it.
#include "strata/ops/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ops/op_common.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/softmax.hpp"
#include "strata/ops/sort.hpp"

namespace strata {
namespace {

// A [C] or [N, C] float tensor's rows, as doubles.
struct Rows {
  int64_t n, c;
  bool batched;
  std::vector<double> values;
};

Rows rows_of(const Tensor& x, const char* op, const char* arg) {
  ops::check_defined(x, op, arg);
  ops::check_floating(x, op);
  STRATA_CHECK(x.dim() == 1 || x.dim() == 2, op, ": expected ", arg, " [C] or [N, C], got ", x.shape().str());
  const bool batched = x.dim() == 2;
  const int64_t c = x.shape().back(), n = batched ? x.shape()[0] : 1;
  STRATA_CHECK(c > 0, op, ": ", arg, " has no categories (shape ", x.shape().str(), ")");
  return {n, c, batched, x.detach().contiguous().to_vector<double>()};
}

// Draws one index from weights w[0, c) (finite, >= 0, positive sum) by inverting the running sum.
int64_t draw(const double* w, int64_t c, std::mt19937_64& engine) {
  std::vector<double> cum(c);
  std::partial_sum(w, w + c, cum.begin());
  const double u = std::uniform_real_distribution<double>(0.0, cum.back())(engine);
  // The first index whose running sum exceeds u: zero-weight categories are never chosen.
  int64_t i = std::upper_bound(cum.begin(), cum.end(), u) - cum.begin();
  while (i >= c || w[i] <= 0) --i;  // u == total (rounding): the last category with weight
  return i;
}

void check_weights(const double* w, int64_t c, int64_t row, const char* op) {
  double total = 0;
  for (int64_t j = 0; j < c; ++j) {
    STRATA_CHECK(std::isfinite(w[j]) && w[j] >= 0, op, ": probabilities must be finite and >= 0, got ", w[j],
                 " at row ", row, ", category ", j);
    total += w[j];
  }
  STRATA_CHECK(total > 0, op, ": row ", row, " has no positive probability (it sums to 0)");
}

Generator& generator(Generator* gen) { return gen ? *gen : default_generator(); }

// softmax(logits / temperature) per row, the ids drawn from it.
Tensor categorical(const Tensor& logits, double temperature, Generator* gen, const char* op) {
  ops::check_defined(logits, op, "logits");
  ops::check_floating(logits, op);
  STRATA_CHECK(logits.dim() == 1 || logits.dim() == 2, op, ": expected logits [C] or [N, C], got ",
               logits.shape().str());
  STRATA_CHECK(std::isfinite(temperature) && temperature > 0, op, ": temperature must be finite and > 0, got ",
               temperature);
  autograd::NoGradGuard no_grad;
  Tensor ids = multinomial(softmax(logits.detach() / temperature, -1), 1, true, gen);
  return logits.dim() == 2 ? ids.reshape({logits.shape()[0]}) : ids.reshape({});
}

}  // namespace

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen) {
  const char* op = "multinomial";
  Rows r = rows_of(probs, op, "probs");
  STRATA_CHECK(num_samples >= 1, op, ": num_samples must be >= 1, got ", num_samples);
  std::mt19937_64& engine = generator(gen).engine();
  std::vector<int64_t> ids;
  ids.reserve(r.n * num_samples);
  for (int64_t row = 0; row < r.n; ++row) {
    double* w = r.values.data() + row * r.c;
    check_weights(w, r.c, row, op);
    if (!replacement) {
      const int64_t nonzero = std::count_if(w, w + r.c, [](double v) { return v > 0; });
      STRATA_CHECK(num_samples <= nonzero, op, ": cannot draw ", num_samples, " samples without replacement from row ",
                   row, ", which has ", nonzero, " non-zero probabilities");
    }
    for (int64_t s = 0; s < num_samples; ++s) {
      const int64_t i = draw(w, r.c, engine);
      ids.push_back(i);
      if (!replacement) w[i] = 0;  // drawn once: out of the remaining draws
    }
  }
  const Shape shape = r.batched ? Shape{r.n, num_samples} : Shape{num_samples};
  return from_vector(ids, shape, probs.device());
}

Tensor sample_categorical(const Tensor& logits, double temperature, Generator* gen) {
  return categorical(logits, temperature, gen, "sample_categorical");
}

Tensor sample_top_k(const Tensor& logits, int64_t k, double temperature, Generator* gen) {
  const char* op = "sample_top_k";
  ops::check_defined(logits, op, "logits");
  STRATA_CHECK(logits.dim() == 1 || logits.dim() == 2, op, ": expected logits [C] or [N, C], got ",
               logits.shape().str());
  const int64_t c = logits.shape().back();
  STRATA_CHECK(k >= 1 && k <= c, op, ": k must be in [1, ", c, "] (the number of categories), got ", k);
  autograd::NoGradGuard no_grad;
  ValuesAndIndices top = topk(logits.detach(), k, -1);
  // A draw among the k best, mapped back to the category it stands for.
  Tensor pick = categorical(top.values, temperature, gen, op);
  Tensor ids = gather(top.indices, -1, pick.reshape(logits.dim() == 2 ? Shape{logits.shape()[0], 1} : Shape{1}));
  return logits.dim() == 2 ? ids.reshape({logits.shape()[0]}) : ids.reshape({});
}

}  // namespace strata
