// Whole Keras 3 models (interop/keras_model.hpp): .keras archives written by keras 3.12
// (fixtures/make_keras3_fixtures.py), loaded with no Strata code describing them, against Keras's
// own predictions; and config.json that is not read, refused naming the layer.
#include <gtest/gtest.h>

#include "strata/interop/keras_model.hpp"
#include "strata/io/npz.hpp"
#include "strata/optim/adam.hpp"
#include "strata/strata.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

using namespace strata;
using strata::testing::expect_error;

namespace {

// keras3_* files from make_keras3_fixtures.py, keras2_* from make_keras2_models.py.
std::string whole_keras_file(const std::string& name) {
  return std::string(STRATA_TESTS_DIR) + "/interop/fixtures/" + name.substr(0, 6) + "/" + name;
}

std::vector<Tensor> keras_inputs(const std::string& io_file) {
  std::vector<Tensor> xs;
  for (const auto& [name, t] : io::load_npz(whole_keras_file(io_file)))
    if (name.rfind("x", 0) == 0) xs.push_back(t.dtype() == kInt32 ? t.to(kInt64) : t);
  return xs;
}

// The model's prediction for the inputs x0, x1, ... of io_file against Keras's y, to float32
// rounding (the libraries sum in other orders).
void expect_predicts_keras(nn::Model& model, const std::string& io_file, const std::string& what) {
  const std::vector<Tensor> xs = keras_inputs(io_file);
  Tensor y;
  for (const auto& [name, t] : io::load_npz(whole_keras_file(io_file)))
    if (name == "y") y = t;
  ASSERT_EQ(xs.size(), model.num_inputs()) << what;
  const Tensor got = model.run(xs)[0];
  ASSERT_EQ(got.shape(), y.shape()) << what;
  const auto g = got.to_vector<float>(), w = y.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-4) << what << " [" << i << "]";
}

TEST(KerasModelTest, LoadsWholeKeras3ModelsAndPredictsAsKeras) {
  for (const std::string m : {"mlp", "cnn", "cnn_bn", "lstm", "gru", "two_inputs", "activations"}) {
    SCOPED_TRACE(m);
    const std::shared_ptr<nn::Model> model = interop::load_keras_model(whole_keras_file("keras3_" + m + ".keras"));
    expect_predicts_keras(*model, "keras3_" + m + "_io.npz", m);
  }
}

// Keras 2's model.save: the architecture in model_config (batch_input_shape, inbound nodes as
// lists, batch norm's axis as [3]), the weights by layer name in model_weights.
TEST(KerasModelTest, LoadsWholeKeras2ModelsAndPredictsAsKeras) {
  for (const std::string m : {"two_inputs", "sequential"}) {
    SCOPED_TRACE(m);
    const std::shared_ptr<nn::Model> model = interop::load_keras_model(whole_keras_file("keras2_" + m + ".h5"));
    expect_predicts_keras(*model, "keras2_" + m + "_io.npz", m);
  }
}

using KerasModelFiles = strata::testing::TempDirTest;

// A Strata model like any other: its weights train (every one reached by the gradient: the
// convolutions, batch norm, the embedding and both recurrent layers), and it saves whole.
TEST_F(KerasModelFiles, TheLoadedModelTrainsAndSavesWhole) {
  const std::shared_ptr<nn::Model> model = interop::load_keras_model(whole_keras_file("keras3_two_inputs.keras"));
  ASSERT_EQ(model->num_inputs(), 2u);
  const std::vector<Tensor> xs = keras_inputs("keras3_two_inputs_io.npz");
  const Tensor target = from_vector(std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1}, {2, 4});
  const std::vector<Tensor> weights = model->trainable_weights();
  optim::Adam adam(weights, {.lr = 1e-2});
  std::vector<double> losses;
  for (int step = 0; step < 6; ++step) {
    adam.zero_grad();
    Tensor loss = mean(square(model->run(xs)[0] - target));
    losses.push_back(loss.item<double>());
    loss.backward();
    if (step == 0)
      for (size_t i = 0; i < weights.size(); ++i)
        EXPECT_GT(max(abs(weights[i].grad())).item<double>(), 0.0) << "trainable weight " << i;
    adam.step();
  }
  EXPECT_LT(losses.back(), 0.7 * losses.front()) << losses.front() << " -> " << losses.back();
  const std::string path = (dir_ / "from_keras.safetensors").string();
  model->save(path);
  const std::shared_ptr<nn::Model> loaded = nn::Model::load(path);
  loaded->eval();
  const auto a = model->run(xs)[0].to_vector<float>(), b = loaded->run(xs)[0].to_vector<float>();
  EXPECT_EQ(a, b);
}

