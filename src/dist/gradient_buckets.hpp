// The gradient averaging behind DataParallel (internal): weights grouped into buckets of about
// `bucket_bytes` (the first of `first_bucket_bytes`; a gradient of 1 MiB or more alone), last weight first; each bucket's non-blocking MPI all-reduce starts when its
// last gradient is ready and the previous buckets have started (every rank must start them in
// the same order), and the last gradient of a pass waits for all of them. Internal, but a class
// of its own so that bench/bench_dist.cpp can time a reduction pass without a backward pass.
#pragma once
#include <string>
#include <vector>

#include "dist/mpi_types.hpp"
#include "strata/dist/data_parallel.hpp"

namespace strata::dist::detail {

class GradientBuckets {
 public:
  static constexpr int64_t kAloneBytes = int64_t{1} << 20;  // a gradient this large gets a bucket of its own
  GradientBuckets(std::vector<std::pair<std::string, Tensor>> weights, int64_t bucket_bytes,
                  int64_t first_bucket_bytes, int world_size);
  ~GradientBuckets();

  // Weight `index`'s gradient is final for this backward pass (its post-accumulate hook).
  void gradient_ready(size_t index);
  // Throws if a pass is half done: some weights got no gradient in the last backward.
  void check_no_pass_pending() const;
  // While paused (DataParallel::NoSync), gradient_ready does nothing: gradients stay local.
  void pause();
  void resume() { --paused_; }
  const DataParallelStats& stats() const { return stats_; }

 private:
  struct Bucket {
    std::vector<size_t> weights;   // indices into weights_
    std::vector<int64_t> offsets;  // element offset of each in `flat`
    // Several weights: their gradients, divided by the world size, side by side in `flat`,
    // summed there and copied back. One weight: no `flat`; its gradient itself (no copies).
    Tensor flat;
    Tensor reduced;                // what this pass reduces (flat or the gradient), alive while MPI uses it
    MPI_Datatype type;
    size_t missing = 0;            // gradients not yet ready in this pass
  };
  void start_ready_buckets();
  void finish_pass();
  // Where weight `slot` of a bucket with a `flat` buffer lies in it.
  static char* flat_slot(const Bucket& b, size_t slot) {
    return static_cast<char*>(b.flat.raw_data()) + b.offsets[slot] * static_cast<int64_t>(itemsize(b.flat.dtype()));
  }

  std::vector<std::pair<std::string, Tensor>> weights_;
  std::vector<size_t> bucket_of_;
  std::vector<char> ready_;
  std::vector<Bucket> buckets_;
  std::vector<MPI_Request> requests_;  // one per bucket, MPI_REQUEST_NULL when done
  size_t started_ = 0, ready_count_ = 0;
  int paused_ = 0;
  int world_size_;
  DataParallelStats stats_;
};

}  // namespace strata::dist::detail
