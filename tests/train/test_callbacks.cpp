// Callbacks: the order fit calls them in and stopping from one; EarlyStopping driven by scripted
// values (scripted_callback.hpp); learning-rate schedules; the CSV and HTML records read back and
// compared with the History. The hub's callbacks are lifecycle's (tests/lifecycle).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "blobs.hpp"
#include "scripted_callback.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/train.hpp"
#include "support/temp_dir.hpp"

namespace strata::train {
namespace {

using testing::make_blobs;
using testing::make_classifier;
using testing::Scripted;

class CallbackTest : public strata::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    manual_seed(11);
    net = make_classifier();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path(name));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  testing::Blobs blobs = make_blobs(64, 12), val = make_blobs(32, 13);
  std::unique_ptr<nn::Sequential> net;
};

// Every weight's value when all of them hold one value (else NaN).
double stamp(const nn::Layer& model) {
  double value = NAN;
  for (const Tensor& w : model.all_weights())
    for (float v : w.to_vector<float>()) {
      if (std::isnan(value)) value = v;
      if (v != value) return NAN;
    }
  return value;
}

TEST_F(CallbackTest, HooksRunInOrderAndCanStopTraining) {
  struct Recorder : Callback {
    std::string calls;
    void on_train_begin() override { calls += "T"; }
    void on_epoch_begin(int64_t e) override { calls += "E" + std::to_string(e); }
    void on_batch_end(int64_t step, const Logs& logs) override {
      calls += "b";
      EXPECT_TRUE(logs.count("loss") && logs.count("accuracy") && logs.count("lr"));
      if (state().global_step == 6) stop_training();  // the second epoch's second batch
    }
    void on_epoch_end(int64_t e, Logs& logs) override {
      calls += "e" + std::to_string(e);
      logs["extra"] = 42;  // reaches the History
    }
    void on_train_end(const Logs&) override { calls += "t"; }
  };
  auto rec = std::make_shared<Recorder>();
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  const History h = fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 5, .batch_size = 16, .callbacks = {rec}, .verbose = 0});
  EXPECT_EQ(rec->calls, "TE0bbbbe0E1bbe1t");  // 4 batches a epoch; the 6th stops
  EXPECT_EQ(h.epochs(), 2);
  EXPECT_DOUBLE_EQ(h["extra"][1], 42);
  EXPECT_THROW(rec->on_batch_end(0, {{"loss", 0}, {"accuracy", 0}, {"lr", 0}}), Error);  // no state outside fit
}

TEST_F(CallbackTest, EarlyStoppingStopsAfterPatienceAndRestoresTheBestWeights) {
  optim::SGD sgd(net->trainable_weights(), {.lr = 0});
  // Best at epoch 1; epochs 2 and 3 do not improve: with patience 2 training ends after epoch 3.
  auto script = std::make_shared<Scripted>("val_loss", std::vector<double>{1.0, 0.5, 0.6, 0.7, 0.1, 0.1});
  auto stop = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.patience = 2, .restore_best_weights = true});
  const History h = fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 6, .callbacks = {script, stop}, .verbose = 0});
  EXPECT_EQ(h.epochs(), 4);
  EXPECT_EQ(stop->stopped_epoch(), 3);
  EXPECT_EQ(stop->best_epoch(), 1);
  EXPECT_DOUBLE_EQ(stop->best(), 0.5);
  EXPECT_TRUE(stop->restored());
  EXPECT_EQ(stamp(*net), 2.0);  // epoch 1's weights, not epoch 3's (4.0)

  // Without restoring, the last epoch's weights stay.
  auto keep = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.patience = 2});
  fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 6, .callbacks = {script, keep}, .verbose = 0});
  EXPECT_EQ(stamp(*net), 4.0);
}

TEST_F(CallbackTest, EarlyStoppingMinDeltaAndMaxMode) {
  optim::SGD sgd(net->trainable_weights(), {.lr = 0});
  // Falls, but by less than min_delta: no improvement after epoch 0.
  auto small = std::make_shared<Scripted>("val_loss", std::vector<double>{1.0, 0.95, 0.92, 0.91, 0.9});
  auto stop = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.patience = 2, .min_delta = 0.1});
  EXPECT_EQ(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 5, .callbacks = {small, stop}, .verbose = 0}).epochs(), 3);
  EXPECT_EQ(stop->best_epoch(), 0);
  // An accuracy is better when higher (mode auto).
  auto acc = std::make_shared<Scripted>("val_accuracy", std::vector<double>{0.5, 0.6, 0.55, 0.58, 0.9});
  auto on_acc = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "val_accuracy", .patience = 2});
  EXPECT_EQ(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 5, .callbacks = {acc, on_acc}, .verbose = 0}).epochs(), 4);
  EXPECT_DOUBLE_EQ(on_acc->best(), 0.6);
  // A key the logs do not have is an error naming it.
  auto typo = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "val_los"});
  try {
    fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 2, .callbacks = {typo}, .verbose = 0});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("val_los"), std::string::npos);
  }
}

