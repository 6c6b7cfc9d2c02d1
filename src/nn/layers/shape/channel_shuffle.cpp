#include "strata/nn/layers/shape.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  STRATA_CHECK(groups > 0 && x.dim() >= 1 && x.shape().back() % groups == 0,
               "channel_shuffle: expected a [..., C] input with C divisible by groups ", std::to_string(groups),
               ", got ", x.shape().str());
  Shape split = x.shape();
  const int64_t c = split.back();
  split[static_cast<int>(split.size()) - 1] = groups;
  split.push_back(c / groups);
  return reshape(transpose(reshape(x, split), -1, -2), x.shape());
}

Shuffle::Shuffle(Options options, std::string name) : Layer("shuffle", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Shuffle::Shuffle(int64_t groups, std::string name) : Shuffle(Options{.groups = groups}, std::move(name)) {}

Tensor Shuffle::forward(const Tensor& x) {
  const int64_t groups = options_.groups;
  expect(x.dim() >= 1 && x.shape().back() % groups == 0,
         "expected channels (the last axis) divisible by " + std::to_string(groups) + ", got " + x.shape().str());
  return channel_shuffle(x, groups);
}

STRATA_DEFINE_OPTIONS(ShuffleOptions, STRATA_SHUFFLE_OPTIONS)
STRATA_LAYER("shuffle", Shuffle);

}  // namespace strata::nn
