#include "strata/nn/layers/embedding.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include <time.h>

#include "strata/core/error.hpp"
#include "strata/dispatch/skip_gram.hpp"

namespace strata::nn {
namespace {

struct Tables {
  float* in;
  float* out;
  int64_t vocab, dim;
};

Tables tables_of(Tensor& embeddings, Tensor& output, const char* what) {
  STRATA_CHECK(embeddings.dtype() == kFloat32 && output.dtype() == kFloat32, what, ": tables must be float32, got ",
               dtype_name(embeddings.dtype()), " and ", dtype_name(output.dtype()));
  STRATA_CHECK(embeddings.dim() == 2 && embeddings.shape() == output.shape(), what,
               ": embeddings and output must be the same [V, E] shape, got ", embeddings.shape().str(), " and ",
               output.shape().str());
  STRATA_CHECK(embeddings.is_contiguous() && output.is_contiguous() && embeddings.device().type == DeviceType::CPU &&
                   output.device().type == DeviceType::CPU,
               what, ": tables must be contiguous CPU tensors");
  float *in = embeddings.data<float>(), *out = output.data<float>();
  const int64_t size = embeddings.numel();
  // The kernel reads and writes the two through restrict pointers: they must not overlap.
  STRATA_CHECK(in + size <= out || out + size <= in, what,
               ": embeddings and output must be two tables, not views of one");
  return {in, out, embeddings.shape()[0], embeddings.shape()[1]};
}

// word2vec.c's generator: a 64-bit linear congruential step, far cheaper than mt19937 and
// good enough for windows, subsampling and negatives.
struct Lcg {
  uint64_t state;
  uint64_t next() { return state = state * 25214903917ULL + 11; }
  float uniform() { return static_cast<float>((next() >> 16) & 0xFFFF) / 65536.0f; }
};

// Draws ids with probability counts^0.75 / Σ (word2vec's noise distribution) from a table in
// which each id fills its share of the slots (word2vec.c's unigram table): one lookup a draw.
class NoiseSampler {
 public:
  explicit NoiseSampler(const std::vector<int64_t>& counts) {
    double total = 0;
    for (int64_t c : counts) total += std::pow(static_cast<double>(c), 0.75);
    STRATA_CHECK(total > 0, "train_skip_gram: counts are all zero");
    // 16 slots a word on average, a power of two so that a draw is a mask, not a division; small
    // enough (512 KB for 6,000 words) to stay in cache, where word2vec.c's 10^8 slots miss it.
    size_t size = size_t{1} << 16;
    while (size < 16 * counts.size() && size < (size_t{1} << 26)) size <<= 1;
    table_.resize(size);
    double reached = 0;
    size_t slot = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      reached += std::pow(static_cast<double>(counts[i]), 0.75) / total;
      for (; slot < table_.size() && static_cast<double>(slot) < reached * static_cast<double>(table_.size()); ++slot)
        table_[slot] = static_cast<int32_t>(i);
    }
    for (; slot < table_.size(); ++slot) table_[slot] = table_[slot - 1];  // rounding at the end
  }
  int64_t draw(Lcg& rng) const { return table_[(rng.next() >> 16) & (table_.size() - 1)]; }

 private:
  std::vector<int32_t> table_;
};

}  // namespace

double skip_gram_step(Tensor& embeddings, Tensor& output, int64_t centre, int64_t context,
                      const std::vector<int64_t>& negatives, double alpha) {
  const Tables t = tables_of(embeddings, output, "skip_gram_step");
  auto in_range = [&](int64_t id) { return id >= 0 && id < t.vocab; };
  STRATA_CHECK(in_range(centre) && in_range(context), "skip_gram_step: ids ", centre, " and ", context,
               " must lie in [0, ", t.vocab, ")");
  for (int64_t n : negatives)
    STRATA_CHECK(in_range(n), "skip_gram_step: negative id ", n, " must lie in [0, ", t.vocab, ")");
  std::vector<int64_t> targets{context};
  targets.insert(targets.end(), negatives.begin(), negatives.end());
  std::vector<float> scale(targets.size()), grad(t.dim);
  return dispatch::skip_gram_update.on(embeddings.device(), t.in + centre * t.dim, t.out, t.dim, targets.data(),
                                       static_cast<int64_t>(targets.size()), static_cast<float>(alpha), scale.data(),
                                       grad.data(), true);
}

