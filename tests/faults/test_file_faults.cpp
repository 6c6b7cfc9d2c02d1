// Faults from below in the writers of whole-model files and the hub (issue 43.2): every file
// system call of a save fails in turn; each run ends in a strata::Error or a success, and the
// store stays whole: what was committed before loads, nothing half-written is visible, and the
// next save succeeds once the fault is gone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include "faults/fault_walk.hpp"
#include "hub/postgres_cluster.hpp"
#include "strata/hub/hub.hpp"
#include "strata/interop/weight_files.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/model.hpp"
#include "strata/onnx/onnx.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/strata.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

bool same_weights(const io::NamedTensors& a, const io::NamedTensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].first != b[i].first || !allclose(a[i].second, b[i].second, 0, 0)) return false;
  return true;
}

std::shared_ptr<nn::Model> small_model(uint64_t seed) {
  manual_seed(seed);
  auto x = nn::Input({-1, 8});
  auto y = nn::Dense(16, nn::relu)(x);
  return std::make_shared<nn::Model>(x, nn::Dense(4)(y), "net");
}

using FileFaults = TempDirTest;

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// A model file written over an existing one by each of Strata's writers (whole-model
// safetensors, TensorLayer's npz, ONNX, Keras HDF5): the file holds the old bytes or the new ones, never a
// torn file; no temporary file is left; the next save works.
TEST_F(FileFaults, AModelFileIsTheOldOrTheNewOneWhateverCallFails) {
  const auto old_model = small_model(1), new_model = small_model(2);
  struct Writer {
    const char* name;
    std::function<void(const nn::Model&, const std::string&)> save;
  };
  const Writer writers[] = {
      {"Model::save", [](const nn::Model& m, const std::string& p) { m.save(p); }},
      {"io::save_npz", [](const nn::Model& m, const std::string& p) { io::save_npz(p, m.named_weights(), true); }},
      {"onnx::save_onnx", [](const nn::Model& m, const std::string& p) { onnx::save_onnx(m, p); }},
      {"interop::save_keras_hdf5", [](const nn::Model& m, const std::string& p) { interop::save_keras_hdf5(m, p); }},
  };
  for (const Writer& writer : writers) {
    SCOPED_TRACE(writer.name);
    const fs::path folder = dir_ / "models";
    fs::remove_all(folder);
    fs::create_directories(folder);
    const std::string path = (folder / "net.file").string();
    writer.save(*new_model, path);
    const std::string new_bytes = bytes_of(path);
    writer.save(*old_model, path);
    const std::string old_bytes = bytes_of(path);
    ASSERT_NE(old_bytes, new_bytes);
    const int64_t calls = walk_faults(
        {.folder = folder.string()}, [&] { writer.save(*new_model, path); },
        [&](const WalkStep& step) {
          const std::string bytes = bytes_of(path);
          if (step.threw) EXPECT_TRUE(bytes == old_bytes || bytes == new_bytes) << "a torn file of " << bytes.size() << " bytes";
          else EXPECT_EQ(bytes, new_bytes);
          EXPECT_EQ(files_in(folder), std::set<std::string>{"net.file"}) << "a temporary file was left";
          writer.save(*new_model, path);  // the fault is gone: saving works
          EXPECT_EQ(bytes_of(path), new_bytes);
          writer.save(*old_model, path);
        });
    EXPECT_GE(calls, 4) << "open, write, fsync, rename at least";
    std::printf("%s: %lld calls, each failed in turn\n", writer.name, static_cast<long long>(calls));
  }
}

