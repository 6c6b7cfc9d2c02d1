// TensorBoard event files (train::EventFileWriter, train::TensorBoardLogger and `strata hub
// export-tensorboard`) read back by TensorBoard's own EventAccumulator (PyPI, in the tests'
// cached venv) in tensorboard_check.py, which compares every value with the JSON written here:
// scalars, histograms recomputed from the raw values, PNG images decoded pixel by pixel, text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/temp_dir.hpp"
#include "serve/command_output.hpp"
#include "serve/test_venv.hpp"
#include "strata/hub/hub.hpp"
#include "strata/optim/adam.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/tensorboard_logger.hpp"
#include "train/blobs.hpp"

namespace strata::testing {
namespace {

using nlohmann::json;

class TensorBoardTest : public TempDirTest {
 protected:
  // Runs tensorboard_check.py on `runs`; "ok\n", or the mismatches it found.
  std::string check(const json& runs) {
    const std::string python = test_venv_python("tensorboard, PIL", "tensorboard pillow");
    if (python.empty()) return "skip";
    const std::string expected = path("expected.json");
    std::ofstream(expected) << json{{"runs", runs}}.dump();
    return command_output("'" + python + "' '" + STRATA_TESTS_DIR + "/serve/tensorboard_check.py' '" + expected +
                          "' 2>&1 || true");
  }
};

#define EXPECT_TENSORBOARD_READS(runs)                                                               \
  do {                                                                                               \
    const std::string checked = check(runs);                                                           \
    if (checked == "skip") GTEST_SKIP() << "tensorboard could not be installed from PyPI (offline?)";    \
    EXPECT_EQ(checked, "ok\n");                                                                      \
  } while (0)

json values_of(const Tensor& t) { return t.to_vector<double>(); }

TEST_F(TensorBoardTest, ScalarsHistogramsImagesAndTextReadBack) {
  const std::string dir = path("logs");
  train::EventFileWriter w(dir);
  json scalars = json::array();
  const std::vector<double> values = {0.5, 1.0 / 3, -2.5e-7, 1e30, 0};
  for (int64_t i = 0; i < 5; ++i) {
    w.add_scalar("loss", i * 10, values[i], 1.7e9 + i);
    scalars.push_back({i * 10, values[i], 1.7e9 + i});
  }
  w.add_scalar("lr", 3, 0.001);
  w.add_scalar("bad\xff\xc0\xaftag\xe2\x82", 1, 2.0);  // a stray byte, an overlong '/', a cut-off sequence

  manual_seed(3);
  const Tensor normal = randn({1000});
  const Tensor same = full({3}, 2.0);
  const Tensor ints = arange(0, 12, 1, kInt64).reshape({3, 4});
  w.add_histogram("weights", 0, normal);
  w.add_histogram("weights", 1, normal * 2.0, 7);
  w.add_histogram("constant", 0, same);
  w.add_histogram("ints", 0, ints, 4);  // limits 2.75, 5.5, 8.25, 11: the values at limits count above

  // RGB uint8; gray float whose values are k / 255 (so the pixels are k); a grid of three tiles.
  std::vector<uint8_t> rgb(5 * 7 * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>(i * 37 % 256);
  w.add_image("rgb", 2, from_vector(rgb, {5, 7, 3}));
  std::vector<float> gray(4 * 6);
  std::vector<int> gray_pixels(gray.size());
  for (size_t i = 0; i < gray.size(); ++i) gray_pixels[i] = static_cast<int>(i * 11), gray[i] = gray_pixels[i] / 255.0f;
  w.add_image("gray", 0, from_vector(gray, {4, 6}));
  std::vector<uint8_t> tiles(3 * 2 * 2);
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i] = static_cast<uint8_t>(100 + i);
  w.add_image("grid", 0, train::image_grid(from_vector(tiles, {3, 2, 2, 1})));
  // Two columns, two rows, 2 pixels of zeros between: tile i at row (i / 2) * 4, column (i % 2) * 4.
  std::vector<int> grid(6 * 6, 0);
  for (int i = 0; i < 3; ++i)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) grid[((i / 2) * 4 + y) * 6 + (i % 2) * 4 + x] = 100 + i * 4 + y * 2 + x;

