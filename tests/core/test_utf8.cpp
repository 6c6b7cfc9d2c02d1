// valid_utf8: valid text passes unchanged, and each byte that does not start a valid sequence
// becomes U+FFFD, the rest kept.
#include <gtest/gtest.h>

#include "strata/core/utf8.hpp"

namespace strata {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(ValidUtf8, ValidTextIsUnchanged) {
  for (const std::string text : {"", "mlp", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"})
    EXPECT_EQ(valid_utf8(text), text);
}

TEST(ValidUtf8, EachInvalidByteBecomesTheReplacementCharacter) {
  EXPECT_EQ(valid_utf8("a\x80" "b"), "a" + kReplacement + "b");                 // a lone continuation byte
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kReplacement + kReplacement);                 // an overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);  // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kReplacement + kReplacement + kReplacement + kReplacement);  // > U+10FFFF
  EXPECT_EQ(valid_utf8("x\xE2\x82"), "x" + kReplacement + kReplacement);          // truncated at the end
  EXPECT_EQ(valid_utf8("\xFF" "ok"), kReplacement + "ok");
}

}  // namespace
}  // namespace strata
