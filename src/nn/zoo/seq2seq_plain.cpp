// TensorLayer's plain stacked Seq2seq (nn/zoo/seq2seq.hpp): a Dense maps the decoder's outputs
// to the vocabulary.
#include "strata/nn/zoo/seq2seq.hpp"

namespace strata::nn::zoo {

Seq2seq::Seq2seq(int64_t vocabulary_size, int64_t embedding_size, int64_t hidden_size, Seq2seqOptions options,
                 std::string name)
    : RecurrentSeq2seq(vocabulary_size, embedding_size, hidden_size, options, std::move(name)),
      output_(vocabulary_size, {}, this->name() + "_output", hidden_size) {
  adopt(&output_);
}

Tensor Seq2seq::logits(const Tensor& decoded, const std::vector<Tensor>&, int64_t, bool) { return output_(decoded); }

}  // namespace strata::nn::zoo
