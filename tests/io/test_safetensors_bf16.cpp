// safetensors' BF16 dtype (docs/mixed_precision.md): a file written by hand to the spec reads as
// a bfloat16 tensor with those exact bits, writing gives the same bytes back, and a BF16 entry
// whose size disagrees with its shape is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "strata/io/safetensors.hpp"
#include "strata/strata.hpp"
#include "support/expect_error.hpp"

namespace strata::io {
namespace {

// The 8-byte little-endian length, the header padded with spaces to a multiple of 8, the data.
std::string stbf_file(std::string header, const std::string& data) {
  while (header.size() % 8 != 0) header += ' ';
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(SafetensorsBf16Test, ReadsAndWritesTheSpecsBytes) {
  // 1.0, -2.5, a NaN: bf16 patterns 0x3f80, 0xc020, 0x7fc1, little-endian.
  const std::string data("\x80\x3f\x20\xc0\xc1\x7f", 6);
  const std::string file = stbf_file(R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]}})", data);
  const Safetensors st = from_safetensors(file);
  ASSERT_EQ(st.tensors.size(), 1u);
  const Tensor& w = st.tensors[0].second;
  EXPECT_EQ(w.dtype(), kBFloat16);
  EXPECT_EQ(std::memcmp(w.raw_data(), data.data(), 6), 0);
  const auto v = w.to_vector<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.5f);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(to_safetensors({{"w", w}}), file);
  EXPECT_STREQ(safetensors_dtype(kBFloat16), "BF16");
  testing::expect_error(
      [&] { from_safetensors(stbf_file(R"({"w":{"dtype":"BF16","shape":[4],"data_offsets":[0,6]}})", data)); },
      {"needs 8 bytes"});
}

}  // namespace
}  // namespace strata::io
