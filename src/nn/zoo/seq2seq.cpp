#include "strata/nn/zoo/seq2seq.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/attention.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn::zoo {

Seq2seqLuongAttention::Seq2seqLuongAttention(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size,
                                             Seq2seqOptions options, std::string name)
    : Module(std::move(name)), vocabulary_size_(vocabulary_size),
      embedding_(vocabulary_size, embedding_size, random_uniform(-0.1, 0.1), this->name() + "_embedding"),
      encoder_(options.cell, hidden_size, {}, this->name() + "_encoder"),
      decoder_(options.cell, hidden_size, {}, this->name() + "_decoder"),
      attention_(hidden_size, "tanh", this->name() + "_attention", 2 * hidden_size, /*use_bias=*/false),
      output_(vocabulary_size, {}, this->name() + "_output", hidden_size) {
  if (options.score == LuongScore::general)
    score_.emplace(hidden_size, Activation(), this->name() + "_score", hidden_size, /*use_bias=*/false);
  // Adopted up front, so the weights are known (in a fixed order) even when infer() comes first.
  adopt(&embedding_);
  adopt(&encoder_);
  adopt(&decoder_);
  if (score_) adopt(&*score_);
  adopt(&attention_);
  adopt(&output_);
}

void Seq2seqLuongAttention::build_many(const std::vector<Shape>& s) {
  expect((s.size() == 2 || s.size() == 3) && s[0].size() == 2 && s[1].size() == 2 && s[0][0] == s[1][0],
         "takes {src [B, S], decoder_input [B, T]} ids and optionally src_lengths [B]");
}

Tensor Seq2seqLuongAttention::forward(const Tensor&) {
  expect(false, "takes {src, decoder_input} (teacher forcing); decode a source alone with infer()");
  return {};
}

Tensor Seq2seqLuongAttention::forward_many(const std::vector<Tensor>& xs) {
  expect((xs.size() == 2 || xs.size() == 3) && xs[0].dim() == 2 && xs[1].dim() == 2 && xs[0].size(0) == xs[1].size(0),
         "expected src [B, S] and decoder_input [B, T] ids (and optionally src_lengths [B]), got " +
             std::to_string(xs.size()) + " inputs");
  Encoded encoded = encode(xs[0], xs.size() == 3 ? xs[2] : Tensor());
  Tensor decoded = decoder_.run(embedding_(xs[1]), encoded.rnn.state).output;
  return attend(decoded, encoded);
}

Seq2seqLuongAttention::Encoded Seq2seqLuongAttention::encode(const Tensor& src, const Tensor& src_lengths) {
  Encoded e{encoder_.run(embedding_(src), {}, src_lengths), Tensor()};
  // log of the 0/1 validity mask: 0 keeps a step, -inf removes it.
  if (src_lengths.defined()) e.mask = unsqueeze(log(sequence_mask(src_lengths, src.size(1))), 1);
  return e;
}

Tensor Seq2seqLuongAttention::attend(const Tensor& decoded, const Encoded& encoded) {
  // Luong's scores are not scaled: scale 1 turns the transformer's attention into theirs.
  Tensor query = score_ ? (*score_)(decoded) : decoded;
  const Tensor& h = encoded.rnn.output;
  Tensor context = scaled_dot_product_attention(query, h, h, encoded.mask, false, 0, &attention_weights_, 1.0);
  return output_(attention_(concat({context, decoded}, -1)));
}

Tensor Seq2seqLuongAttention::infer(const Tensor& src, int64_t seq_length, int64_t start_token,
                                    const Tensor& src_lengths) {
  expect(src.dim() == 2, "infer: expected src ids [B, S], got " + src.shape().str());
  expect(seq_length > 0, "infer: seq_length must be positive, got " + std::to_string(seq_length));
  expect(start_token >= 0 && start_token < vocabulary_size_,
         "infer: start_token " + std::to_string(start_token) + " is not in the vocabulary [0, " +
             std::to_string(vocabulary_size_) + ")");
  NoGradGuard no_grad;
  Encoded encoded = encode(src, src_lengths);
  std::vector<Tensor> state = encoded.rnn.state, ids, weights;
  Tensor token = full({src.size(0), 1}, static_cast<double>(start_token), kInt64);
  for (int64_t t = 0; t < seq_length; ++t) {
    RNNResult step = decoder_.run(embedding_(token), state);
    state = step.state;
    token = argmax(attend(step.output, encoded), -1);  // [B, 1]
    ids.push_back(token);
    weights.push_back(attention_weights_);
  }
  attention_weights_ = concat(weights, 1);
  return concat(ids, 1);
}

}  // namespace strata::nn::zoo
