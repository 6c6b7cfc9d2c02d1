#include "strata/data/skip_gram.hpp"

#include <deque>

namespace strata::data {

SkipGramBatch generate_skip_gram_batch(const std::vector<int64_t>& data, int64_t batch_size, int64_t num_skips,
                                       int64_t skip_window, int64_t data_index, Generator& gen) {
  STRATA_CHECK(num_skips >= 1 && skip_window >= 1, "generate_skip_gram_batch: num_skips and skip_window must be >= 1, got ",
               num_skips, " and ", skip_window);
  STRATA_CHECK(batch_size % num_skips == 0, "generate_skip_gram_batch: batch_size ", batch_size,
               " must be a multiple of num_skips ", num_skips);
  STRATA_CHECK(num_skips <= 2 * skip_window, "generate_skip_gram_batch: num_skips ", num_skips,
               " must be <= 2 * skip_window = ", 2 * skip_window);
  const int64_t span = 2 * skip_window + 1, n = static_cast<int64_t>(data.size());
  STRATA_CHECK(n >= span, "generate_skip_gram_batch: ", n, " words are fewer than one window of ", span);
  STRATA_CHECK(data_index >= 0 && data_index < n, "generate_skip_gram_batch: data_index ", data_index,
               " out of range for ", n, " words");
  std::deque<int64_t> window;
  auto push = [&] {
    if (static_cast<int64_t>(window.size()) == span) window.pop_front();
    window.push_back(data[data_index]);
    data_index = (data_index + 1) % n;
  };
  for (int64_t k = 0; k < span; ++k) push();

  std::vector<int64_t> inputs(batch_size), labels(batch_size);
  for (int64_t i = 0; i < batch_size / num_skips; ++i) {
    std::vector<bool> used(span, false);
    used[skip_window] = true;
    for (int64_t j = 0; j < num_skips; ++j) {
      int64_t target = skip_window;
      while (used[target]) target = static_cast<int64_t>(gen.engine()() % static_cast<uint64_t>(span));
      used[target] = true;
      inputs[i * num_skips + j] = window[skip_window];
      labels[i * num_skips + j] = window[target];
    }
    push();
  }
  return {from_vector(inputs), from_vector(labels, {batch_size, 1}), data_index};
}

}  // namespace strata::data
