// Interoperability with the real tf.keras 2.13, Keras 3.12 and TensorLayer 2.2.5 (interop/weight_files.hpp),
// both ways, compared by predictions. The libraries' files and predictions are fixtures written by
// fixtures/make_interop_fixtures.py in its pinned venv; so are their predictions from the
// Strata-written files committed beside them (reverse.npz), which Strata must still write
// identically. With the venv present, the libraries also load this build's files live.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/fixtures/python_fixtures.hpp"
#include "strata/interop/weight_files.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/merge.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/recurrent.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/nn/model.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace strata;
using interop::Library;
using strata::testing::expect_error;
using strata::testing::fixture;

namespace {

const char* const kModels[] = {"mlp", "cnn", "cnn_bn", "lstm", "gru"};

std::string interop_file(const std::string& name) {
  return std::string(STRATA_TESTS_DIR) + "/interop/fixtures/interop/" + name;
}

Tensor entry(const io::NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  ADD_FAILURE() << "no entry " << name;
  return zeros({1});
}

// make_interop_fixtures.py's models, constructed in the same order as there (the outer layer of
// an expression first), in a fresh naming session, so that default names correspond.
std::unique_ptr<nn::Model> make_model(const std::string& m, Library lib) {
  nn::reset_default_names();
  const bool rnn = m == "lstm" || m == "gru";
  auto x = nn::Input(m == "mlp" ? Shape{-1, 4} : rnn ? Shape{-1, 5, 3} : Shape{-1, 6, 6, 2});
  nn::Symbol h = x;
  if (m == "mlp") {
    h = nn::Dense(3)(nn::Dense(8, nn::relu)(x));
  } else if (m == "cnn") {
    h = nn::Dense(3)(nn::Flatten()(nn::Conv2d(4, {3, 3}, nn::relu)(x)));
  } else if (m == "cnn_bn") {
    h = nn::Conv2d(4, {3, 3})(x);
    h = nn::BatchNorm(0.9, lib == Library::keras ? 1e-3 : 1e-5, nn::relu)(h);  // each library's epsilon
    h = nn::Dense(3)(nn::Flatten()(h));
  } else {
    const nn::RNNOptions last{.return_sequences = false};
    h = m == "lstm" ? nn::Dense(2)(nn::LSTM(4, last)(x)) : nn::Dense(2)(nn::GRU(4, last)(x));
  }
  auto model = std::make_unique<nn::Model>(x, h);
  model->eval();
  return model;
}

// Predictions agree to float32 rounding (the libraries sum in other orders).
void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-4) << what << " [" << i << "]";
}

// The model's prediction for the library's input, against the library's own prediction.
void expect_predicts(nn::Model& model, const std::string& io_file, const std::string& what) {
  const io::NamedTensors io = io::load_npz(interop_file(io_file));
  expect_close(model(entry(io, "x")), entry(io, "y"), what);
}

TEST(InteropTest, NamesLayersAsKerasAndTensorLayerDo) {
  nn::reset_default_names();
  nn::Dense d1(2), d2(2);
  nn::BatchNorm bn;
  nn::LSTM lstm(3);
  nn::GRU gru(3);
  nn::Conv2d conv(4, {3, 3}, {}, nn::Conv2d::same_padding(), "features");
  EXPECT_EQ(d1.name(), "dense_1");
  EXPECT_EQ(interop::library_layer_name(d1, Library::keras), "dense");
  EXPECT_EQ(interop::library_layer_name(d2, Library::keras), "dense_1");
  EXPECT_EQ(interop::library_layer_name(bn, Library::keras), "batch_normalization");
  EXPECT_EQ(interop::library_layer_name(lstm, Library::keras), "lstm");
  EXPECT_EQ(interop::library_layer_name(d2, Library::tensorlayer2), "dense_2");
  EXPECT_EQ(interop::library_layer_name(bn, Library::tensorlayer2), "batchnorm_1");
  EXPECT_EQ(interop::library_layer_name(lstm, Library::tensorlayer2), "rnn_1");
  EXPECT_EQ(interop::library_layer_name(gru, Library::tensorlayer2), "rnn_1");
  EXPECT_EQ(interop::library_layer_name(conv, Library::keras), "features");  // the user's name is kept
  // The order Keras's h5 loader assigns by position: gamma before beta.
  bn(ones({2, 3}));
  const auto layers = interop::library_layers(bn, Library::keras);
  ASSERT_EQ(layers.size(), 1u);
  std::vector<std::string> names;
  for (const auto& [n, t] : layers[0].weights) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"batch_normalization/gamma:0", "batch_normalization/beta:0",
                                             "batch_normalization/moving_mean:0",
                                             "batch_normalization/moving_variance:0"}));
  nn::LSTM stacked(3, {.num_layers = 2});
  stacked(ones({1, 2, 3}));
  expect_error([&] { interop::library_layers(stacked, Library::keras); }, {"cell_0/kernel", "no place in a Keras file"});
}

