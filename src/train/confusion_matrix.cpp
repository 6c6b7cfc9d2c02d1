#include "strata/train/confusion_matrix.hpp"

#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::train {

ConfusionMatrix::ConfusionMatrix(int64_t num_classes) : classes_(num_classes) {
  STRATA_CHECK(num_classes >= 0, "ConfusionMatrix: num_classes must be >= 0, got ", num_classes);
  reset();
}

void ConfusionMatrix::reset() {
  counts_.assign(classes_, std::vector<int64_t>(classes_, 0));
}

void ConfusionMatrix::update(const Tensor& outputs, const Tensor& targets) {
  const detail::ClassPairs p = detail::class_pairs(outputs, targets, "ConfusionMatrix");
  if (classes_ == 0) {
    classes_ = p.num_classes;
    reset();
  }
  STRATA_CHECK(p.num_classes == classes_, "ConfusionMatrix: expected outputs with ", classes_,
               " classes on the last axis, got ", outputs.shape().str());
  for (size_t i = 0; i < p.target.size(); ++i) ++counts_[p.target[i]][p.predicted[i]];
}

Tensor ConfusionMatrix::matrix() const {
  std::vector<int64_t> flat;
  flat.reserve(classes_ * classes_);
  for (const auto& row : counts_) flat.insert(flat.end(), row.begin(), row.end());
  return from_vector(flat, Shape{classes_, classes_});
}

int64_t ConfusionMatrix::total() const {
  int64_t n = 0;
  for (const auto& row : counts_)
    for (int64_t c : row) n += c;
  return n;
}

int64_t ConfusionMatrix::predicted_as(int64_t cls) const {
  int64_t n = 0;
  for (const auto& row : counts_) n += row[cls];
  return n;
}

int64_t ConfusionMatrix::targets_of(int64_t cls) const {
  int64_t n = 0;
  for (int64_t c : counts_[cls]) n += c;
  return n;
}

double ConfusionMatrix::precision(int64_t cls) const {
  STRATA_CHECK(cls >= 0 && cls < classes_, "ConfusionMatrix: class ", cls, " is outside [0, ", classes_, ")");
  const int64_t predicted = predicted_as(cls);
  return predicted == 0 ? 0.0 : static_cast<double>(counts_[cls][cls]) / predicted;
}

double ConfusionMatrix::recall(int64_t cls) const {
  STRATA_CHECK(cls >= 0 && cls < classes_, "ConfusionMatrix: class ", cls, " is outside [0, ", classes_, ")");
  const int64_t actual = targets_of(cls);
  return actual == 0 ? 0.0 : static_cast<double>(counts_[cls][cls]) / actual;
}

double ConfusionMatrix::f1(int64_t cls) const {
  const double p = precision(cls), r = recall(cls);
  return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
}

template <class Score>
double ConfusionMatrix::macro(Score score) const {
  double sum = 0;
  int64_t seen = 0;
  for (int64_t c = 0; c < classes_; ++c) {
    if (predicted_as(c) == 0 && targets_of(c) == 0) continue;  // a class absent from the data
    sum += score(c);
    ++seen;
  }
  return seen == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / seen;
}

double ConfusionMatrix::macro_precision() const {
  return macro([this](int64_t c) { return precision(c); });
}
double ConfusionMatrix::macro_recall() const {
  return macro([this](int64_t c) { return recall(c); });
}
double ConfusionMatrix::macro_f1() const {
  return macro([this](int64_t c) { return f1(c); });
}

}  // namespace strata::train
