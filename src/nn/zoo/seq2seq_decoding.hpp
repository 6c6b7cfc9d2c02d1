// Internal: the decoding loops both Seq2seq forms share (greedy or top-k sampling, beam search),
// written against one decoder step so that each model supplies only its step.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "strata/nn/zoo/seq2seq.hpp"

namespace strata::nn::zoo::detail {

// One decoder step: the previous tokens int64 [N, 1] and the decoder state (every tensor's first
// axis N) -> logits [N, 1, V], the state replaced by the next one. `context` holds what the step
// reads but never changes (the encoder's outputs and mask; undefined tensors allowed), first axis N.
using DecoderStep =
    std::function<Tensor(const Tensor& tokens, std::vector<Tensor>& state, const std::vector<Tensor>& context)>;

// Errors start with `where`: the model and the call ("s2s (module): beam_search").
// Throws unless src is [B, S] ids, seq_length > 0 and start_token is in [0, vocabulary).
void check_decoding(const std::string& where, const Tensor& src, int64_t seq_length, int64_t start_token,
                    int64_t vocabulary);

// top_k 1 is greedy (argmax, no draw). -> int64 [B, seq_length].
Tensor sample_decode(const std::string& where, const DecoderStep& step, std::vector<Tensor> state,
                     const std::vector<Tensor>& context, int64_t seq_length, int64_t start_token, int64_t vocabulary,
                     const SampleOptions& options);

// state and context are per source ([B, ...]); each is repeated for the beams.
BeamSearchResult beam_decode(const std::string& where, const DecoderStep& step, std::vector<Tensor> state,
                             std::vector<Tensor> context, int64_t seq_length, int64_t start_token, int64_t vocabulary,
                             const BeamSearchOptions& options);

}  // namespace strata::nn::zoo::detail