TEST(InteropTest, LoadsKerasFilesByNameAndByOrder) {
  for (const std::string m : kModels) {
    for (const bool by_name : {true, false}) {
      SCOPED_TRACE(m + (by_name ? " by name" : " by order"));
      auto model = make_model(m, Library::keras);
      EXPECT_EQ(interop::load_library_weights(*model, interop_file("keras_" + m + ".h5"), Library::keras, by_name),
                model->all_weights().size());
      expect_predicts(*model, "keras_" + m + "_io.npz", "keras " + m);
    }
  }
}

TEST(InteropTest, LoadsTensorLayer2Files) {
  for (const std::string m : kModels) {
    SCOPED_TRACE(m);
    const std::string io = "tl2_" + m + "_io.npz";
    for (const bool by_name : {true, false}) {
      for (const std::string file : {"tl2_" + m + "_dict.npz", "tl2_" + m + ".h5"}) {
        auto model = make_model(m, Library::tensorlayer2);
        interop::load_library_weights(*model, interop_file(file), Library::tensorlayer2, by_name);
        expect_predicts(*model, io, file + (by_name ? " by name" : " by order"));
      }
    }
    auto model = make_model(m, Library::tensorlayer2);
    nn::assign_weights(*model, io::load_npz_list(interop_file("tl2_" + m + ".npz")));  // save_npz: a list
    expect_predicts(*model, io, "tl2 save_npz");
  }
}

TEST(InteropTest, RefusesFilesThatDoNotFitTheModel) {
  auto mlp = make_model("mlp", Library::tensorlayer2);
  expect_error([&] { interop::load_library_weights(*mlp, interop_file("tl2_cnn.h5"), Library::tensorlayer2); },
               {"no weight named 'conv2d_1/W'"});
  expect_error([&] { interop::load_library_weights(*mlp, interop_file("keras_cnn_bn.h5"), Library::keras, false); },
               {"has 4 weights, 8 were given"});
  auto lstm = make_model("lstm", Library::keras);
  expect_error([&] { interop::load_library_weights(*lstm, interop_file("keras_gru.h5"), Library::keras); },
               {"no weight named 'gru/kernel'"});
  // Default-named LSTM and GRU in one model are both TensorLayer's rnn_1: by name is ambiguous.
  nn::reset_default_names();
  auto x = nn::Input({-1, 5, 3});
  const nn::RNNOptions last{.return_sequences = false};
  nn::Model both(x, nn::Dense(2)(nn::Concat(1)({nn::LSTM(4, last)(x), nn::GRU(4, last)(x)})));
  expect_error([&] { interop::load_library_weights(both, interop_file("tl2_lstm_dict.npz"), Library::tensorlayer2); },
               {"tl2_lstm_dict.npz", "layer 'rnn_1' could be several", "load by order"});
}

