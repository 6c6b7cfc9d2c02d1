// What both Seq2seq forms share (nn/zoo/seq2seq.hpp): the embedding, the encoder and decoder
// RNNs, teacher forcing, and greedy, sampled and beam-search decoding over one decoder step.
#include "strata/autograd/grad_mode.hpp"
#include "strata/nn/zoo/seq2seq.hpp"

#include "seq2seq_decoding.hpp"

namespace strata::nn::zoo {

RecurrentSeq2seq::RecurrentSeq2seq(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size,
                                   const Seq2seqOptions& options, std::string name)
    : Module(std::move(name)),
      vocabulary_size_(vocabulary_size),
      embedding_(vocabulary_size, embedding_size, random_uniform(-0.1, 0.1), this->name() + "_embedding"),
      encoder_(options.cell, hidden_size, {.num_layers = options.num_layers}, this->name() + "_encoder"),
      decoder_(options.cell, hidden_size, {.num_layers = options.num_layers}, this->name() + "_decoder") {
  // Adopted up front, so the weights are known (in a fixed order) even when decoding comes first.
  adopt(&embedding_);
  adopt(&encoder_);
  adopt(&decoder_);
}

void RecurrentSeq2seq::build_many(const std::vector<Shape>& s) {
  expect((s.size() == 2 || s.size() == 3) && s[0].size() == 2 && s[1].size() == 2 && s[0][0] == s[1][0],
         "takes {src [B, S], decoder_input [B, T]} ids and optionally src_lengths [B]");
}

Tensor RecurrentSeq2seq::forward(const Tensor&) {
  expect(false, "takes {src, decoder_input} (teacher forcing); decode a source alone with infer()");
  return {};
}

Tensor RecurrentSeq2seq::forward_many(const std::vector<Tensor>& xs) {
  expect((xs.size() == 2 || xs.size() == 3) && xs[0].dim() == 2 && xs[1].dim() == 2 && xs[0].size(0) == xs[1].size(0),
         "expected src [B, S] and decoder_input [B, T] ids (and optionally src_lengths [B]), got " +
             std::to_string(xs.size()) + " inputs");
  const Encoding encoded = encode(xs[0], xs.size() == 3 ? xs[2] : Tensor());
  return logits(decoder_.run(embedding_(xs[1]), encoded.state).output, encoded.context, -1, false);
}

RecurrentSeq2seq::Encoding RecurrentSeq2seq::encode(const Tensor& src, const Tensor& src_lengths) {
  return {encoder_.run(embedding_(src), {}, src_lengths).state, {}};
}

RecurrentSeq2seq::DecodingSteps RecurrentSeq2seq::decoding_steps(bool beam) {
  return [this, beam, t = int64_t{0}](const Tensor& tokens, std::vector<Tensor>& state,
                                      const std::vector<Tensor>& context) mutable {
    RNNResult decoded = decoder_.run(embedding_(tokens), state);
    state = std::move(decoded.state);
    return logits(decoded.output, context, t++, beam);
  };
}

RecurrentSeq2seq::Encoding RecurrentSeq2seq::start_decoding(const std::string& where, const Tensor& src,
                                                            int64_t seq_length, int64_t start_token,
                                                            const Tensor& src_lengths) {
  detail::check_decoding(where, src, seq_length, start_token, vocabulary_size_);
  NoGradGuard no_grad;  // the decoding loops hold their own
  return encode(src, src_lengths);
}

Tensor RecurrentSeq2seq::decode_sampled(const char* what, const Tensor& src, int64_t seq_length, int64_t start_token,
                                        const SampleOptions& options, const Tensor& src_lengths) {
  const std::string where = name() + " (" + kind() + "): " + what;
  Encoding encoded = start_decoding(where, src, seq_length, start_token, src_lengths);
  return detail::sample_decode(where, decoding_steps(false), std::move(encoded.state), encoded.context, seq_length,
                               start_token, vocabulary_size_, options);
}

Tensor RecurrentSeq2seq::infer(const Tensor& src, int64_t seq_length, int64_t start_token, const Tensor& src_lengths) {
  return decode_sampled("infer", src, seq_length, start_token, {.top_k = 1}, src_lengths);
}

Tensor RecurrentSeq2seq::sample(const Tensor& src, int64_t seq_length, int64_t start_token, SampleOptions options,
                                const Tensor& src_lengths) {
  return decode_sampled("sample", src, seq_length, start_token, options, src_lengths);
}

BeamSearchResult RecurrentSeq2seq::beam_search(const Tensor& src, int64_t seq_length, int64_t start_token,
                                               BeamSearchOptions options, const Tensor& src_lengths) {
  const std::string where = name() + " (" + kind() + "): beam_search";
  Encoding encoded = start_decoding(where, src, seq_length, start_token, src_lengths);
  return detail::beam_decode(where, decoding_steps(true), std::move(encoded.state), std::move(encoded.context),
                             seq_length, start_token, vocabulary_size_, options);
}

}  // namespace strata::nn::zoo