SkipGramStats train_skip_gram(Tensor& embeddings, Tensor& output, const std::vector<int64_t>& corpus,
                              const std::vector<int64_t>& counts, const SkipGramOptions& o) {
  const Tables t = tables_of(embeddings, output, "train_skip_gram");
  STRATA_CHECK(static_cast<int64_t>(counts.size()) == t.vocab, "train_skip_gram: ", counts.size(),
               " counts for a vocabulary of ", t.vocab);
  STRATA_CHECK(o.window >= 1 && o.negative >= 0 && o.epochs >= 1 && o.threads >= 1 && o.alpha > 0 && o.min_alpha >= 0 &&
                   o.sample >= 0,
               "train_skip_gram: need window >= 1, negative >= 0, epochs >= 1, threads >= 1, alpha > 0");
  for (int64_t id : corpus)
    STRATA_CHECK(id >= 0 && id < t.vocab, "train_skip_gram: corpus id ", id, " outside [0, ", t.vocab, ")");
  for (int64_t c : counts) STRATA_CHECK(c >= 0, "train_skip_gram: a negative count, ", c);
  const NoiseSampler noise(counts);
  // word2vec's subsampling: keep a word of frequency f with probability (sqrt(f / s) + 1) s / f.
  double total = 0;
  for (int64_t c : counts) total += static_cast<double>(c);
  std::vector<float> keep(counts.size(), 1.0f);
  if (o.sample > 0)
    for (size_t i = 0; i < counts.size(); ++i) {
      const double f = static_cast<double>(counts[i]), s = o.sample * total;
      if (f > 0) keep[i] = static_cast<float>(std::min(1.0, (std::sqrt(f / s) + 1) * s / f));
    }

  const auto n = static_cast<int64_t>(corpus.size());
  const double all_words = static_cast<double>(n) * static_cast<double>(o.epochs);
  std::atomic<int64_t> done{0}, trained{0};
  std::atomic<double> loss_sum{0}, pairs{0};
  const Device device = embeddings.device();
  auto worker = [&](int64_t thread) {
    Lcg rng{o.seed * 1000003 + static_cast<uint64_t>(thread)};
    const int64_t begin = n * thread / o.threads, end = n * (thread + 1) / o.threads;
    std::vector<int64_t> targets(o.negative + 1);  // the positive, then the negatives
    std::vector<float> scale(o.negative + 1), grad(t.dim);
    std::vector<int64_t> sentence;
    for (int64_t epoch = 0; epoch < o.epochs; ++epoch) {
      double epoch_loss = 0, epoch_pairs = 0;
      int64_t local_done = 0, local_trained = 0;
      auto alpha_at = [&](int64_t words) {
        const double progress = static_cast<double>(words) / all_words;
        return static_cast<float>(std::max(o.min_alpha, o.alpha - (o.alpha - o.min_alpha) * progress));
      };
      float alpha = alpha_at(done.load());
      for (int64_t s = begin; s < end;) {
        // A sentence: up to the boundary word or 10,000 words (word2vec.c's MAX_SENTENCE_LENGTH),
        // subsampled as it is read.
        sentence.clear();
        int64_t e = s;
        for (; e < end && e - s < 10000; ++e) {
          if (corpus[e] == o.boundary) {
            ++e;
            break;
          }
          if (keep[corpus[e]] >= 1 || rng.uniform() < keep[corpus[e]]) sentence.push_back(corpus[e]);
        }
        local_done += e - s;
        s = e;
        local_trained += static_cast<int64_t>(sentence.size());
        const auto len = static_cast<int64_t>(sentence.size());
        for (int64_t i = 0; i < len; ++i) {
          const int64_t reach = o.window - static_cast<int64_t>((rng.next() >> 16) % o.window);
          for (int64_t j = std::max<int64_t>(0, i - reach); j <= std::min(len - 1, i + reach); ++j) {
            if (j == i) continue;
            // word2vec.c and gensim train the context word's input vector on the centre word.
            targets[0] = sentence[i];
            int64_t count = 1;
            for (int64_t k = 0; k < o.negative; ++k) {
              const int64_t neg = noise.draw(rng);
              if (neg != sentence[i]) targets[count++] = neg;
            }
            const bool sampled = i % 8 == 0;  // the loss of every 8th centre word
            epoch_loss +=
                dispatch::skip_gram_update.on(device, t.in + sentence[j] * t.dim, t.out, t.dim, targets.data(), count,
                                              alpha, scale.data(), grad.data(), sampled);
            if (sampled) epoch_pairs += 1;
          }
        }
        if (local_done >= 10000) {  // progress and the learning rate, shared by all threads
          const int64_t now = done.fetch_add(local_done) + local_done;
          trained += local_trained;
          local_done = local_trained = 0;
          alpha = alpha_at(now);
        }
      }
      done += local_done;
      trained += local_trained;
      if (epoch == o.epochs - 1) {
        loss_sum.fetch_add(epoch_loss);
        pairs.fetch_add(epoch_pairs);
      }
    }
  };
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const double cpu_start = cpu_now();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int64_t k = 1; k < o.threads; ++k) threads.emplace_back(worker, k);
  worker(0);
  for (std::thread& th : threads) th.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {done.load(), trained.load(), seconds, cpu_now() - cpu_start,
          pairs.load() > 0 ? loss_sum.load() / pairs.load() : 0.0};
}

}  // namespace strata::nn