// Loads each library's weights into Strata and writes them back in that library's formats into
// `dir`: the strata_* files make_interop_fixtures.py check loads.
void write_strata_files(const std::string& dir) {
  for (const std::string m : kModels) {
    auto keras = make_model(m, Library::keras);
    interop::load_library_weights(*keras, interop_file("keras_" + m + ".h5"), Library::keras);
    interop::save_keras_hdf5(*keras, dir + "/strata_keras_" + m + ".h5");
    auto tl = make_model(m, Library::tensorlayer2);
    interop::load_library_weights(*tl, interop_file("tl2_" + m + "_dict.npz"), Library::tensorlayer2);
    interop::save_tl2_npz(*tl, dir + "/strata_tl2_" + m + ".npz");
    interop::save_tl2_npz_dict(*tl, dir + "/strata_tl2_" + m + "_dict.npz");
    interop::save_tl2_hdf5(*tl, dir + "/strata_tl2_" + m + ".h5");
  }
}

using InteropFiles = strata::testing::TempDirTest;

// Issue 42.5: layers the user named as Keras does ("conv2d", "conv2d_1": the second looks like
// Strata's default conv2d_1, which Keras calls "conv2d") made save_keras_hdf5 refuse the model
// ("layer name 'conv2d' is empty or appears twice"). Such a model keeps its names, and loads back by name.
TEST_F(InteropFiles, LayersNamedAsKerasNamesThemKeepTheirNames) {
  auto build = [] {
    auto x = nn::Input({-1, 6, 6, 2});
    auto a = nn::Conv2d(3, {3, 3}, {}, nn::Conv2d::same_padding(), "conv2d")(x);
    auto b = nn::Conv2d(2, {3, 3}, {}, nn::Conv2d::same_padding(), "conv2d_1")(a);
    return std::make_shared<nn::Model>(x, nn::Dense(4, nn::Activation(), "dense")(nn::Flatten()(b)), "keras_named");
  };
  const auto saved = build();
  const std::string path = (dir_ / "keras_named.h5").string();
  interop::save_keras_hdf5(*saved, path);
  std::vector<std::string> names;
  for (const auto& l : io::load_hdf5_weights(path)) names.push_back(l.layer);
  EXPECT_EQ(names, (std::vector<std::string>{"conv2d", "conv2d_1", "flatten_1", "dense"}));
  const auto loaded = build();
  EXPECT_EQ(interop::load_library_weights(*loaded, path, Library::keras, /*by_name=*/true), saved->named_weights().size());
  const Tensor x = randn({2, 6, 6, 2});
  expect_close((*loaded)(x), (*saved)(x), "loaded by name");
}

// A Keras file is its weights and names only: saved a second later it is the same bytes (HDF5
// writes modification times into object headers unless told not to, which made a save's result
// depend on the clock).
TEST_F(InteropFiles, AKerasFileSavedLaterIsTheSameBytes) {
  auto model = make_model("cnn_bn", Library::keras);
  const std::string first = (dir_ / "first.h5").string(), second = (dir_ / "second.h5").string();
  interop::save_keras_hdf5(*model, first);
  ::usleep(1100 * 1000);  // past the next whole second: HDF5's times count seconds
  interop::save_keras_hdf5(*model, second);
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(first), bytes(second));
}

// The libraries loaded the committed strata_* files (reverse.npz holds what they then predicted:
// their own predictions, or the check would have failed), and Strata still writes those files.
TEST_F(InteropFiles, WritesWhatKerasAndTensorLayerLoaded) {
  const char* keep = std::getenv("STRATA_INTEROP_WRITE_FIXTURES");  // regenerating the committed files
  const std::string dir = keep ? std::string(keep) : dir_.string();
  write_strata_files(dir);
  const io::NamedTensors reverse = io::load_npz(interop_file("reverse.npz"));
  for (const std::string m : kModels) {
    SCOPED_TRACE(m);
    for (const std::string f : {"strata_keras_" + m + ".h5", "strata_tl2_" + m + ".h5"})
      strata::testing::expect_same_layers(io::load_hdf5_weights(dir + "/" + f), io::load_hdf5_weights(interop_file(f)), f);
    for (const std::string f : {"strata_tl2_" + m + "_dict.npz"})
      strata::testing::expect_same_layers(io::layers_of(io::load_npz(dir + "/" + f)), io::layers_of(io::load_npz(interop_file(f))), f);
    const auto list = io::load_npz_list(dir + "/strata_tl2_" + m + ".npz");
    const auto committed = io::load_npz_list(interop_file("strata_tl2_" + m + ".npz"));
    ASSERT_EQ(list.size(), committed.size());
    for (size_t i = 0; i < list.size(); ++i) strata::testing::expect_same(list[i], committed[i], "save_npz list");
    const io::NamedTensors keras_io = io::load_npz(interop_file("keras_" + m + "_io.npz"));
    const io::NamedTensors tl_io = io::load_npz(interop_file("tl2_" + m + "_io.npz"));
    for (const std::string key : {"keras_" + m, "keras_" + m + "_by_name"})
      expect_close(entry(reverse, key), entry(keras_io, "y"), key);
    for (const std::string how : {"npz", "npz_dict", "h5_in_order", "h5_by_name"})
      expect_close(entry(reverse, "tl2_" + m + "_" + how), entry(tl_io, "y"), "tl2_" + m + "_" + how);
  }
}

