// strata.data's TensorLayer data sets from local files and nlp tools (data/mat_file.hpp,
// svhn.hpp, mpii_pose.hpp, tl_text_datasets.hpp, tl_image_datasets.hpp, translate_tokenizer.hpp,
// bleu.hpp, word_analogy.hpp). strata.tl.files and strata.tl.nlp give them TensorLayer's names
// and return conventions.
#include "bindings.hpp"
#include "strata/data/bleu.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/data/imdb.hpp"
#include "strata/data/mat_file.hpp"
#include "strata/data/mpii_pose.hpp"
#include "strata/data/svhn.hpp"
#include "strata/data/tl_image_datasets.hpp"
#include "strata/data/tl_text_datasets.hpp"
#include "strata/data/translate_tokenizer.hpp"
#include "strata/data/word_analogy.hpp"
#include "strata/data/word_tokenize.hpp"

namespace strata::python {
namespace {

// A MAT value as Python: numeric -> Tensor, text -> str (list of rows for a char matrix),
// cell -> list (column-major), struct -> list of dicts (one per element), else None.
py::object mat_value(const data::MatValue& v) {
  using Kind = data::MatValue::Kind;
  switch (v.kind) {
    case Kind::numeric:
      return py::cast(v.array);
    case Kind::text:
      return v.rows.size() <= 1 ? py::cast(v.text()) : py::cast(v.rows);
    case Kind::cell: {
      py::list cells;
      for (const auto& c : v.cells) cells.append(mat_value(c));
      return std::move(cells);
    }
    case Kind::structure: {
      py::list elements;
      const size_t n = v.field_names.empty() ? 0 : v.fields.size() / v.field_names.size();
      for (size_t e = 0; e < n; ++e) {
        py::dict fields;
        for (size_t f = 0; f < v.field_names.size(); ++f)
          fields[py::str(v.field_names[f])] = mat_value(v.fields[e * v.field_names.size() + f]);
        elements.append(std::move(fields));
      }
      return std::move(elements);
    }
    default:
      return py::none();
  }
}

py::dict person_dict(const data::MpiiPerson& p) {
  py::dict joints, d;
  for (const auto& [id, xy] : p.joints)
    joints[py::int_(id)] = std::vector<double>{xy[0], xy[1]};  // TensorLayer: [x, y]
  d["filename"] = p.filename;
  d["train"] = int(p.train);
  d["head_rect"] = std::vector<double>(p.head_rect.begin(), p.head_rect.end());
  d["joint_pos"] = joints;
  if (p.visible) {
    py::dict vis;
    for (const auto& [id, v] : *p.visible) vis[py::str(std::to_string(id))] = v;
    d["is_visible"] = vis;
  } else {
    d["is_visible"] = py::none();
  }
  return d;
}

py::list people_lists(const std::vector<std::vector<data::MpiiPerson>>& people) {
  py::list out;
  for (const auto& image : people) {
    py::list list;
    for (const auto& p : image) list.append(person_dict(p));
    out.append(std::move(list));
  }
  return out;
}

}  // namespace

void bind_tl_data(py::module_& m) {
  m.def(
      "read_mat",
      [](const std::string& path, int max_depth) {
        data::MatFile file;
        {
          py::gil_scoped_release release;
          file = data::read_mat(path, {.max_depth = max_depth});
        }
        py::dict out;
        for (const auto& [name, value] : file.variables) out[py::str(name)] = mat_value(value);
        return out;
      },
      py::arg("path"), py::arg("max_depth") = 64,
      "A MATLAB level-5 .mat file: {name: value}; numeric arrays as Tensors (scipy's shapes), char as str, "
      "cells as lists, structs as lists of dicts.");
  m.def(
      "load_svhn_cropped",
      [](const std::string& dir, bool include_extra) {
        py::gil_scoped_release release;
        auto s = data::load_svhn_cropped(dir, include_extra);
        return std::make_tuple(s.train.images, s.train.labels, s.test.images, s.test.labels);
      },
      py::arg("dir"), py::arg("include_extra") = true, "(train images uint8 NHWC, labels, test images, labels).");
  m.def(
      "load_mpii_pose",
      [](const std::string& root, bool only_16) {
        data::MpiiPose p;
        {
          py::gil_scoped_release release;
          p = data::load_mpii_pose(root, only_16);
        }
        return py::make_tuple(p.train_images, people_lists(p.train_people), p.test_images, people_lists(p.test_people));
      },
      py::arg("root"), py::arg("only_16_joints") = false);
  m.def(
      "load_imdb",
      [](const std::string& dir, int64_t nb_words, int64_t skip_top, int64_t maxlen, double test_split, uint32_t seed,
         std::optional<int64_t> start_char, std::optional<int64_t> oov_char, int64_t index_from) {
        py::gil_scoped_release release;
        auto d = data::load_imdb(dir, {nb_words, skip_top, maxlen, test_split, seed, start_char, oov_char, index_from});
        return std::make_tuple(d.x_train, d.y_train, d.x_test, d.y_test);
      },
      py::arg("dir"), py::arg("nb_words") = 0, py::arg("skip_top") = 0, py::arg("maxlen") = 0,
      py::arg("test_split") = 0.2, py::arg("seed") = 113, py::arg("start_char") = 1, py::arg("oov_char") = 2,
      py::arg("index_from") = 3,
      "(x_train, y_train, x_test, y_test) as lists, by TensorLayer's rules (data/imdb.hpp).");
  m.def("load_text8", &data::load_text8, py::arg("dir"), py::call_guard<py::gil_scoped_release>());
  m.def("load_nietzsche", &data::load_nietzsche, py::arg("dir"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "load_wmt_en_fr",
      [](const std::string& dir) {
        auto w = data::load_wmt_en_fr(dir);
        return std::make_pair(w.train, w.dev);
      },
      py::arg("dir"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "load_celeba",
      [](const std::string& image_dir, const std::string& attribute_file) {
        auto c = data::load_celeba(image_dir, attribute_file);
        return std::make_tuple(c.images, c.attribute_names, c.attribute_files, c.attributes);
      },
      py::arg("image_dir"), py::arg("attribute_file") = "", py::call_guard<py::gil_scoped_release>());
  m.def("load_flickr25k", &data::load_flickr25k, py::arg("dir"), py::arg("tag") = "sky",
        py::call_guard<py::gil_scoped_release>());
  m.def("load_flickr1m", &data::load_flickr1m, py::arg("dir"), py::arg("tag") = "sky", py::arg("size") = 10,
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "load_cyclegan",
      [](const std::string& dir, const std::string& name) {
        auto c = data::load_cyclegan(dir, name);
        return std::make_tuple(c.train_a, c.train_b, c.test_a, c.test_b);
      },
      py::arg("dir"), py::arg("name") = "summer2winter_yosemite", py::call_guard<py::gil_scoped_release>());
  m.def("read_image", &data::read_image, py::arg("path"), py::arg("channels") = 0,
        py::call_guard<py::gil_scoped_release>(),
        "A PNG or JPEG file as uint8 [H, W, C]; channels 0 keeps the file's.");
  m.def("imagenet_classes", &data::imagenet_classes, py::return_value_policy::copy);

  m.def("basic_tokenizer", &data::basic_tokenizer, py::arg("sentence"));
  m.def("treebank_word_tokenize", &data::treebank_word_tokenize, py::arg("text"));
  m.def("process_sentence", &data::process_sentence, py::arg("sentence"), py::arg("start_word") = "<S>",
        py::arg("end_word") = "</S>");
  m.def("normalize_digits", &data::normalize_digits, py::arg("word"));
  m.def("create_vocabulary", &data::create_vocabulary, py::arg("vocabulary_path"), py::arg("data_path"),
        py::arg("max_size"), py::arg("normalize") = true, py::arg("start") = data::translate_start_vocabulary(),
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "initialize_vocabulary",
      [](const std::string& path) {
        auto v = data::initialize_vocabulary(path);
        return std::make_pair(v.word_to_id, v.id_to_word);
      },
      py::arg("vocabulary_path"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "sentence_to_token_ids",
      [](const std::string& sentence, const std::unordered_map<std::string, int64_t>& vocab, bool normalize,
         int64_t unk_id, std::optional<int64_t> start_id, std::optional<int64_t> end_id) {
        data::TranslateVocabulary v{vocab, {}};
        return data::sentence_to_token_ids(sentence, v, {normalize, unk_id, start_id, end_id});
      },
      py::arg("sentence"), py::arg("vocabulary"), py::arg("normalize") = true,
      py::arg("unk_id") = data::kTranslateUnkId, py::arg("start_id") = py::none(), py::arg("end_id") = py::none());
  m.def(
      "data_to_token_ids",
      [](const std::string& data_path, const std::string& target, const std::string& vocab, bool normalize,
         int64_t unk_id) {
        data::data_to_token_ids(data_path, target, vocab, {.normalize = normalize, .unk_id = unk_id});
      },
      py::arg("data_path"), py::arg("target_path"), py::arg("vocabulary_path"), py::arg("normalize") = true,
      py::arg("unk_id") = data::kTranslateUnkId, py::call_guard<py::gil_scoped_release>());
  m.def("bleu_tokenize_13a", &data::bleu_tokenize_13a, py::arg("line"));
  m.def(
      "corpus_bleu",
      [](const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs, bool lowercase) {
        const auto b = data::corpus_bleu(hyps, refs, lowercase);
        py::dict d;
        d["score"] = b.score, d["precisions"] = b.precisions, d["counts"] = b.correct, d["totals"] = b.total;
        d["bp"] = b.brevity_penalty, d["sys_len"] = b.hypothesis_length, d["ref_len"] = b.reference_length;
        return d;
      },
      py::arg("hypotheses"), py::arg("references"), py::arg("lowercase") = false,
      "sacrebleu's corpus_bleu (13a, exp smoothing) as a dict: score, precisions, counts, totals, bp, sys_len, "
      "ref_len.");
  m.def(
      "read_analogies_file",
      [](const std::string& path, const std::unordered_map<std::string, int64_t>& word_to_id) {
        auto q = data::read_analogies_file(path, word_to_id);
        return std::make_pair(q.ids, q.skipped);
      },
      py::arg("path"), py::arg("word_to_id"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "evaluate_analogies",
      [](py::handle embeddings, py::handle questions) {
        const Tensor e = as_tensor(embeddings), q = as_tensor(questions);
        py::gil_scoped_release release;
        const auto r = data::evaluate_analogies(e, q);
        return std::make_pair(r.correct, r.total);
      },
      py::arg("embeddings"), py::arg("questions"), "(correct, total) by word2vec's nearest-to-b-a+c rule.");
}

}  // namespace strata::python
