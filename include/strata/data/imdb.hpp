// The IMDB movie-review sentiment set as TensorLayer's load_imdb_dataset reads it: imdb.pkl, a
// pickle of (reviews as lists of word indices, labels), shuffled with NumPy's legacy generator
// seeded `seed`, then TensorLayer's start / index_from / maxlen / nb_words / skip_top / oov rules,
// then split train / test. Nothing is downloaded.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::data {

// A pickle (protocols 0-5) of a tuple or list of two lists: lists of ints and ints. Only the
// opcodes such data uses are read; anything else (objects, globals, shared references) is
// refused, as are more than `max_values` integers in all. Errors name `source`.
struct PickledReviews {
  std::vector<std::vector<int64_t>> sequences;
  std::vector<int64_t> labels;
};
PickledReviews parse_reviews_pickle(std::string_view bytes, const std::string& source);

struct ImdbOptions {
  int64_t nb_words = 0;     // ids >= nb_words become oov_char (0: the largest id, which TensorLayer then also drops)
  int64_t skip_top = 0;     // ids < skip_top become oov_char
  int64_t maxlen = 0;       // keep sequences shorter than maxlen (after start_char); 0: all
  double test_split = 0.2;  // the last fraction is the test set
  uint32_t seed = 113;      // numpy.random.seed(seed); numpy.random.shuffle, as TensorLayer
  std::optional<int64_t> start_char = 1;  // put first
  std::optional<int64_t> oov_char = 2;    // replaces dropped ids; unset: dropped ids are left out (TensorLayer keeps
                                          // only those, a bug; Keras leaves them out)
  int64_t index_from = 3;                 // added to every id of the file
};

struct Imdb {
  std::vector<std::vector<int64_t>> x_train, x_test;
  std::vector<int64_t> y_train, y_test;
};

// <dir>/imdb.pkl (TensorLayer's data/imdb). A missing file is an error naming it.
Imdb load_imdb(const std::string& dir, const ImdbOptions& options = {});

// NumPy's legacy RandomState(seed).shuffle order of n <= 2^32 items: the permutation p with
// shuffled[i] = original[p[i]] (MT19937, bounded draws by masked rejection, as numpy does).
std::vector<int64_t> numpy_legacy_shuffle_order(int64_t n, uint32_t seed);

}  // namespace strata::data
