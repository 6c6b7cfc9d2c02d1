#include "strata/nn/zoo/seq2seq.hpp"

#include "strata/nn/layers/attention.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn::zoo {

Seq2seqLuongAttention::Seq2seqLuongAttention(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size,
                                             Seq2seqOptions options, std::string name)
    : RecurrentSeq2seq(vocabulary_size, embedding_size, hidden_size, options, std::move(name)),
      attention_(hidden_size, "tanh", this->name() + "_attention", 2 * hidden_size, /*use_bias=*/false),
      output_(vocabulary_size, {}, this->name() + "_output", hidden_size) {
  if (options.score == LuongScore::general)
    score_.emplace(hidden_size, Activation(), this->name() + "_score", hidden_size, /*use_bias=*/false);
  // Adopted up front (after the shared sub-layers), so the weights are known in a fixed order.
  if (score_) adopt(&*score_);
  adopt(&attention_);
  adopt(&output_);
}

RecurrentSeq2seq::Encoding Seq2seqLuongAttention::encode(const Tensor& src, const Tensor& src_lengths) {
  RNNResult encoded = encoder_.run(embedding_(src), {}, src_lengths);
  // log of the 0/1 validity mask: 0 keeps a step, -inf removes it.
  Tensor mask;
  if (src_lengths.defined()) mask = unsqueeze(log(sequence_mask(src_lengths, src.size(1))), 1);
  return {std::move(encoded.state), {encoded.output, mask}};
}

Tensor Seq2seqLuongAttention::logits(const Tensor& decoded, const std::vector<Tensor>& context, int64_t step,
                                     bool beam) {
  // Luong's scores are not scaled: scale 1 turns the transformer's attention into theirs.
  Tensor query = score_ ? (*score_)(decoded) : decoded, weights;
  Tensor attended = scaled_dot_product_attention(query, context[0], context[0], context[1], false, 0, &weights, 1.0);
  if (step <= 0) attention_steps_.clear();
  if (!beam) attention_steps_.push_back(weights);
  return output_(attention_(concat({attended, decoded}, -1)));
}

Tensor Seq2seqLuongAttention::attention_weights() const {
  if (attention_steps_.size() <= 1) return attention_steps_.empty() ? Tensor() : attention_steps_[0];
  return concat(attention_steps_, 1);
}

}  // namespace strata::nn::zoo