TEST(KerasModelTest, RefusesWhatItDoesNotReadNamingTheLayer) {
  const std::string dense = R"({"class_name": "Functional", "config": {"name": "m", "layers": [
      {"class_name": "InputLayer", "name": "in", "config": {"name": "in", "batch_shape": [null, 4], "dtype": "float32"},
       "inbound_nodes": []},
      {"class_name": "Dense", "name": "d", "config": {"name": "d", "units": 3, "activation": "relu"},
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"keras_history": ["in", 0, 0]}}],
                          "kwargs": {}}]}],
      "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = dense;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  auto convert = [](const std::string& config) { return interop::keras_config_to_strata_json(config, "m.keras"); };
  const std::string ok = convert(dense);
  EXPECT_NE(ok.find("\"units\":3"), std::string::npos);
  expect_error([&] { convert(with("\"relu\"", "\"exponential\"")); },
               {"m.keras", "layer 'd' (Dense)", "'exponential'"});
  expect_error([&] { convert(with("\"Dense\"", "\"Lambda\"")); }, {"layer 'd' (Lambda)", "class 'Lambda' is not read"});
  // Keras 2 and 3 define hard_sigmoid differently; Strata's is Keras 3's.
  EXPECT_NE(convert(with("\"relu\"", "\"hard_sigmoid\"")).find("hard_sigmoid"), std::string::npos);
  expect_error([&] { interop::keras_config_to_strata_json(with("\"relu\"", "\"hard_sigmoid\""), "m.h5", 2); },
               {"m.h5", "Keras 2's hard_sigmoid"});
  expect_error([&] { convert(with("[null, 4]", "[null, null]")); }, {"input 'in'", "no fixed size"});
  expect_error([&] { convert(with("\"keras_history\": [\"in\", 0, 0]", "\"keras_history\": [\"in\", 1, 0]")); },
               {"layer 'd'", "called more than once"});
  expect_error([&] { convert(with("[\"d\", 0, 0]]}}", "[\"e\", 0, 0]]}}")); }, {"output layer 'e'"});
  expect_error([&] { convert(with("\"units\": 3", "\"units\": -3")); }, {"'units' is -3"});
  expect_error([&] { convert(with("\"Functional\"", "\"Subclassed\"")); }, {"'Subclassed' model is not read"});
  // An activation layer after a layer that has its own: Strata has no layer to put it in.
  const std::string relu_layer = R"("kwargs": {}}]}, {"class_name": "ReLU", "name": "r", "config": {"name": "r"},
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"keras_history": ["d", 0, 0]}}]}]}])";
  expect_error([&] { convert(with(R"("kwargs": {}}]}])", relu_layer)); },
               {"layer 'r' (ReLU)", "has an activation of its own"});
  expect_error([&] { convert("not json"); }, {"m.keras", "not valid JSON"});
  expect_error([&] { convert(with("\"class_name\": \"__keras_tensor__\"", "\"class_name\": 7")); }, {"m.keras"});
  expect_error([&] { convert(std::string(100000, '[')); }, {"m.keras"});
  expect_error([&] { interop::load_keras_model(whole_keras_file("keras3_mlp.weights.h5")); }, {"no architecture"});
}

}  // namespace
