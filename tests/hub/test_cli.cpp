// The `strata` command line (tools/strata): runs the built binary on a hub made here with the
// API and checks its tables, its JSON, its errors and an export -> import round trip.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/temp_dir.hpp"
#include "strata/core/allocator.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"

#ifdef STRATA_CLI_PATH

namespace {

namespace fs = std::filesystem;
using namespace strata;
using nlohmann::json;

struct Result {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

class CliTest : public strata::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    db_ = path("hub.db");
  }

  // Runs `strata <args>` with the test's hub; stderr goes to a file beside it.
  Result strata(const std::string& args, bool with_hub = true) {
    std::string err_path = (dir_ / "stderr.txt").string();
    std::string cmd = std::string("'") + STRATA_CLI_PATH + "' " + args;
    if (with_hub) cmd += " --hub '" + db_ + "'";
    cmd += " 2>'" + err_path + "'";
    Result r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
    int status = ::pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE* err = std::fopen(err_path.c_str(), "r");
    for (size_t n; err && (n = std::fread(buf, 1, sizeof buf, err)) > 0;) r.err.append(buf, n);
    if (err) std::fclose(err);
    return r;
  }

  // Two versions of "mlp" and one of "cnn"; one run with a short loss curve.
  int64_t fill() {
    auto hub = hub::Hub::open(db_);
    auto run = hub.create_run("train-mlp", R"({"lr": 0.01})");
    for (int step = 0; step < 3; ++step) run.log(step, hub::Split::train, "loss", 1.0 / (step + 1));
    run.log(2, hub::Split::validation, "loss", 0.75);
    run.finish();
    io::NamedTensors w1{{"dense1/W", full({4, 3}, 0.5f)}, {"dense1/b", zeros({3})}};
    hub.save_model("mlp", w1, {.architecture = R"({"layers": 2})", .metrics = {{"accuracy", 0.9}},
                               .tags = {"baseline"}, .run_id = run.id()});
    io::NamedTensors w2{{"dense1/W", full({4, 3}, 0.25f)}, {"dense1/b", ones({3})}};
    hub.save_model("mlp", w2, {.metrics = {{"accuracy", 0.8}}, .values = {{"author", "ana"}}});
    hub.save_model("cnn", {{"conv/W", zeros({3, 3, 1, 8})}}, {.metrics = {{"accuracy", 0.95}}});
    return run.id();
  }

  std::string db_;
};

TEST_F(CliTest, DevicesListsTheCpuAndCudaOrWhyNot) {
  const Result r = strata("devices", false);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cpu: available ("), std::string::npos) << r.out;
  // This process sees what the command saw: the same GPU, or the same reason there is none.
  const std::string cuda = device_available(DeviceType::CUDA)
                               ? "cuda: available (cuda:0)\n"
                               : "cuda: not available: " + device_unavailable_reason(DeviceType::CUDA) + "\n";
  EXPECT_NE(r.out.find(cuda), std::string::npos) << r.out;
}

TEST_F(CliTest, ModelsTableAndJson) {
  fill();
  auto r = strata("hub models");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("NAME"), std::string::npos) << r.out;
  // Newest first; the best accuracy of mlp is version 1's 0.9 although 2 is the latest.
  auto cnn = r.out.find("\ncnn"), mlp = r.out.find("\nmlp");
  ASSERT_NE(cnn, std::string::npos) << r.out;
  ASSERT_NE(mlp, std::string::npos) << r.out;
  EXPECT_LT(cnn, mlp);
  EXPECT_NE(r.out.find("0.9 "), std::string::npos) << r.out;

  r = strata("hub models --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["name"], "mlp");
  EXPECT_EQ(j[1]["latest_version"], 2);
  EXPECT_EQ(j[1]["versions"], 2);
  EXPECT_EQ(j[1]["best"]["version"], 1);
  EXPECT_DOUBLE_EQ(j[1]["best"]["value"].get<double>(), 0.9);
}

TEST_F(CliTest, TableColumnsAreAligned) {
  fill();
  auto r = strata("hub models");
  ASSERT_EQ(r.status, 0) << r.err;
  // Numbers end under the right edge of their header, and the last (text) column starts under
  // its header, on every row.
  std::vector<std::string> lines;
  for (size_t b = 0, e; (e = r.out.find('\n', b)) != std::string::npos; b = e + 1) lines.push_back(r.out.substr(b, e - b));
  ASSERT_EQ(lines.size(), 4u) << r.out;
  size_t latest_end = lines[0].find("LATEST") + 6, updated = lines[0].find("UPDATED");
  for (size_t i = 2; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), updated) << r.out;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(lines[i][latest_end - 1])) && lines[i][latest_end] == ' ') << r.out;
    EXPECT_TRUE(lines[i][updated - 1] == ' ' && lines[i][updated] != ' ') << r.out;
  }
}

