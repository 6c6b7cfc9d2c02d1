// Greedy, top-k sampling and beam-search decoding over one decoder step. Beam search keeps its
// bookkeeping (scores, parents, sequences) on the host; the decoder runs on N = B * beam_width
// rows, row b * beam_width + k being beam k of source b, its states reordered after each step.
#include "seq2seq_decoding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/sampling.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"

namespace strata::nn::zoo::detail {
namespace {

void check_decoding_option(bool ok, const std::string& where, const std::string& what) {
  if (!ok) throw Error(where + ": " + what);
}

// One candidate continuation of a beam.
struct BeamCandidate {
  double score;
  int64_t beam, token;
};

// Best first; ties by beam, then token, so that results do not depend on the sort.
bool better_candidate(const BeamCandidate& a, const BeamCandidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.beam != b.beam ? a.beam < b.beam : a.token < b.token;
}

int64_t decoding_batch(const std::string& where, const std::vector<Tensor>& state) {
  check_decoding_option(!state.empty() && state.front().defined() && state.front().dim() >= 1, where,
                        "the decoder has no state to start from");
  return state.front().size(0);
}

}  // namespace

void check_decoding(const std::string& where, const Tensor& src, int64_t seq_length, int64_t start_token,
                    int64_t vocabulary) {
  check_decoding_option(src.defined() && src.dim() == 2, where,
                        "expected src ids [B, S], got " + (src.defined() ? src.shape().str() : std::string("nothing")));
  check_decoding_option(seq_length > 0, where, "seq_length must be positive, got " + std::to_string(seq_length));
  check_decoding_option(start_token >= 0 && start_token < vocabulary, where,
                        "start_token " + std::to_string(start_token) + " is not in the vocabulary [0, " +
                            std::to_string(vocabulary) + ")");
}

Tensor sample_decode(const std::string& where, const DecoderStep& step, std::vector<Tensor> state,
                     const std::vector<Tensor>& context, int64_t seq_length, int64_t start_token, int64_t vocabulary,
                     const SampleOptions& options) {
  check_decoding_option(options.top_k >= 0 && options.top_k <= vocabulary, where,
                        "top_k must be in [0, " + std::to_string(vocabulary) + "] (0: the whole vocabulary), got " +
                            std::to_string(options.top_k));
  check_decoding_option(options.temperature > 0 && std::isfinite(options.temperature), where,
                        "temperature must be a positive number, got " + std::to_string(options.temperature));
  NoGradGuard no_grad;
  const int64_t batch = decoding_batch(where, state);
  Tensor token = full({batch, 1}, static_cast<double>(start_token), {kInt64, state.front().device()});
  std::vector<Tensor> ids;
  for (int64_t t = 0; t < seq_length; ++t) {
    const Tensor logits = reshape(step(token, state, context), {batch, vocabulary});
    Tensor next;
    if (options.top_k == 1)
      next = argmax(logits, -1);
    else if (options.top_k == 0)
      next = sample_categorical(logits, options.temperature, options.generator);
    else
      next = sample_top_k(logits, options.top_k, options.temperature, options.generator);
    token = unsqueeze(next, 1);
    ids.push_back(token);
  }
  return concat(ids, 1);
}

BeamSearchResult beam_decode(const std::string& where, const DecoderStep& step, std::vector<Tensor> state,
                             std::vector<Tensor> context, int64_t seq_length, int64_t start_token, int64_t vocabulary,
                             const BeamSearchOptions& options) {
  const int64_t K = options.beam_width, end = options.end_token;
  check_decoding_option(K >= 1 && K <= 4096, where, "beam_width must be in [1, 4096], got " + std::to_string(K));
  check_decoding_option(end >= -1 && end < vocabulary, where,
                        "end_token " + std::to_string(end) + " is not in the vocabulary [0, " +
                            std::to_string(vocabulary) + ") (-1: none)");
  NoGradGuard no_grad;
  const int64_t batch = decoding_batch(where, state), rows = batch * K;
  const Device device = state.front().device();  // of the tensors fed to the decoder
  constexpr double kDead = -std::numeric_limits<double>::infinity();
  {  // every source's tensors repeated for its beams
    std::vector<int64_t> source(rows);
    for (int64_t n = 0; n < rows; ++n) source[n] = n / K;
    const Tensor index = from_vector(source, Shape{rows}, device);
    for (std::vector<Tensor>* list : {&state, &context})
      for (Tensor& t : *list)
        if (t.defined()) t = index_select(t, 0, index);
  }
  // Only beam 0 of each source is alive at the start (the others would repeat it).
  std::vector<double> score(rows, kDead);
  for (int64_t b = 0; b < batch; ++b) score[b * K] = 0;
  std::vector<char> finished(rows, 0);
  std::vector<std::vector<int64_t>> sequence(rows);
  Tensor tokens = full({rows, 1}, static_cast<double>(start_token), {kInt64, device});
  std::vector<BeamCandidate> candidates;
  for (int64_t t = 0; t < seq_length; ++t) {
    bool all_finished = true;
    for (int64_t n = 0; n < rows; ++n) all_finished = all_finished && (finished[n] || score[n] == kDead);
    if (all_finished) break;
    const Tensor logits = reshape(step(tokens, state, context), {rows, vocabulary});
    const std::vector<double> logp = cast(log_softmax(logits, -1), kFloat64).contiguous().to_vector<double>();
    std::vector<int64_t> parent(rows), next(rows);
    std::vector<double> next_score(rows);
    for (int64_t b = 0; b < batch; ++b) {
      candidates.clear();
      for (int64_t k = 0; k < K; ++k) {
        const int64_t n = b * K + k;
        if (score[n] == kDead) continue;
        if (finished[n]) {
          candidates.push_back({score[n], k, end});
          continue;
        }
        for (int64_t v = 0; v < vocabulary; ++v) candidates.push_back({score[n] + logp[n * vocabulary + v], k, v});
      }
      const auto keep =
          candidates.begin() + std::min<std::ptrdiff_t>(K, static_cast<std::ptrdiff_t>(candidates.size()));
      std::partial_sort(candidates.begin(), keep, candidates.end(), better_candidate);
      for (int64_t j = 0; j < K; ++j) {
        const int64_t n = b * K + j;
        const bool alive = j < static_cast<int64_t>(candidates.size());
        parent[n] = b * K + (alive ? candidates[j].beam : 0);
        next[n] = alive ? candidates[j].token : start_token;
        next_score[n] = alive ? candidates[j].score : kDead;
      }
    }
    std::vector<std::vector<int64_t>> next_sequence(rows);
    std::vector<char> next_finished(rows);
    for (int64_t n = 0; n < rows; ++n) {
      next_sequence[n] = sequence[parent[n]];
      next_sequence[n].push_back(next[n]);
      next_finished[n] = next_score[n] != kDead && (finished[parent[n]] || (end >= 0 && next[n] == end));
    }
    const Tensor index = from_vector(parent, Shape{rows}, device);
    for (Tensor& s : state) s = index_select(s, 0, index);
    sequence = std::move(next_sequence);
    finished = std::move(next_finished);
    score = std::move(next_score);
    tokens = from_vector(next, Shape{rows, 1}, device);
  }
  std::vector<int64_t> ids;
  ids.reserve(rows * seq_length);
  std::vector<float> scores(rows);
  for (int64_t n = 0; n < rows; ++n) {
    sequence[n].resize(seq_length, end >= 0 ? end : start_token);  // stopped early: all finished
    ids.insert(ids.end(), sequence[n].begin(), sequence[n].end());
    scores[n] = static_cast<float>(score[n]);
  }
  return {from_vector(ids, Shape{batch, K, seq_length}), from_vector(scores, Shape{batch, K})};
}

}  // namespace strata::nn::zoo::detail