  const std::string text = "**bold** and ünïcode – \"quoted\"\nsecond line";
  w.add_text("notes", 4, text, 1.5e9);
  w.add_text("notes", 5, "");

  EXPECT_TENSORBOARD_READS(json::array({json{
      {"dir", dir},
      {"scalars", {{"loss", scalars}, {"lr", {{3, 0.001}}}, {"bad\uFFFD\uFFFD\uFFFDtag\uFFFD\uFFFD", {{1, 2.0}}}}},
      {"histograms",
       {{"weights", {{{"step", 0}, {"values", values_of(normal)}}, {{"step", 1}, {"values", values_of(normal * 2.0)}}}},
        {"constant", {{{"step", 0}, {"values", values_of(same)}}}},
        {"ints", {{{"step", 0}, {"values", values_of(ints)}}}}}},
      {"images",
       {{"rgb", {{{"step", 2}, {"height", 5}, {"width", 7}, {"channels", 3}, {"pixels", rgb}}}},
        {"gray", {{{"step", 0}, {"height", 4}, {"width", 6}, {"channels", 1}, {"pixels", gray_pixels}}}},
        {"grid", {{{"step", 0}, {"height", 6}, {"width", 6}, {"channels", 1}, {"pixels", grid}}}}}},
      {"texts", {{"notes", {{4, text, 1.5e9}, {5, ""}}}}}}}));
}

TEST_F(TensorBoardTest, BadValuesAreRefusedNamingTheTag) {
  train::EventFileWriter w(path("logs"));
  EXPECT_THROW(w.add_histogram("empty", 0, zeros({0})), Error);
  EXPECT_THROW(w.add_histogram("nan", 0, full({2}, std::nan(""))), Error);
  EXPECT_THROW(w.add_histogram("bins", 0, zeros({2}), 0), Error);
  EXPECT_THROW(w.add_image("rank", 0, zeros({2, 2, 2, 1})), Error);
  EXPECT_THROW(w.add_image("channels", 0, zeros({2, 2, 5})), Error);
  EXPECT_THROW(train::image_grid(zeros({2, 2, 3})), Error);
  EXPECT_THROW(train::EventFileWriter(path("logs") + "/" + std::filesystem::path(w.path()).filename().string()), Error);
}

// Records what fit() gave the callbacks, for the expected values.
struct Recorder : train::Callback {
  json batches = json::object(), epochs = json::object(), weights = json::object();
  void on_batch_end(int64_t, const train::Logs& logs) override {
    for (const auto& [k, v] : logs) batches[k].push_back({state().global_step, v});
  }
  void on_epoch_end(int64_t epoch, train::Logs& logs) override {
    for (const auto& [k, v] : logs) epochs[k].push_back({epoch, v});
    for (const auto& [name, w] : model().named_weights()) weights[name].push_back({{"step", epoch}, {"values", values_of(w)}});
  }
};

TEST_F(TensorBoardTest, LoggerWritesWhatFitReportedInKerasLayout) {
  using namespace train;
  auto blobs = train::testing::make_blobs(64, 1), val = train::testing::make_blobs(32, 2);
  auto net = train::testing::make_classifier();
  std::vector<uint8_t> sample(2 * 3 * 3 * 1, 200);
  const std::string dir = path("tb");
  auto logger = std::make_shared<TensorBoardLogger>(
      dir, TensorBoardOptions{.every_n_steps = 3, .images = [&] { return image_grid(from_vector(sample, {2, 3, 3, 1})); }});
  auto recorder = std::make_shared<Recorder>();
  // The summary as training begins (its output shapes are the last call's), a Markdown code block.
  std::string summary = "    ";
  for (char c : net->summary()) summary += c == '\n' ? std::string("\n    ") : std::string(1, c);
  optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
  fit(*net, adam, {}, {blobs.x, blobs.y},
      {.epochs = 2, .batch_size = 16, .validation_data = {val.x, val.y}, .callbacks = {logger, recorder}, .verbose = 0});

  json train_scalars = json::object(), val_scalars = json::object();
  for (const auto& [key, points] : recorder->batches.items()) {
    if (key == "lr") continue;
    for (const auto& p : points)
      if (p[0].get<int64_t>() % 3 == 0) train_scalars["batch_" + key].push_back(p);
  }
  for (const auto& [key, points] : recorder->epochs.items())
    (key.starts_with("val_") ? val_scalars["epoch_" + key.substr(4)] : train_scalars["epoch_" + key]) = points;
  ASSERT_EQ(train_scalars["batch_loss"].size(), 2u);  // global steps 3 and 6 of 8
  ASSERT_TRUE(val_scalars.contains("epoch_accuracy"));
  // The grid of two 3x3 tiles: [3, 8], zeros in the 2 columns between.
  std::vector<int> grid(3 * 8, 200);
  for (int y = 0; y < 3; ++y) grid[y * 8 + 3] = grid[y * 8 + 4] = 0;
  json images = json::array();
  for (int e = 0; e < 2; ++e) images.push_back({{"step", e}, {"height", 3}, {"width", 8}, {"channels", 1}, {"pixels", grid}});

  EXPECT_TENSORBOARD_READS(json::array({json{{"dir", dir + "/train"},
                                             {"scalars", train_scalars},
                                             {"histograms", recorder->weights},
                                             {"images", {{"samples", images}}},
                                             {"texts", {{"model", {{0, summary}}}}}},
                                        json{{"dir", dir + "/validation"}, {"scalars", val_scalars}}}));
}

TEST_F(TensorBoardTest, HubRunExportsEverySeriesWithItsTimes) {
  const std::string hub_path = path("hub.db");
  int64_t run_id = 0;
  {
    auto store = hub::Hub::open(hub_path);
    auto run = store.create_run("exported", R"({"lr": 0.5})");
    run_id = run.id();
    for (int64_t s = 0; s < 3; ++s) {
      run.log(s, hub::Split::train, {{"loss", 1.0 / (s + 1)}, {"accuracy", 0.25 * s}});
      run.log(s, hub::Split::validation, "accuracy", 0.2 * s);
    }
    run.log(7, hub::Split::test, "accuracy", 0.75);
    run.event("note", R"({"said": "hi"})");
    run.finish();
  }
  const std::string out = path("exported");
  const std::string printed = command_output(std::string(STRATA_CLI_PATH) + " hub --hub '" + hub_path +
                                             "' export-tensorboard " + std::to_string(run_id) + " --out '" + out + "'");
  EXPECT_NE(printed.find("10 points of 4 series"), std::string::npos) << printed;
  EXPECT_NE(printed.find("tensorboard --logdir"), std::string::npos) << printed;

  auto store = hub::Hub::open(hub_path);
  auto series = [&](const std::string& name, hub::Split split) {
    json points = json::array();
    for (const auto& p : store.metric_history(run_id, name, split)) points.push_back({p.step, p.value, p.time});
    return points;
  };
  const auto info = store.run_info(run_id);
  const auto events = store.events(run_id);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TENSORBOARD_READS(json::array(
      {json{{"dir", out + "/train"},
            {"scalars", {{"loss", series("loss", hub::Split::train)}, {"accuracy", series("accuracy", hub::Split::train)}}},
            {"texts",
             {{"config", {{0, info->config, info->created_at}}},
              {"events/note", {{0, events[0].payload, events[0].time}}}}}},
       json{{"dir", out + "/validation"}, {"scalars", {{"accuracy", series("accuracy", hub::Split::validation)}}}},
       json{{"dir", out + "/test"}, {"scalars", {{"accuracy", series("accuracy", hub::Split::test)}}}}}));

  EXPECT_EQ(command_output(std::string(STRATA_CLI_PATH) + " hub --hub '" + hub_path + "' export-tensorboard 999 2>&1"),
            "");  // exits non-zero
  const std::string error = command_output(std::string(STRATA_CLI_PATH) + " hub --hub '" + hub_path +
                                           "' export-tensorboard 999 2>&1 || true");
  EXPECT_NE(error.find("no run 999"), std::string::npos) << error;
}

}  // namespace
}  // namespace strata::testing