TEST_F(CliTest, ShowListsMetadataAndTensors) {
  fill();
  auto r = strata("hub show mlp:1");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"baseline", "accuracy", "dense1/W", "[4, 3]", "dense1/b", "[3]", "float32"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;

  r = strata("hub show mlp --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["values"]["author"], "ana");
  ASSERT_EQ(j["tensors"].size(), 2u);
  EXPECT_EQ(j["tensors"][0]["name"], "dense1/W");
  EXPECT_EQ(j["tensors"][0]["shape"], json({4, 3}));
}

TEST_F(CliTest, RunsAndLogs) {
  int64_t run = fill();
  auto r = strata("hub runs");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("train-mlp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("finished"), std::string::npos) << r.out;

  r = strata("hub logs " + std::to_string(run) + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["series"].size(), 2u);  // loss on train and on validation
  EXPECT_EQ(j["series"][0]["split"], "train");
  ASSERT_EQ(j["series"][0]["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["series"][0]["points"][1]["value"].get<double>(), 0.5);

  r = strata("hub logs " + std::to_string(run) + " --split validation");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0.75"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("train "), std::string::npos) << r.out;
}

TEST_F(CliTest, DatasetsTableAndJson) {
  {
    auto hub = hub::Hub::open(db_);
    hub.save_dataset("mnist", {{"x", zeros({4, 2})}}, {.description = "tiny", .values = {{"source", "idx"}}});
    hub.save_dataset("mnist", {{"x", ones({4, 2})}, {"y", zeros({4})}});
    hub.save_dataset("raw files", hub::DatasetFiles{{"a.csv", "1,2\n"}});
  }
  auto r = strata("hub datasets");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"NAME", "KIND", "raw files", "files", "tensors", "tiny"}) EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_LT(r.out.find("raw files"), r.out.find("mnist")) << r.out;  // newest first

  r = strata("hub datasets --name mnist --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["version"], 2);
  EXPECT_EQ(j[0]["entries"], 2);
  EXPECT_EQ(j[1]["description"], "tiny");
  EXPECT_EQ(j[1]["values"]["source"], "idx");
  EXPECT_EQ(j[1]["kind"], "tensors");

  r = strata("hub datasets --name nothing");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no datasets matching 'nothing'"), std::string::npos) << r.out;
}

TEST_F(CliTest, ExportImportRoundTrip) {
  fill();
  std::string file = (dir_ / "mlp.safetensors").string();
  auto r = strata("hub export mlp:1 '" + file + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  auto st = io::load_safetensors(file);
  ASSERT_EQ(st.tensors.size(), 2u);
  EXPECT_EQ(st.metadata.at("strata.name"), "mlp");
  EXPECT_EQ(st.metadata.at("strata.version"), "1");

  r = strata("hub import '" + file + "' copy");
  ASSERT_EQ(r.status, 0) << r.err;
  auto hub = hub::Hub::open(db_);
  auto original = hub.load_model("mlp", 1);
  auto copy = hub.load_model("copy");
  EXPECT_EQ(copy.info.version, 1);
  EXPECT_EQ(copy.info.sha256, original.info.sha256);  // the same bytes: the same blob
  EXPECT_EQ(copy.info.meta.architecture, original.info.meta.architecture);
  EXPECT_EQ(copy.info.meta.metrics, original.info.meta.metrics);
  EXPECT_EQ(copy.info.meta.tags, original.info.meta.tags);
  ASSERT_EQ(copy.weights.size(), 2u);
  EXPECT_EQ(copy.weights[0].second.to_vector<float>(), original.weights[0].second.to_vector<float>());
}

TEST_F(CliTest, ErrorsAreOneLineAndExitOne) {
  fill();
  auto r = strata("hub show nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;

  std::string bad = (dir_ / "bad.safetensors").string();
  FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs("not a safetensors file", f);
  std::fclose(f);
  r = strata("hub import '" + bad + "' x");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;

  FILE* empty = std::fopen((dir_ / "empty.safetensors").string().c_str(), "w");
  std::fclose(empty);
  r = strata("hub import '" + (dir_ / "empty.safetensors").string() + "' x");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("too short"), std::string::npos) << r.err;

  // A read on a hub that does not exist is an error, and creates nothing.
  r = strata("hub models --hub '" + (dir_ / "missing.db").string() + "'", false);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.db"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "missing.db"));

  r = strata("hub logs 999");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("999"), std::string::npos) << r.err;
}

TEST_F(CliTest, PasswordNeverPrinted) {
  // No server listens on port 1: the connection fails, and the message must hide the password.
  auto r = strata("hub models --hub 'postgresql://me:s3cr3tpw@127.0.0.1:1/db'", false);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.find("s3cr3tpw"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("s3cr3tpw"), std::string::npos) << r.err;
  EXPECT_FALSE(r.err.empty());
}

}  // namespace

#else
TEST(CliTest, NotBuilt) { GTEST_SKIP() << "STRATA_CLI_PATH not defined: tools/strata is not part of the build"; }
#endif
