// Corpora that are not tokenised already: the SWORD zText reader (Debian's World English Bible)
// on modules written here, with and without damage, the word tokenizer and the PTB-style split.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "support/expect_error.hpp"
#include "strata/data/sword_text.hpp"
#include "strata/data/text_corpus.hpp"
#include "support/temp_dir.hpp"

using namespace strata::data;
using strata::testing::expect_error;

namespace {

void put32(std::string& out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
}

// A zText testament: each block is a list of verses, stored compressed; `damage` edits the
// three files' bytes before they are written.
class SwordTest : public strata::testing::TempDirTest {
 protected:
  struct Files {
    std::string bzs, bzv, bzz;
  };
  Files make(const std::vector<std::vector<std::string>>& blocks) {
    Files f;
    for (uint32_t b = 0; b < blocks.size(); ++b) {
      std::string plain;
      for (const std::string& verse : blocks[b]) {
        put32(f.bzv, b);
        put32(f.bzv, static_cast<uint32_t>(plain.size()));
        f.bzv += static_cast<char>(verse.size() & 0xFF);
        f.bzv += static_cast<char>(verse.size() >> 8);
        plain += verse;
      }
      uLongf size = compressBound(plain.size());
      std::string packed(size, '\0');
      compress(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(plain.data()),
               plain.size());
      put32(f.bzs, static_cast<uint32_t>(f.bzz.size()));
      put32(f.bzs, static_cast<uint32_t>(size));
      put32(f.bzs, static_cast<uint32_t>(plain.size()));
      f.bzz += packed.substr(0, size);
    }
    return f;
  }
  void write(const std::string& testament, const Files& f) {
    std::ofstream(path(testament + ".bzs"), std::ios::binary) << f.bzs;
    std::ofstream(path(testament + ".bzv"), std::ios::binary) << f.bzv;
    std::ofstream(path(testament + ".bzz"), std::ios::binary) << f.bzz;
  }
};

}  // namespace

TEST_F(SwordTest, ReadsVersesInOrderWithoutMarkup) {
  write("ot", make({{"<title>Genesis</title>", "<w lemma=\"x\">In</w> <w>the</w> beginning<note>fn</note>."},
                    {"Tom &amp; Jerry&apos;s", ""}}));
  write("nt", make({{"<div sID=\"a\"/>Amen<title type=\"x\">Head</title>"}}));
  const auto verses = read_sword_ztext(dir_.string());
  ASSERT_EQ(verses.size(), 3u);  // the heading and the empty verse give none
  EXPECT_EQ(tokenize_words(verses[0]), (std::vector<std::string>{"in", "the", "beginning"}));
  EXPECT_NE(verses[1].find("Tom & Jerry's"), std::string::npos);
  EXPECT_EQ(tokenize_words(verses[2]), (std::vector<std::string>{"amen"}));
}

TEST_F(SwordTest, DamagedModulesAreErrorsNamingTheFile) {
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"no zText module"});
  const Files good = make({{"one", "two"}});
  Files f = good;
  f.bzv[4] = 100;  // verse offset past its block
  write("ot", f);
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"ot.bzv", "outside its block"});
  f = good;
  f.bzs[0] = 50;  // block offset past the data
  write("ot", f);
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"ot.bzz", "block 0"});
  f = good;
  f.bzz[f.bzz.size() / 2] ^= 0x55;  // corrupt deflate data
  f.bzz[2] ^= 0x55;
  write("ot", f);
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"ot.bzz", "inflate"});
  f = good;
  f.bzs.pop_back();  // not whole entries
  write("ot", f);
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"ot.bzs", "whole entries"});
  f = good;
  f.bzs[8] = f.bzs[9] = f.bzs[10] = f.bzs[11] = '\xff';  // claims 4 GiB: refused before allocating
  write("ot", f);
  expect_error([&] { read_sword_ztext(dir_.string()); }, {"ot.bzz", "more than deflate can give"});
}

TEST(TextCorpus, TokenizerLowersAndSplitsOnPunctuation) {
  EXPECT_EQ(tokenize_words("God\xE2\x80\x99s word\xE2\x80\x94\xE2\x80\x9CLet there be light!\xE2\x80\x9D 'Tis 42."),
            (std::vector<std::string>{"god's", "word", "let", "there", "be", "light", "tis", "42"}));
  EXPECT_EQ(tokenize_words("don't  stop' \t\n caf\xC3\xA9"), (std::vector<std::string>{"don't", "stop", "caf\xC3\xA9"}));
  EXPECT_TRUE(tokenize_words("... -- !!").empty());
}

TEST(TextCorpus, SplitKeepsOrderAndBuildsVocabularyFromTraining) {
  std::vector<std::string> lines;
  for (int i = 0; i < 18; ++i) lines.push_back("the cat sat");
  lines.push_back("a dog ran");  // validation
  lines.push_back("the bird");   // test
  const PtbCorpus c = split_corpus(lines, {.valid = 0.05, .test = 0.05});
  EXPECT_EQ(c.train.size(), 18u * 4);
  EXPECT_EQ(c.vocabulary.size(), 5);  // the, cat, sat, <eos>, <unk>
  const int64_t unk = c.vocabulary.unknown_id();
  EXPECT_EQ(c.valid, (std::vector<int64_t>{unk, unk, unk, c.vocabulary.id("<eos>")}));
  EXPECT_EQ(c.test, (std::vector<int64_t>{c.vocabulary.id("the"), unk, c.vocabulary.id("<eos>")}));
  expect_error([&] { split_corpus(lines, {.valid = 0.5, .test = 0.5}); }, {"valid", "test"});
  expect_error([&] { split_corpus({}, {}); }, {"no training lines"});
}

TEST(TextCorpus, WorldEnglishBibleWhenInstalled) {
  if (!std::filesystem::exists(kWorldEnglishBible)) GTEST_SKIP() << "sword-text-web is not installed";
  const auto verses = read_sword_ztext(kWorldEnglishBible);
  EXPECT_GT(verses.size(), 30000u);
  // verses[0] is the module's preface; Genesis 1:1 follows.
  EXPECT_EQ(tokenize_words(verses[1]), (std::vector<std::string>{"in", "the", "beginning", "god", "created", "the",
                                                                  "heavens", "and", "the", "earth"}));
}
