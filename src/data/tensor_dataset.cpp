#include "strata/autograd/grad_mode.hpp"
#include "strata/data/dataset.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {

namespace {

int64_t common_length(const std::vector<Tensor>& tensors) {
  STRATA_CHECK(!tensors.empty(), "TensorDataset: expected at least one tensor");
  for (size_t j = 0; j < tensors.size(); ++j) {
    STRATA_CHECK(tensors[j].defined() && tensors[j].dim() >= 1, "TensorDataset: tensor ", j,
                 " must have at least one axis to slice");
    STRATA_CHECK(tensors[j].size(0) == tensors[0].size(0), "TensorDataset: tensor ", j, " has ",
                 tensors[j].size(0), " rows along axis 0, expected ", tensors[0].size(0), " like tensor 0");
  }
  return tensors[0].size(0);
}

}  // namespace

TensorDataset::TensorDataset(std::vector<Tensor> tensors)
    : Dataset(common_length(tensors), [tensors](int64_t i) {
        NoGradGuard no_grad;
        Example ex;
        ex.reserve(tensors.size());
        for (const Tensor& t : tensors) ex.push_back(select(t, 0, i));
        return ex;
      }) {}

}  // namespace strata::data