// Hub::save_model: earlier versions always load; a failed save adds no version, or one that is
// whole (a commit whose answer was lost), and on SQLite no blob file without its row; the next
// save works; a reopened hub loads everything.
void walk_hub_save(const std::string& url, const FaultTarget& target, const std::string& blob_folder) {
  auto hub = hub::Hub::open(url);
  const io::NamedTensors first = small_model(3)->named_weights(), second = small_model(4)->named_weights(),
                         after = small_model(5)->named_weights();
  ASSERT_EQ(hub.save_model("net", first), 1);
  int64_t versions = 1;  // listed before the save that each step makes
  const int64_t calls = walk_faults(
      target, [&] { hub.save_model("net", second); },
      [&](const WalkStep& step) {
        const auto listed = hub.list_models("net");
        const int64_t added = static_cast<int64_t>(listed.size()) - versions;  // by the save just made
        if (step.threw) EXPECT_TRUE(added == 0 || added == 1) << added << " versions added";
        else EXPECT_EQ(added, 1);
        if (added == 1) EXPECT_TRUE(same_weights(hub.load_model("net").weights, second)) << "the new version is whole";
        EXPECT_TRUE(same_weights(hub.load_model("net", 1).weights, first));
        for (const auto& info : listed) EXPECT_NO_THROW(hub.load_model("net", info.version)) << info.version;
        if (!blob_folder.empty())
          EXPECT_EQ(static_cast<int64_t>(files_in(blob_folder).size()), hub.store_size().blobs)
              << "blob files that no row holds (or rows without their file)";
        const int64_t next = hub.save_model("net", after);  // the fault is gone
        EXPECT_TRUE(same_weights(hub.load_model("net", next).weights, after));
        versions = static_cast<int64_t>(hub.list_models("net").size());
      });
  std::printf("Hub::save_model (%s): %lld calls, each failed in turn\n", target.port ? "PostgreSQL" : "SQLite",
              static_cast<long long>(calls));
  auto reopened = hub::Hub::open(url);
  for (const auto& info : reopened.list_models("net")) EXPECT_NO_THROW(reopened.load_model("net", info.version));
}

// Run::flush: a flush that fails keeps its points for the next one, which writes them once.
void walk_run_flush(const std::string& url, const FaultTarget& target) {
  auto hub = hub::Hub::open(url);
  hub::Run run = hub.create_run("faults");
  int64_t step = 0;
  const int64_t calls = walk_faults(
      target,
      [&] {
        for (int i = 0; i < 200; ++i, ++step) run.log(step, hub::Split::train, "loss", static_cast<double>(step));
        run.flush();
      },
      [&](const WalkStep&) {
        run.flush();  // the fault is gone: whatever the failed flush held goes now
        const auto points = hub.metric_history(run.id(), "loss", hub::Split::train);
        ASSERT_EQ(static_cast<int64_t>(points.size()), step) << "points lost or written twice";
        for (int64_t i = 0; i < step; ++i) ASSERT_EQ(points[i].step, i);
      });
  std::printf("Run::flush (%s): %lld calls, each failed in turn\n", target.port ? "PostgreSQL" : "SQLite",
              static_cast<long long>(calls));
}

TEST_F(FileFaults, AHubSaveCommitsWholeOrNotAtAll) {
  const std::string url = (dir_ / "hub.db").string();
  walk_hub_save(url, {.folder = dir_.string()}, url + "-blobs");
}

TEST_F(FileFaults, ARunLogFlushThatFailsIsWrittenByTheNextOne) {
  walk_run_flush((dir_ / "hub.db").string(), {.folder = dir_.string()});
}

// The same on PostgreSQL, its connection dropped at each statement in turn.
TEST(ConnectionFaults, AHubSaveAndARunLogFlushOnPostgresLoseNothing) {
  auto* cluster = hub::testing::PostgresCluster::get();
  if (!cluster) GTEST_SKIP() << hub::testing::PostgresCluster::why();
  for (const char* db : {"faults_save", "faults_flush"}) {
    cluster->drop_database(db);
    cluster->create_database(db);
  }
  const FaultTarget target{.port = postgres_port(cluster->url("x"))};
  walk_hub_save(cluster->url("faults_save"), target, "");
  walk_run_flush(cluster->url("faults_flush"), target);
}

}  // namespace
}  // namespace strata::testing
