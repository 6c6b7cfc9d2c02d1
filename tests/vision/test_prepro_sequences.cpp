// process_sequences against TensorLayer 2.2.5 (fixtures/tl_prepro_sequences.npz from
// make_tl_prepro_fixtures.py): end ids, padding values, shortening on and off.
#include <gtest/gtest.h>

#include <string>

#include "strata/vision/prepro.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

// Flat values with their lengths back to ragged lists.
std::vector<std::vector<int64_t>> prepro_sequences_ragged(const std::string& values, const std::string& lengths) {
  const auto& f = testing::tl_prepro_fixture("sequences");
  const std::vector<int64_t> v = f.at(values).to_vector<int64_t>(), n = f.at(lengths).to_vector<int64_t>();
  std::vector<std::vector<int64_t>> out;
  size_t at = 0;
  for (int64_t len : n) {
    out.emplace_back(v.begin() + int64_t(at), v.begin() + int64_t(at) + len);
    at += size_t(len);
  }
  return out;
}

TEST(TlPreproSequences, ProcessSequencesMatchesTensorLayer) {
  const auto input = prepro_sequences_ragged("input", "input_lengths");
  const std::vector<int64_t> cases = testing::tl_prepro_fixture("sequences").at("cases").to_vector<int64_t>();
  for (size_t k = 0; k < cases.size() / 4; ++k) {
    const int64_t* c = &cases[4 * k];
    const auto got = vision::process_sequences(input, c[0], c[1], c[2] != 0, c[3] != 0);
    EXPECT_EQ(got, prepro_sequences_ragged("output_" + std::to_string(k), "output_lengths_" + std::to_string(k)))
        << "case " << k;
  }
}

}  // namespace
}  // namespace strata