TEST_F(CallbackTest, LearningRateSchedulers) {
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  auto step = std::make_shared<LearningRateScheduler>(std::make_shared<optim::StepLR>(sgd, 1, 0.5));
  History h = fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 3, .callbacks = {step}, .verbose = 0});
  EXPECT_EQ(h["lr"], (std::vector<double>{0.1, 0.05, 0.025}));
  EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.0125);

  sgd.set_learning_rate(1.0);
  auto fn = std::make_shared<LearningRateScheduler>([](int64_t epoch, double) { return 1.0 / (epoch + 1); });
  h = fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 3, .callbacks = {fn}, .verbose = 0});
  EXPECT_EQ(h["lr"], (std::vector<double>{1.0, 0.5, 1.0 / 3}));

  sgd.set_learning_rate(0.1);
  auto loss = std::make_shared<Scripted>("val_loss", std::vector<double>{1, 1, 1, 1});
  auto plateau = std::make_shared<LearningRateScheduler>(
      std::make_shared<optim::ReduceLROnPlateau>(sgd, optim::PlateauOptions{.factor = 0.5, .patience = 1}));
  h = fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 4, .callbacks = {loss, plateau}, .verbose = 0});
  EXPECT_EQ(h["lr"], (std::vector<double>{0.1, 0.1, 0.1, 0.05}));  // two bad epochs after the first
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string field; std::getline(s, field, sep);) out.push_back(field);
  return out;
}

TEST_F(CallbackTest, CSVLoggerWritesARowPerEpoch) {
  optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
  auto csv = std::make_shared<CSVLogger>(path("log.csv"));
  const History h = fit(*net, adam, {}, {blobs.x, blobs.y},
                        {.epochs = 3, .batch_size = 16, .validation_data = {val.x, val.y}, .callbacks = {csv}, .verbose = 0});
  std::stringstream file(read("log.csv"));
  std::string line;
  std::getline(file, line);
  const std::vector<std::string> header = split(line, ',');
  EXPECT_EQ(header, (std::vector<std::string>{"epoch", "accuracy", "loss", "lr", "val_accuracy", "val_loss"}));
  int64_t rows = 0;
  for (; std::getline(file, line); ++rows) {
    const auto fields = split(line, ',');
    ASSERT_EQ(fields.size(), header.size());
    EXPECT_EQ(std::stoll(fields[0]), rows);
    for (size_t c = 1; c < header.size(); ++c) EXPECT_EQ(std::stod(fields[c]), h[header[c]][rows]) << header[c];
  }
  EXPECT_EQ(rows, 3);

  // append adds rows under the existing header.
  auto more = std::make_shared<CSVLogger>(path("log.csv"), ',', /*append=*/true);
  fit(*net, adam, {}, {blobs.x, blobs.y}, {.epochs = 2, .validation_data = {val.x, val.y}, .callbacks = {more}, .verbose = 0});
  const std::string text = read("log.csv");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
  EXPECT_EQ(text.find("epoch", 1), std::string::npos);
}

TEST_F(CallbackTest, HistoryHtmlHasTheCurvesAndTheirNumbers) {
  optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
  History h = fit(*net, adam, {}, {blobs.x, blobs.y},
                  {.epochs = 4, .batch_size = 16, .validation_data = {val.x, val.y}, .verbose = 0});
  save_history_html(h, path("curves.html"), "blobs <mlp>");
  const std::string html = read("curves.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>blobs &lt;mlp&gt;</title>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // self-contained, no scripts
  for (const char* chart : {"data-chart=\"loss\"", "data-chart=\"accuracy\""})
    EXPECT_NE(html.find(chart), std::string::npos) << chart;
  EXPECT_EQ(html.find("data-chart=\"lr\""), std::string::npos);
  // Every plotted point reads back as its History value.
  const std::regex point(R"re(data-series="([a-z_]+)" data-epoch="(\d+)" data-value="([^"]+)")re");
  std::map<std::string, int> seen;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), point); it != std::sregex_iterator(); ++it) {
    const std::string series = (*it)[1];
    EXPECT_EQ(std::stod((*it)[3]), h[series][std::stoll((*it)[2])]) << series;
    ++seen[series];
  }
  for (const char* s : {"loss", "val_loss", "accuracy", "val_accuracy"}) EXPECT_EQ(seen[s], 4) << s;
  EXPECT_EQ(html.find("<svg"), html.find("<svg xmlns="));
  // One epoch and a NaN still make a page (the NaN point is left out).
  History one;
  one.append({{"loss", 0.5}, {"val_loss", NAN}});
  const std::string page = history_html(one);
  EXPECT_NE(page.find("data-value=\"0.5\""), std::string::npos);
  EXPECT_EQ(page.find("data-series=\"val_loss\" data-epoch"), std::string::npos);
  EXPECT_THROW(save_history_html(h, path("no/such/dir/x.html")), Error);
}

}  // namespace
}  // namespace strata::train
