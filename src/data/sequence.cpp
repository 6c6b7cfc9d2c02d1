#include "strata/data/sequence.hpp"

#include <algorithm>

#include "strata/core/factory.hpp"

namespace strata::data {

namespace {

int64_t longest(const Sequences& sequences) {
  size_t n = 0;
  for (const auto& s : sequences) n = std::max(n, s.size());
  return static_cast<int64_t>(n);
}

// Length of s once its trailing pad ids are gone.
size_t unpadded_length(const std::vector<int64_t>& s, int64_t pad) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == pad) --n;
  return n;
}

}  // namespace

Tensor pad_sequences(const Sequences& sequences, const PadOptions& options) {
  STRATA_CHECK(options.maxlen >= -1, "pad_sequences: maxlen must be >= 0, or -1 for the longest, got ", options.maxlen);
  const int64_t len = options.maxlen < 0 ? longest(sequences) : options.maxlen;
  const auto rows = static_cast<int64_t>(sequences.size());
  std::vector<int64_t> out(rows * len, options.value);
  for (int64_t r = 0; r < rows; ++r) {
    const auto& s = sequences[r];
    const int64_t keep = std::min<int64_t>(len, static_cast<int64_t>(s.size()));
    auto from = options.truncating == PadSide::pre ? s.end() - keep : s.begin();
    int64_t* to = out.data() + r * len + (options.padding == PadSide::pre ? len - keep : 0);
    std::copy(from, from + keep, to);
  }
  return from_vector(out, {rows, len});
}

Sequences to_sequences(const Tensor& padded) {
  STRATA_CHECK(padded.defined() && padded.dim() == 2 && is_index_dtype(padded.dtype()),
               "to_sequences: expected an int64 or int32 [N, L] tensor, got ",
               padded.defined() ? padded.shape().str() + " " + dtype_name(padded.dtype()) : std::string("undefined"));
  const std::vector<int64_t> v = padded.to(kInt64).to_vector<int64_t>();
  const int64_t len = padded.size(1);
  Sequences out(padded.size(0));
  for (size_t r = 0; r < out.size(); ++r) out[r].assign(v.begin() + r * len, v.begin() + (r + 1) * len);
  return out;
}

Sequences remove_pad_sequences(const Sequences& sequences, int64_t pad_id) {
  Sequences out = sequences;
  for (auto& s : out) s.resize(unpadded_length(s, pad_id));
  return out;
}

Sequences sequences_add_start_id(const Sequences& sequences, int64_t start_id, bool remove_last) {
  Sequences out;
  out.reserve(sequences.size());
  for (const auto& s : sequences) {
    std::vector<int64_t> t{start_id};
    t.insert(t.end(), s.begin(), remove_last && !s.empty() ? s.end() - 1 : s.end());
    out.push_back(std::move(t));
  }
  return out;
}

Sequences sequences_add_end_id(const Sequences& sequences, int64_t end_id) {
  Sequences out = sequences;
  for (auto& s : out) s.push_back(end_id);
  return out;
}

Sequences sequences_add_end_id_after_pad(const Sequences& sequences, int64_t end_id, int64_t pad_id) {
  Sequences out = sequences;
  for (auto& s : out) {
    auto first_pad = std::find(s.begin(), s.end(), pad_id);
    if (first_pad != s.end()) *first_pad = end_id;
  }
  return out;
}

Tensor sequences_get_mask(const Sequences& sequences, int64_t pad_val) {
  const int64_t len = longest(sequences);
  const auto rows = static_cast<int64_t>(sequences.size());
  std::vector<int64_t> mask(rows * len, 0);
  for (int64_t r = 0; r < rows; ++r)
    std::fill_n(mask.begin() + r * len, unpadded_length(sequences[r], pad_val), 1);
  return from_vector(mask, {rows, len});
}

}  // namespace strata::data
