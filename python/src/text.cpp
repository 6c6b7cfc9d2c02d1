// strata.data's text corpora (data/text_corpus.hpp, data/vocabulary.hpp, data/sword_text.hpp): words
// from files and running text, the verses of a SWORD Bible module, vocabularies, Penn Treebank and
// line corpora as word ids, PTB's batches.
// strata.tl.files.load_ptb_dataset and strata.tl.iterate.ptb_iterator are built on these.
#include "bindings.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/iterate.hpp"
#include "strata/data/sword_text.hpp"
#include "strata/data/text_corpus.hpp"
#include "strata/data/vocabulary.hpp"

namespace strata::python {
namespace {

// (train, valid, test, vocabulary): the ids as int64 tensors, copied once rather than as lists.
py::tuple corpus_tuple(data::PtbCorpus corpus) {
  return py::make_tuple(from_vector(corpus.train), from_vector(corpus.valid), from_vector(corpus.test),
                        std::move(corpus.vocabulary));
}

}  // namespace

void bind_text(py::module_& m) {
  py::class_<data::Vocabulary>(m, "Vocabulary", "Words <-> ids, most frequent first, ties alphabetically "
                                                "(TensorLayer's build_vocab); unknown words map to unknown_id.")
      .def_static("build", [](const std::vector<std::string>& words, int64_t min_count, int64_t max_size,
                              const std::string& unknown) {
        return data::Vocabulary::build(words, {.min_count = min_count, .max_size = max_size, .unknown = unknown});
      }, py::arg("words"), py::arg("min_count") = 1, py::arg("max_size") = 0, py::arg("unknown") = "<unk>",
         "From a corpus's words: rarer than min_count, or past max_size ids (0: no limit), become the unknown word.")
      .def_static("load", [](const std::string& path, const std::string& unknown) {
        py::gil_scoped_release release;
        return data::Vocabulary::load(path, unknown);
      }, py::arg("path"), py::arg("unknown") = "<unk>", "\"word count\" lines in id order (what save writes).")
      .def("save", [](const data::Vocabulary& v, const std::string& path) {
        py::gil_scoped_release release;
        v.save(path);
      }, py::arg("path"))
      .def("__len__", &data::Vocabulary::size)
      .def("__contains__", &data::Vocabulary::contains, py::arg("word"))
      .def_property_readonly("unknown_id", &data::Vocabulary::unknown_id)
      .def("id", &data::Vocabulary::id, py::arg("word"), "The word's id; unknown_id for a word not in it.")
      .def("word", &data::Vocabulary::word, py::arg("id"))
      .def("count", &data::Vocabulary::count, py::arg("id"), "Occurrences in the corpus it was built from.")
      .def("words_to_word_ids", &data::Vocabulary::words_to_word_ids, py::arg("words"))
      .def("word_ids_to_words", &data::Vocabulary::word_ids_to_words, py::arg("ids"));

  m.def("read_words", [](const std::string& path, const std::string& eos) {
    py::gil_scoped_release release;
    return data::read_words(path, eos);
  }, py::arg("path"), py::arg("eos") = "<eos>",
     "The file's whitespace-separated words, eos (unless empty) after every line (TensorLayer's nlp.read_words).");
  m.def(
      "read_sword_ztext",
      [](const std::string& dir) {
        py::gil_scoped_release release;
        return data::read_sword_ztext(dir);
      },
      py::arg("dir") = data::kWorldEnglishBible,
      "The verses of a SWORD zText module (default: Debian's sword-text-web, the World English Bible), "
      "Old Testament first, markup removed: a public-domain English corpus without a download.");
  m.def("tokenize_words", &data::tokenize_words, py::arg("text"),
        "Running text to lower-case words; punctuation separates them, apostrophes inside a word stay.");
  m.def("load_ptb", [](const std::string& dir) {
    data::PtbCorpus corpus;
    {
      py::gil_scoped_release release;
      corpus = data::load_ptb(dir);
    }
    return corpus_tuple(std::move(corpus));
  }, py::arg("dir"),
     "dir/ptb.{train,valid,test}.txt as (train, valid, test) int64 word ids and the training words' Vocabulary.");
  m.def("split_corpus", [](const std::vector<std::string>& lines, double valid, double test, int64_t min_count,
                           int64_t max_size, const std::string& unknown, const std::string& eos) {
    data::PtbCorpus corpus;
    {
      py::gil_scoped_release release;
      corpus = data::split_corpus(lines, {.valid = valid, .test = test,
                                          .vocabulary = {.min_count = min_count, .max_size = max_size,
                                                         .unknown = unknown},
                                          .eos = eos});
    }
    return corpus_tuple(std::move(corpus));
  }, py::arg("lines"), py::arg("valid") = 0.05, py::arg("test") = 0.05, py::arg("min_count") = 1,
     py::arg("max_size") = 0, py::arg("unknown") = "<unk>", py::arg("eos") = "<eos>",
     "Lines of running text split PTB-style (the first train, then valid, then test fractions): as load_ptb.");
  m.def("ptb_iterator", [](const std::vector<int64_t>& ids, int64_t batch_size, int64_t num_steps) {
    py::list out;
    for (const data::InputTargetBatch& b : data::ptb_iterator(ids, batch_size, num_steps))
      out.append(py::make_tuple(b.inputs, b.targets));
    return out;
  }, py::arg("raw_data"), py::arg("batch_size"), py::arg("num_steps"),
     "Language-model batches (inputs [batch_size, num_steps], targets shifted by one), TensorLayer's ptb_iterator.");
}

}  // namespace strata::python