// A fixture generator's check mode, run in its pinned venv (~/.cache/<venv>) on the files in
// `dir`: its exit status (77: the libraries do not import), or -1 when the venv is missing.
int run_fixture_check(const std::string& venv, const std::string& script, const std::string& dir) {
  const char* home = std::getenv("HOME");
  const std::string python = std::string(home ? home : "") + "/.cache/" + venv + "/bin/python";
  if (::access(python.c_str(), X_OK) != 0) return -1;
  const std::string path = std::string(STRATA_TESTS_DIR) + "/interop/fixtures/" + script;
  const int rc = std::system((python + " '" + path + "' check '" + dir + "'").c_str());
  EXPECT_TRUE(rc != -1 && WIFEXITED(rc)) << script << " did not run";
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
}

// The same, live: the pinned venv's Keras and TensorLayer load the files this build writes.
TEST_F(InteropFiles, KerasAndTensorLayerLoadStratasFilesLive) {
  write_strata_files(dir_.string());
  const int rc = run_fixture_check("strata-interop-venv", "make_interop_fixtures.py", dir_.string());
  if (rc == -1 || rc == 77)
    GTEST_SKIP() << "no TensorFlow 2.13 and TensorLayer: make ~/.cache/strata-interop-venv as "
                 << "make_interop_fixtures.py's header says (the committed reverse.npz is checked without it)";
  EXPECT_EQ(rc, 0) << "Keras or TensorLayer predicted differently from Strata's files (see stderr)";
}

// Keras 3 (make_keras3_fixtures.py): its .weights.h5 and .keras files, read by name.
std::string keras3_file(const std::string& name) {
  return std::string(STRATA_TESTS_DIR) + "/interop/fixtures/keras3/" + name;
}

TEST(InteropTest, LoadsKeras3FilesByName) {
  for (const std::string m : kModels) {
    for (const std::string file : {"keras3_" + m + ".weights.h5", "keras3_" + m + ".keras"}) {
      SCOPED_TRACE(file);
      auto model = make_model(m, Library::keras);
      EXPECT_EQ(interop::load_library_weights(*model, keras3_file(file), Library::keras), model->all_weights().size());
      const io::NamedTensors io = io::load_npz(keras3_file("keras3_" + m + "_io.npz"));
      expect_close((*model)(entry(io, "x")), entry(io, "y"), file);
    }
  }
}

TEST(InteropTest, RefusesKeras3FilesThatDoNotFitOrAreReadByOrder) {
  auto mlp = make_model("mlp", Library::keras);
  expect_error([&] { interop::load_library_weights(*mlp, keras3_file("keras3_cnn.weights.h5"), Library::keras); },
               {"keras3_cnn.weights.h5", "Keras 3 keeps 'layers/conv2d', which is none of"});
  expect_error([&] { interop::load_library_weights(*mlp, keras3_file("keras3_mlp.keras"), Library::keras, false); },
               {"keras3_mlp.keras", "by name"});
  expect_error([&] { interop::load_library_weights(*mlp, keras3_file("keras3_mlp.keras"), Library::tensorlayer2); },
               {"read as Keras's"});
  expect_error([&] { io::load_keras_weights(keras3_file("keras3_mlp.weights.h5")); },
               {"Keras 3 file", "load_library_weights"});
  auto lstm = make_model("lstm", Library::keras);
  expect_error([&] { interop::load_library_weights(*lstm, keras3_file("keras3_gru.keras"), Library::keras); },
               {"Keras 3 keeps 'layers/gru', which is none of"});
}

