#include "dist/gradient_buckets.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "strata/core/error.hpp"

namespace strata::dist::detail {

GradientBuckets::GradientBuckets(std::vector<std::pair<std::string, Tensor>> weights, int64_t bucket_bytes,
                                 int64_t first_bucket_bytes, int world_size)
    : weights_(std::move(weights)), bucket_of_(weights_.size()), ready_(weights_.size(), 0), world_size_(world_size) {
  // Backward reaches the last layers first, so buckets are filled from the last weight back.
  // A gradient of kAloneBytes or more is a bucket of its own, reduced in place: copying it into
  // a shared bucket and back costs more than one more MPI call (the MLP's 2.5 MB matrices: +24%
  // added to a 2-rank step in shared buckets, +15% alone; docs/distributed.md).
  int64_t bytes_in_bucket = 0;
  bool last_alone = false;
  for (size_t k = weights_.size(); k-- > 0;) {
    const Tensor& w = weights_[k].second;
    const MPI_Datatype type = detail::mpi_type(w, "dist::DataParallel");
    const int64_t limit = buckets_.size() == 1 ? std::min(first_bucket_bytes, bucket_bytes) : bucket_bytes;
    const bool alone = static_cast<int64_t>(w.nbytes()) >= kAloneBytes;
    const bool fits = !buckets_.empty() && !alone && !last_alone && buckets_.back().type == type &&
                      bytes_in_bucket + static_cast<int64_t>(w.nbytes()) <= limit;
    last_alone = alone;
    if (!fits) {
      buckets_.push_back(Bucket{{}, {}, Tensor(), Tensor(), type, 0});
      bytes_in_bucket = 0;
    }
    Bucket& b = buckets_.back();
    b.offsets.push_back(b.offsets.empty() ? 0 : b.offsets.back() + weights_[b.weights.back()].second.numel());
    b.weights.push_back(k);
    bucket_of_[k] = buckets_.size() - 1;
    bytes_in_bucket += static_cast<int64_t>(w.nbytes());
  }
  for (Bucket& b : buckets_) {
    const Tensor& last = weights_[b.weights.back()].second;
    const int64_t numel = b.offsets.back() + last.numel();
    STRATA_CHECK(numel <= std::numeric_limits<int>::max(), "dist::DataParallel: ", weights_[b.weights[0]].first,
                 "'s bucket has ", numel, " elements, more than one MPI call can send; use smaller buckets");
    if (b.weights.size() > 1) b.flat = Tensor::empty(Shape{numel}, last.dtype());
    b.missing = b.weights.size();
    stats_.bytes += numel * static_cast<int64_t>(itemsize(last.dtype()));
  }
  stats_.buckets = static_cast<int64_t>(buckets_.size());
  requests_.assign(buckets_.size(), MPI_REQUEST_NULL);
}

GradientBuckets::~GradientBuckets() {
  // Buffers must outlive their requests: finish what was started (a pass cut off by an error).
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

void GradientBuckets::gradient_ready(size_t index) {
  if (paused_ > 0) return;
  const auto& [name, weight] = weights_[index];
  STRATA_CHECK(!ready_[index], "dist::DataParallel: weight ", name,
               " got a second gradient before every weight got one; every trainable weight must take part in "
               "each backward pass");
  const Tensor grad = weight.grad();
  STRATA_CHECK(grad.defined() && grad.is_contiguous() && grad.dtype() == weight.dtype(),
               "dist::DataParallel: the gradient of ", name, " is not a contiguous tensor of the weight's dtype");
  ready_[index] = 1;
  ++ready_count_;
  Bucket& b = buckets_[bucket_of_[index]];
  // The mean is taken before the sum (x/N summed, not the sum over N): the gradient was just
  // written and is still in cache, where a pass after the reduction would read it from memory
  // again. For N a power of two the results are the same bits.
  const double inverse_size = 1.0 / world_size_;
  if (b.flat.defined()) {
    const size_t slot = std::find(b.weights.begin(), b.weights.end(), index) - b.weights.begin();
    scale(grad.raw_data(), flat_slot(b, slot), grad.numel(), b.type, inverse_size);
    b.reduced = b.flat;
  } else {
    // A gradient owns its buffer (AccumulateGrad copies a shared one): reduce it in place.
    scale(grad.raw_data(), grad.raw_data(), grad.numel(), b.type, inverse_size);
    b.reduced = grad;
  }
  --b.missing;
  if (ready_count_ < weights_.size()) {
    start_ready_buckets();
    return;
  }
  // The pass's last gradient: what is left of the reduction is time backward waits.
  const auto t0 = std::chrono::steady_clock::now();
  start_ready_buckets();
  finish_pass();
  stats_.wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void GradientBuckets::start_ready_buckets() {
  while (started_ < buckets_.size() && buckets_[started_].missing == 0) {
    Bucket& b = buckets_[started_];
    const int count = static_cast<int>(b.reduced.numel());
    if (ready_count_ == weights_.size() && started_ + 1 == buckets_.size()) {
      // Backward is over: nothing is left to overlap with the last bucket, and the blocking
      // all-reduce has MPI's tuned algorithms (a blocking collective may follow non-blocking
      // ones that are still running: every rank posts them in the same order).
      MPI_Allreduce(MPI_IN_PLACE, b.reduced.raw_data(), count, b.type, MPI_SUM, MPI_COMM_WORLD);
    } else {
      MPI_Iallreduce(MPI_IN_PLACE, b.reduced.raw_data(), count, b.type, MPI_SUM, MPI_COMM_WORLD, &requests_[started_]);
    }
    ++started_;
  }
  // Open MPI advances non-blocking collectives only inside MPI calls: each hook gives them a turn
  // (a test costs microseconds). The alternative, a communication thread running each bucket's
  // blocking all-reduce (Debian's Open MPI 4.1 gives MPI_THREAD_MULTIPLE), was slower on 2
  // shared cores: its waiting spins on the cores that backward needs (docs/distributed.md).
  int done = 0;
  MPI_Testall(static_cast<int>(started_), requests_.data(), &done, MPI_STATUSES_IGNORE);
}

void GradientBuckets::finish_pass() {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  ++stats_.passes;
  for (Bucket& b : buckets_) {
    if (b.flat.defined())
      for (size_t slot = 0; slot < b.weights.size(); ++slot) {  // the means back into the gradients
        const Tensor grad = weights_[b.weights[slot]].second.grad();
        std::memcpy(grad.raw_data(), flat_slot(b, slot), grad.nbytes());
      }
    b.reduced = Tensor();
    b.missing = b.weights.size();
  }
  std::fill(ready_.begin(), ready_.end(), 0);
  ready_count_ = 0;
  started_ = 0;
}

void GradientBuckets::pause() {
  check_no_pass_pending();
  ++paused_;
}

void GradientBuckets::check_no_pass_pending() const {
  if (ready_count_ == 0) return;
  std::string missing;
  for (size_t k = 0; k < weights_.size(); ++k)
    if (!ready_[k]) missing += (missing.empty() ? "" : ", ") + weights_[k].first;
  throw Error("dist::DataParallel: the last backward pass gave no gradient to " + missing +
              "; every trainable weight must take part in each backward pass (or be made non-trainable)");
}

}  // namespace strata::dist::detail
