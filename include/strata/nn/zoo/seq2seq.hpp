// TensorLayer's two sequence-to-sequence models as dynamic models: Seq2seq (stacked encoder and
// decoder RNNs, tl.models.Seq2seq) and Seq2seqLuongAttention, both RecurrentSeq2seq; each decodes
// greedily, by top-k sampling or by beam search.
//
// Sequence to sequence with Luong attention (Luong et al. 2015; TensorLayer's
// tl.models.Seq2seqLuongAttention) as a dynamic model: an encoder RNN over the source
// embeddings, a decoder RNN over the target embeddings starting from the encoder's final state,
// then per decoder step t, with encoder outputs h_s and decoder output h_t:
//   a_t = softmax_s(score(h_t, h_s)),  dot: h_t · h_s,  general: (h_t W) · h_s
//   c_t = sum_s a_t[s] h_s,            attention vector = tanh(W_c [c_t; h_t]),
//   logits = attention vector · W_out + b_out.
// One Embedding serves source and target (one vocabulary, as TensorLayer's).
//
//   nn::zoo::Seq2seqLuongAttention net(10, 16, 32);       // vocabulary, embedding, hidden
//   Tensor logits = net(src, dec_in);                     // training: teacher forcing
//   Tensor ids = net.infer(src, 5, start_token);          // greedy decoding
//   Tensor drawn = net.sample(src, 5, start_token, {.top_k = 3});
//   nn::zoo::BeamSearchResult best = net.beam_search(src, 5, start_token, {.beam_width = 4});
//   net(src, dec_in, src_lengths);                        // right-padded sources
#pragma once
#include <functional>
#include <optional>

#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/embedding.hpp"
#include "strata/nn/layers/recurrent.hpp"

namespace strata::nn::zoo {

enum class LuongScore { dot, general };

struct Seq2seqOptions {
  CellKind cell = CellKind::lstm;  // the encoder's and the decoder's (GRU or SimpleRNN work too)
  LuongScore score = LuongScore::general;  // Seq2seqLuongAttention's
  int64_t num_layers = 1;  // stacked RNN layers of the encoder and of the decoder (TensorLayer's n_layer)
};

// Top-k sampling: each step draws the next token from softmax(logits / temperature) restricted
// to the top_k most likely tokens (0: the whole vocabulary), from `generator` (the default one
// when null), as TensorLayer's Seq2seq(top_n=...) does.
struct SampleOptions {
  int64_t top_k = 0;
  double temperature = 1.0;
  Generator* generator = nullptr;
};

// Beam search keeps the beam_width most likely sequences (sums of log-probabilities) at every
// step. With an end_token (>= 0), a sequence that emits it is finished: its score stays, and its
// later positions hold end_token.
struct BeamSearchOptions {
  int64_t beam_width = 4;
  int64_t end_token = -1;
};

// On the host (CPU), where the search keeps its bookkeeping.
struct BeamSearchResult {
  Tensor ids;     // int64 [B, beam_width, seq_length], each source's sequences best first
  Tensor scores;  // float32 [B, beam_width]: their log-probabilities (-inf for rows beyond the
                  // number of distinct sequences, when beam_width exceeds it)
};

// What both forms share: one Embedding for source and target (one vocabulary, as TensorLayer's),
// an encoder and a decoder nn::Recurrent of options.num_layers layers each (the decoder's layer
// k starts from the encoder's layer k final state), teacher forcing and the decodings. A form
// adds what turns the decoder's outputs into logits. Sub-layers <name>_embedding,
// <name>_encoder, <name>_decoder come first in weight order, adopted at construction.
class RecurrentSeq2seq : public Module {
 public:
  using Module::operator();
  // Teacher forcing: src ids [B, S], decoder input ids [B, T] (the targets shifted right behind
  // a start token) -> logits [B, T, V]. With src_lengths [B] (integers, right padding), the
  // encoder stops at each source's end (its final state is taken there). As a layer call:
  // {src, decoder_input} or {src, decoder_input, src_lengths}.
  Tensor operator()(const Tensor& src, const Tensor& decoder_input, const Tensor& src_lengths = Tensor()) {
    return src_lengths.defined() ? (*this)({src, decoder_input, src_lengths}) : (*this)({src, decoder_input});
  }
  // Greedy decoding: from start_token, feeds each step's most likely token to the next, for
  // seq_length steps -> int64 ids [B, seq_length]. sample() and beam_search() decode as their
  // options say. None records a gradient.
  Tensor infer(const Tensor& src, int64_t seq_length, int64_t start_token, const Tensor& src_lengths = Tensor());
  Tensor sample(const Tensor& src, int64_t seq_length, int64_t start_token, SampleOptions options = {},
                const Tensor& src_lengths = Tensor());
  BeamSearchResult beam_search(const Tensor& src, int64_t seq_length, int64_t start_token,
                               BeamSearchOptions options = {}, const Tensor& src_lengths = Tensor());

