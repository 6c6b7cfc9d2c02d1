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
//   net(src, dec_in, src_lengths);                        // right-padded sources
#pragma once
#include <optional>

#include "strata/nn/dense.hpp"
#include "strata/nn/embedding.hpp"
#include "strata/nn/recurrent.hpp"

namespace strata::nn::zoo {

enum class LuongScore { dot, general };

struct Seq2seqOptions {
  CellKind cell = CellKind::lstm;  // the encoder's and the decoder's (GRU or SimpleRNN work too)
  LuongScore score = LuongScore::general;
};

// Sub-layers, in weight order, named after the model so that weights save and load by name:
// <name>_embedding (embeddings [V, E]); <name>_encoder and <name>_decoder (one RNN layer of H
// units each: kernel, recurrent_kernel, bias as nn::Recurrent's); <name>_score (W [H, H],
// general only); <name>_attention (W_c: W [2H, H], no bias); <name>_output (W [H, V], b [V]).
class Seq2seqLuongAttention : public Module {
 public:
  Seq2seqLuongAttention(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size,
                        Seq2seqOptions options = {}, std::string name = "seq2seq");

  using Module::operator();
  // Teacher forcing: src ids [B, S], decoder input ids [B, T] (the targets shifted right behind
  // a start token) -> logits [B, T, V]. With src_lengths [B] (integers, right padding), the
  // encoder stops at each source's end (its final state is taken there) and attention gives
  // padded steps weight 0, so padding changes nothing. As a layer call: {src, decoder_input}
  // or {src, decoder_input, src_lengths}.
  Tensor operator()(const Tensor& src, const Tensor& decoder_input, const Tensor& src_lengths = Tensor()) {
    return src_lengths.defined() ? (*this)({src, decoder_input, src_lengths}) : (*this)({src, decoder_input});
  }
  // Greedy decoding: from start_token, feeds each step's most likely token to the next, for
  // seq_length steps -> int64 ids [B, seq_length]. No gradient is recorded.
  Tensor infer(const Tensor& src, int64_t seq_length, int64_t start_token, const Tensor& src_lengths = Tensor());
  // The attention weights of the last call (forward or infer): [B, T, S], each row summing to 1.
  const Tensor& attention_weights() const { return attention_weights_; }

  int64_t vocabulary_size() const { return vocabulary_size_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward(const Tensor& x) override;  // throws: takes {src, decoder_input}
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  struct Encoded {
    RNNResult rnn;  // outputs [B, S, H] and the final state
    Tensor mask;    // additive attention mask [B, 1, S] (-inf at padding), or undefined
  };
  Encoded encode(const Tensor& src, const Tensor& src_lengths);
  // Decoder outputs [B, T, H] attended over the encoder's -> logits [B, T, V].
  Tensor attend(const Tensor& decoded, const Encoded& encoded);

  int64_t vocabulary_size_;
  Embedding embedding_;
  Recurrent encoder_, decoder_;
  std::optional<Dense> score_;  // W of the general score
  Dense attention_, output_;
  Tensor attention_weights_;
};

}  // namespace strata::nn::zoo
