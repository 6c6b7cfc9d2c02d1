#include "strata/data/batch.hpp"

#include <algorithm>

#include "strata/autograd/grad_mode.hpp"
#include "strata/ops/combine.hpp"

namespace strata::data {

namespace {

// Pads axis 0 of each tensor to the longest one.
std::vector<Tensor> pad_first_axis(std::vector<Tensor> field, double value) {
  int64_t longest = 0;
  for (const Tensor& t : field) {
    STRATA_CHECK(t.dim() >= 1, "batch: padding needs tensors of rank >= 1, got a scalar");
    longest = std::max(longest, t.size(0));
  }
  for (Tensor& t : field) {
    if (t.size(0) == longest) continue;
    std::vector<std::pair<int64_t, int64_t>> pads(t.dim(), {0, 0});
    pads[0].second = longest - t.size(0);
    t = pad(t, pads, PadMode::constant, value);
  }
  return field;
}

}  // namespace

Example collate(const std::vector<Example>& examples, const BatchOptions& options) {
  STRATA_CHECK(!examples.empty(), "batch: no examples to stack");
  NoGradGuard no_grad;
  const size_t fields = examples[0].size();
  Example out;
  out.reserve(fields);
  for (size_t j = 0; j < fields; ++j) {
    std::vector<Tensor> field;
    field.reserve(examples.size());
    for (size_t i = 0; i < examples.size(); ++i) {
      STRATA_CHECK(examples[i].size() == fields, "batch: example ", i, " has ", examples[i].size(),
                   " tensors, expected ", fields, " like the first");
      const Tensor& t = examples[i][j];
      if (!options.pad) {
        STRATA_CHECK(field.empty() || t.shape() == field[0].shape(), "batch: tensor ", j, " of example ", i,
                     " has shape ", t.shape().str(), ", expected ", field[0].shape().str(),
                     " (set BatchOptions::pad for variable-length sequences)");
      }
      field.push_back(t);
    }
    if (options.pad) field = pad_first_axis(std::move(field), options.pad_value);
    out.push_back(stack(field, 0));
  }
  return out;
}

}  // namespace strata::data
