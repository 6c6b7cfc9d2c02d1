// TensorLayer's text data sets from files a user already has (nothing is downloaded; a missing
// file is an error naming the path expected): text8 (load_matt_mahoney_text8_dataset),
// Nietzsche (load_nietzsche_dataset) and WMT'15 English-French (load_wmt_en_fr_dataset).
// The layouts are TensorLayer's under its `data` folder: mm_test8/, nietzsche/, wmt_en_fr/.
#pragma once
#include <string>
#include <vector>

namespace strata::data {

// mm_test8/text8.zip (mattmahoney.net/dc/text8.zip): the words of the archive's first entry,
// split on ASCII whitespace, as TensorLayer returns them.
std::vector<std::string> load_text8(const std::string& dir);

// nietzsche/nietzsche.txt, whole (TensorLayer returns the text; data/text_corpus.hpp's
// tokenize_words or the translate tokenizer split it).
std::string load_nietzsche(const std::string& dir);

// The WMT'15 en-fr files as TensorLayer leaves them: `train` and `dev` are path prefixes to
// which ".en" and ".fr" are added (giga-fren.release2.fixed and newstest2013). A training file
// present only gzipped (.en.gz / .fr.gz, as the tar holds it) is unpacked beside it, as
// TensorLayer does; the dev files must be extracted from dev-v2.tgz already.
struct WmtEnFr {
  std::string train, dev;
};
WmtEnFr load_wmt_en_fr(const std::string& dir);

}  // namespace strata::data
