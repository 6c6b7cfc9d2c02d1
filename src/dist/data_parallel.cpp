#include "strata/dist/data_parallel.hpp"

#include "dist/gradient_buckets.hpp"
#include "strata/autograd/post_accumulate_hook.hpp"
#include "strata/core/error.hpp"
#include "strata/dist/collectives.hpp"
#include "strata/dist/world.hpp"

namespace strata::dist {

DataParallel::DataParallel(nn::Layer& model, DataParallelOptions options)
    : nn::Layer("data_parallel"), model_(model) {
  const World& w = init();
  for (double megabytes : {options.bucket_megabytes, options.first_bucket_megabytes})
    STRATA_CHECK(megabytes > 0 && megabytes <= 2048,
                 "dist::DataParallel: bucket sizes must be in (0, 2048] MB, got ", megabytes);
  STRATA_CHECK(!model.all_weights().empty(), "dist::DataParallel: ", model.name(),
               " has no weights yet. Layers create them at their first call: call the model once (e.g. on a batch) "
               "before wrapping it");
  // Every process starts from rank 0's weights (and its non-trainable state, such as running
  // statistics); broadcast also checks that the processes built the same shapes.
  for (Tensor w_tensor : model.all_weights()) broadcast(w_tensor, 0);
  std::vector<std::pair<std::string, Tensor>> trainable;
  for (auto& [name, tensor] : model.named_weights())
    if (tensor.requires_grad()) trainable.emplace_back(name, tensor);
  buckets_ = std::make_unique<detail::GradientBuckets>(
      trainable, static_cast<int64_t>(options.bucket_megabytes * 1024 * 1024),
      static_cast<int64_t>(options.first_bucket_megabytes * 1024 * 1024), w.size);
  for (size_t k = 0; k < trainable.size(); ++k)
    autograd::register_post_accumulate_grad_hook(trainable[k].second,
                                                 [b = buckets_.get(), k](const Tensor&) { b->gradient_ready(k); });
  adopt(&model);  // train()/eval() on the wrapper reach the model before its first call
}

DataParallel::~DataParallel() {
  for (Tensor w : model_.trainable_weights()) autograd::clear_post_accumulate_grad_hooks(w);
}

DataParallelStats DataParallel::stats() const { return buckets_->stats(); }

DataParallel::NoSync::NoSync(detail::GradientBuckets& buckets) : buckets_(buckets) { buckets_.pause(); }
DataParallel::NoSync::~NoSync() { buckets_.resume(); }

namespace {
struct NoSyncAccumulation : train::LocalAccumulation {
  explicit NoSyncAccumulation(detail::GradientBuckets& buckets) : guard(buckets) {}
  DataParallel::NoSync guard;
};
}  // namespace

std::unique_ptr<train::LocalAccumulation> DataParallel::accumulate_locally() {
  return std::make_unique<NoSyncAccumulation>(*buckets_);
}

int DataParallel::rank() const { return world().rank; }
int DataParallel::size() const { return world().size; }

void DataParallel::average(std::vector<double>& values) const {
  if (values.empty()) return;
  Tensor t = from_vector(values);
  all_reduce(t, ReduceOp::avg);
  values = t.to_vector<double>();
}

Tensor DataParallel::forward(const Tensor& x) {
  buckets_->check_no_pass_pending();
  return model_(x);
}

Tensor DataParallel::forward_many(const std::vector<Tensor>& xs) {
  buckets_->check_no_pass_pending();
  return model_(xs);
}

}  // namespace strata::dist