// Keras 3's layout is walked, not listed: links back up, links elsewhere, numbering with gaps and
// datasets outside "vars" are refused naming the object (make_keras3_fixtures.py hostile).
TEST(InteropTest, RefusesMalformedKeras3Files) {
  const std::pair<const char*, std::vector<std::string>> cases[] = {
      {"cycle", {"keras3_bad_cycle.weights.h5", "nests deeper than 16 levels"}},
      {"soft_link", {"'layers/dense_1' is a soft or external link"}},
      {"gap", {"'layers/dense/vars' holds 2 entries but no '1'"}},
      {"stray_dataset", {"'layers/dense/kernel' is not a group"}},
  };
  for (const auto& c : cases) {  // not a structured binding: clang 14 cannot capture one in the lambda
    const std::string file = keras3_file(std::string("keras3_bad_") + c.first + ".weights.h5");
    SCOPED_TRACE(c.first);
    expect_error([&] { io::load_hdf5_weights(file); }, c.second);
  }
}

// Loads each Keras 3 file into Strata and writes it back in Keras 3's layout into `dir`: the
// strata_keras3_* files make_keras3_fixtures.py check loads.
void write_strata_keras3_files(const std::string& dir) {
  for (const std::string m : kModels) {
    auto model = make_model(m, Library::keras);
    interop::load_library_weights(*model, keras3_file("keras3_" + m + ".weights.h5"), Library::keras);
    interop::save_keras3_weights(*model, dir + "/strata_keras3_" + m + ".weights.h5");
  }
}

// Strata's Keras 3 file holds what Keras's own does, object by object (Keras 3 loads by these
// paths), Strata still writes the committed files, and Keras 3 predicted from those what it
// predicts from its own (reverse.npz).
TEST_F(InteropFiles, WritesWhatKeras3Loaded) {
  const char* keep = std::getenv("STRATA_KERAS3_WRITE_FIXTURES");  // regenerating the committed files
  const std::string dir = keep ? std::string(keep) : dir_.string();
  write_strata_keras3_files(dir);
  const io::NamedTensors reverse = io::load_npz(keras3_file("reverse.npz"));
  for (const std::string m : kModels) {
    const std::string ours = dir + "/strata_keras3_" + m + ".weights.h5";
    strata::testing::expect_same_layers(io::load_hdf5_weights(ours),
                                        io::load_hdf5_weights(keras3_file("keras3_" + m + ".weights.h5")),
                                        "against Keras 3's own " + m);
    strata::testing::expect_same_layers(io::load_hdf5_weights(ours),
                                        io::load_hdf5_weights(keras3_file("strata_keras3_" + m + ".weights.h5")),
                                        "against the committed " + m);
    const io::NamedTensors io = io::load_npz(keras3_file("keras3_" + m + "_io.npz"));
    expect_close(entry(reverse, "keras3_" + m), entry(io, "y"), "Keras 3's prediction from Strata's " + m);
  }
}

// The same, live: the pinned venv's Keras 3 loads the files this build writes.
TEST_F(InteropFiles, Keras3LoadsStratasFilesLive) {
  write_strata_keras3_files(dir_.string());
  const int rc = run_fixture_check("strata-keras3-venv", "make_keras3_fixtures.py", dir_.string());
  if (rc == -1 || rc == 77)
    GTEST_SKIP() << "no Keras 3: make ~/.cache/strata-keras3-venv as make_keras3_fixtures.py's header says "
                 << "(the committed reverse.npz is checked without it)";
  EXPECT_EQ(rc, 0) << "Keras 3 predicted differently from Strata's files (see stderr)";
}

}  // namespace
