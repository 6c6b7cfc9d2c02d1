// The NumPy pickle reader and writer: round trips, and the refusals that keep a hostile
// pickle from running code or allocating: opcodes, globals, lengths, memo, stack.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "fixtures/python_fixtures.hpp"
#include "strata/core/error.hpp"
#include "strata/io/pickle.hpp"

using namespace strata;
using namespace std::string_literals;
using namespace strata::io;
using strata::testing::expect_error;

namespace {

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "pattern not in the pickle";
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(PickleTest, RoundTripsEveryDtypeAndShape) {
  std::vector<Tensor> arrays;
  for (const auto& [name, t] : strata::testing::plain_arrays()) arrays.push_back(t);
  arrays.push_back(arange(0, 70000, 1, kInt32));  // lengths past one byte and two
  arrays.push_back(zeros({1, 1, 1, 2, 1}));       // a rank the writer spells with MARK ... TUPLE
  const std::vector<Tensor> back = unpickle_arrays(pickle_arrays(arrays), "p");
  ASSERT_EQ(back.size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) strata::testing::expect_same(back[i], arrays[i], std::to_string(i));
}

TEST(PickleTest, RefusesOpcodesOutsideNumpysSubset) {
  // INST, OBJ, NEWOBJ, EXT1, PERSID, BINPERSID, EMPTY_DICT, SETITEM, NEXT_BUFFER
  for (char op : {'i', 'o', '\x81', '\x82', 'P', 'Q', '}', 's', '\x97'}) {
    const std::string p = std::string("\x80\x03", 2) + op + ".";
    expect_error([&] { unpickle_arrays(p, "evil.npz"); }, {"evil.npz", "pickle opcode", "at offset 2", "not allowed"});
  }
}

TEST(PickleTest, RefusesGlobalsOutsideTheAllowList) {
  expect_error([] { unpickle_arrays("\x80\x03" "cos\nsystem\n(X\x02\x00\x00\x00lstR."s, "evil.npz"); },
               {"evil.npz", "global 'os.system'", "not allowed"});
  expect_error([] { unpickle_arrays("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93.", "evil.npz"); },
               {"global 'builtins.eval'", "not allowed"});
  expect_error([] { unpickle_arrays("\x80\x03" "cnumpy\nload\n.", "evil.npz"); }, {"global 'numpy.load'"});
  // Allowed globals are interpreted, not called: _codecs.encode only to latin1.
  expect_error([] { unpickle_arrays("\x80\x02" "c_codecs\nencode\nX\x01\x00\x00\x00" "aX\x05\x00\x00\x00" "utf-8\x86R."s, "p"); },
               {"encoding 'utf-8' is not allowed"});
}

TEST(PickleTest, RefusesLengthsPastTheInputBeforeAllocating) {
  expect_error([] { unpickle_arrays("\x80\x03" "B\xff\xff\xff\x7f" "abc"s, "big.npz"); },
               {"big.npz", "declares 2147483647 bytes", "only 3 remain"});
  expect_error([] { unpickle_arrays("\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\xff"s, "big.npz"); },
               {"declares 18446744073709551615 bytes"});
}

TEST(PickleTest, RefusesMalformedStreams) {
  expect_error([] { unpickle_arrays("\x80\x03h\x05.", "p"); }, {"memo entry 5", "before writing it"});
  expect_error([] { unpickle_arrays("\x80\x03.", "p"); }, {"stops with 0 values"});
  expect_error([] { unpickle_arrays("\x80\x03K\x01", "p"); }, {"truncated"});
  expect_error([] { unpickle_arrays("\x80\x03" "a.", "p"); }, {"stack underflow"});
  expect_error([] { unpickle_arrays("\x80\x03K\x01)R.", "p"); }, {"REDUCE callable is a int"});
  expect_error([] { unpickle_arrays("\x80\x03](K\x01" "e.", "p"); }, {"element 0 is a int", "expected a numeric ndarray"});
  expect_error([] { unpickle_arrays("\x80\x03" "cnumpy.core.multiarray\n_reconstruct\ncnumpy\ndtype\nK\x00\x85" "C\x01" "b\x87R."s, "p"); },
               {"other than numpy.ndarray"});
}

TEST(PickleTest, RefusesElementsThatDoNotMatchTheirShapeOrDtype) {
  const std::string ok = pickle_arrays({from_vector(std::vector<float>{1, 2, 3})});
  EXPECT_NO_THROW(unpickle_arrays(ok, "p"));
  expect_error([&] { unpickle_arrays(replace_once(ok, "K\x03\x85", "K\x04\x85"), "w.npz"); },
               {"w.npz: element 0", "[4]", "needs 16 data bytes", "has 12"});
  expect_error([&] { unpickle_arrays(replace_once(ok, std::string("X\x01\x00\x00\x00<", 6), std::string("X\x01\x00\x00\x00>", 6)), "p"); },
               {"element 0", "big-endian"});
  expect_error([&] { unpickle_arrays(replace_once(ok, "f4", "c8"), "p"); },
               {"unsupported .npy dtype '<c8'"});
}

TEST(PickleTest, EveryTruncationOrFlippedByteIsAnErrorOrAValidLoad) {
  const std::string ok = pickle_arrays(std::vector<Tensor>{from_vector(std::vector<float>{1, 2}), ones({2, 2}, kInt64)});
  for (size_t n = 0; n < ok.size(); ++n) EXPECT_THROW(unpickle_arrays(ok.substr(0, n), "p"), Error) << n;
  for (size_t i = 0; i < ok.size(); ++i) {
    std::string bad = ok;
    bad[i] = static_cast<char>(bad[i] ^ 0x21);
    try {
      unpickle_arrays(bad, "p");
    } catch (const Error&) {
    }
  }
}

}  // namespace