  int64_t vocabulary_size() const { return vocabulary_size_; }

 protected:
  RecurrentSeq2seq(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size, const Seq2seqOptions& options,
                   std::string name);
  // The source read by the encoder: the decoder's start state and what the logits read of the
  // encoding (per source: first axis B; undefined tensors allowed).
  struct Encoding {
    std::vector<Tensor> state, context;
  };
  virtual Encoding encode(const Tensor& src, const Tensor& src_lengths);
  // Decoder outputs [N, T, H] -> logits [N, T, V]. step: -1 in teacher forcing, else the
  // decoding step (T = 1); beam: the rows are beams.
  virtual Tensor logits(const Tensor& decoded, const std::vector<Tensor>& context, int64_t step, bool beam) = 0;

  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward(const Tensor& x) override;  // throws: takes {src, decoder_input}
  Tensor forward_many(const std::vector<Tensor>& xs) override;

  int64_t vocabulary_size_;
  Embedding embedding_;
  Recurrent encoder_, decoder_;

 private:
  // A decoding's start: the checks (errors start with `where`), then the source encoded.
  Encoding start_decoding(const std::string& where, const Tensor& src, int64_t seq_length, int64_t start_token,
                          const Tensor& src_lengths);
  // The decoding loops' step: tokens [N, 1] -> logits [N, 1, V], the state replaced by the next;
  // steps numbered from 0.
  using DecodingSteps =
      std::function<Tensor(const Tensor& tokens, std::vector<Tensor>& state, const std::vector<Tensor>& context)>;
  DecodingSteps decoding_steps(bool beam);
  Tensor decode_sampled(const char* what, const Tensor& src, int64_t seq_length, int64_t start_token,
                        const SampleOptions& options, const Tensor& src_lengths);
};

// TensorLayer's tl.models.Seq2seq: the shared parts, then a Dense from the decoder's outputs to
// the vocabulary (<name>_output: W [H, V], b [V]). No attention.
class Seq2seq : public RecurrentSeq2seq {
 public:
  Seq2seq(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size, Seq2seqOptions options = {},
          std::string name = "seq2seq");

 protected:
  Tensor logits(const Tensor& decoded, const std::vector<Tensor>& context, int64_t step, bool beam) override;

 private:
  Dense output_;
};

// Seq2seq with Luong attention. Sub-layers after the shared ones, in weight order:
// <name>_score (W [H, H], general only); <name>_attention (W_c: W [2H, H], no bias);
// <name>_output (W [H, V], b [V]). With src_lengths, attention also gives padded steps
// weight 0, so padding changes nothing.
class Seq2seqLuongAttention : public RecurrentSeq2seq {
 public:
  Seq2seqLuongAttention(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size,
                        Seq2seqOptions options = {}, std::string name = "seq2seq");

  // The attention weights of the last forward, infer or sample call: [B, T, S], each row summing
  // to 1 (undefined after beam_search).
  Tensor attention_weights() const;

 protected:
  // Context: the encoder's outputs [B, S, H] and the additive mask [B, 1, S] (-inf at padding).
  Encoding encode(const Tensor& src, const Tensor& src_lengths) override;
  Tensor logits(const Tensor& decoded, const std::vector<Tensor>& context, int64_t step, bool beam) override;

 private:
  std::optional<Dense> score_;  // W of the general score
  Dense attention_, output_;
  std::vector<Tensor> attention_steps_;  // the weights of each step of the last call
};

}  // namespace strata::nn::zoo
