#include "parallel_map.hpp"

#include <omp.h>

#include <exception>
#include <mutex>

namespace strata::data::detail {

void parallel_map(std::vector<Example>& examples, const MapFn& fn, int threads) {
  const int64_t n = static_cast<int64_t>(examples.size());
  if (threads <= 1 || n <= 1) {
    for (Example& ex : examples) ex = fn(std::move(ex));
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  // OpenMP is Strata's one thread pool; exceptions must not leave the parallel region.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    try {
      examples[i] = fn(std::move(examples[i]));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace strata::data::detail
