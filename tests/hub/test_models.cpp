// Models in the hub: versions, metadata, content-addressed blobs, the top-model search, the
// cache, listing, deleting, projects, awkward names, and corruption caught on load.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_P(HubTest, SavesAndLoadsVersionsWithTheirMetadata) {
  Hub hub = open();
  hub.save_dataset("data", small_model(9));
  const int64_t dataset = hub.dataset_info("data")->id;
  ModelMeta meta{.architecture = R"({"layers":[{"Dense":8}]})",
                 .metrics = {{"accuracy", 0.91}, {"loss", 0.25}},
                 .tags = {"cnn", "baseline"},
                 .values = {{"optimizer", "adam"}, {"lr", "0.001"}},
                 .dataset_id = dataset,
                 .run_id = std::nullopt};
  EXPECT_EQ(hub.save_model("mlp", small_model(1), meta), 1);
  EXPECT_EQ(hub.save_model("mlp", small_model(2)), 2);
  EXPECT_EQ(hub.save_model("other", small_model(3)), 1);

  const LoadedModel latest = hub.load_model("mlp");
  EXPECT_EQ(latest.info.version, 2);
  expect_same_weights(latest.weights, small_model(2));
  EXPECT_EQ(hub.load_model("mlp", "latest").info.version, 2);

  const LoadedModel first = hub.load_model("mlp", "1");
  expect_same_weights(first.weights, small_model(1));
  EXPECT_EQ(first.info.name, "mlp");
  EXPECT_EQ(first.info.meta.architecture, meta.architecture);
  EXPECT_EQ(first.info.meta.metrics, meta.metrics);
  EXPECT_EQ(first.info.meta.tags, (std::vector<std::string>{"baseline", "cnn"}));
  EXPECT_EQ(first.info.meta.values, meta.values);
  EXPECT_EQ(first.info.meta.dataset_id, dataset);
  EXPECT_FALSE(first.info.meta.run_id.has_value());
  EXPECT_EQ(first.info.sha256.size(), 64u);
  EXPECT_GT(first.info.created_at, 1.6e9);

  EXPECT_NE(error_of([&] { hub.load_model("mlp", 7); }).find("model \"mlp\" version 7"), std::string::npos);
  EXPECT_NE(error_of([&] { hub.load_model("nope"); }).find("\"nope\""), std::string::npos);
  EXPECT_THROW(hub.load_model("mlp", "newest"), Error);
  EXPECT_THROW(hub.save_model("mlp", small_model(1), {.metrics = {{"loss", std::nan("")}}}), Error);
}

TEST_P(HubTest, ReopeningKeepsEverything) {
  { open().save_model("m", small_model(1), {.metrics = {{"acc", 0.5}}}); }
  Hub hub = open();
  EXPECT_EQ(hub.save_model("m", small_model(2)), 2);
  expect_same_weights(hub.load_model("m", 1).weights, small_model(1));
}

TEST_P(HubTest, IdenticalWeightsAreStoredOnceAndDeletedWithTheLastUser) {
  Hub hub = open();
  hub.save_model("a", small_model(1));
  hub.save_model("b", small_model(1));
  hub.save_model("b", small_model(2));
  const size_t files = postgres() ? 0 : 1;  // SQLite: one file per blob, PostgreSQL: rows
  EXPECT_EQ(hub.store_size().blobs, 2);
  EXPECT_EQ(blob_files(), 2 * files);  // the duplicate's file is removed when its row is not written
  EXPECT_EQ(hub.delete_model("a", 1), 1);
  EXPECT_EQ(hub.store_size().blobs, 2);  // b version 1 still uses it
  expect_same_weights(hub.load_model("b", 1).weights, small_model(1));
  EXPECT_EQ(hub.delete_model("b", kLatest), 1);  // version 2
  EXPECT_EQ(hub.store_size().blobs, 1);
  EXPECT_EQ(blob_files(), files);
  EXPECT_EQ(hub.delete_all_versions("b"), 1);
  EXPECT_EQ(hub.store_size().blobs, 0);
  EXPECT_EQ(blob_files(), 0u);
  EXPECT_EQ(hub.store_size().models, 0);
  EXPECT_EQ(hub.delete_model("b", 1), 0);
  // Numbers are never reused, even after every version is gone.
  EXPECT_EQ(hub.save_model("b", small_model(3)), 3);
}

TEST_P(HubTest, FindTopModelSortsFiltersAndReadsTheBlobOnce) {
  Hub hub = open();
  const double acc[] = {0.7, 0.9, 0.8, 0.9, 0.6};
  for (int i = 0; i < 5; ++i)
    hub.save_model("net", small_model(i), {.metrics = {{"accuracy", acc[i]}, {"loss", 1 - acc[i]}},
                                           .tags = {i % 2 ? "odd" : "even"},
                                           .values = {{"lr", i < 3 ? "0.1" : "0.01"}}});
  auto best = hub.find_top_model("net", "accuracy");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->info.version, 4);  // tie with version 2: the newest wins
  expect_same_weights(best->weights, small_model(3));
  EXPECT_EQ(hub.find_top_model("net", "loss", Order::ascending)->info.version, 4);
  EXPECT_EQ(hub.find_top_model("net", "accuracy", Order::ascending)->info.version, 5);
  EXPECT_EQ(hub.find_top_model("net", "accuracy", Order::descending, {.tags = {"even"}})->info.version, 3);
  EXPECT_EQ(hub.find_top_model("net", "accuracy", Order::descending, {.values = {{"lr", "0.1"}}})->info.version, 2);
  EXPECT_FALSE(hub.find_top_model("net", "accuracy", Order::descending, {.tags = {"even", "odd"}}));
  EXPECT_FALSE(hub.find_top_model("net", "f1"));
  EXPECT_FALSE(hub.find_top_model("missing", "accuracy"));

  Hub fresh = open();
  fresh.find_top_model("net", "accuracy");
  fresh.find_top_model("net", "accuracy");
  EXPECT_EQ(fresh.stats().blob_reads, 1);
  EXPECT_EQ(fresh.stats().cache_hits, 1);
}

TEST_P(HubTest, CacheIsBoundedInBytesAndHandsOutCopies) {
  int64_t one = 0;
  {
    Hub writer = open();
    writer.save_model("a", small_model(1, 32));
    writer.save_model("b", small_model(2, 32));
    writer.save_model("big", big_model(8000));
    one = writer.model_info("a")->size_bytes;
  }
  HubOptions options;
  options.cache_bytes = one * 3 / 2;  // room for one small model, not two
  Hub hub = open(options);
  LoadedModel a = hub.load_model("a");
  a.weights[0].second.data<float>()[0] = 1e6f;  // the caller's copy
  expect_same_weights(hub.load_model("a").weights, small_model(1, 32));
  EXPECT_EQ(hub.stats().blob_reads, 1);
  hub.load_model("b");  // evicts a
  hub.load_model("a");
  EXPECT_EQ(hub.stats().blob_reads, 3);
  hub.load_model("big");
  hub.load_model("big");  // larger than the cache: read each time
  EXPECT_EQ(hub.stats().blob_reads, 5);
  EXPECT_LE(hub.stats().cached_bytes, options.cache_bytes);
}

TEST_P(HubTest, ListsModelsNewestFirstInPages) {
  Hub hub = open();
  for (int i = 0; i < 7; ++i) hub.save_model("m", small_model(i));
  hub.save_model("n", small_model(0));
  const auto versions = [](const std::vector<ModelInfo>& v) {
    std::vector<int64_t> out;
    for (const auto& m : v) out.push_back(m.version);
    return out;
  };
  EXPECT_EQ(versions(hub.list_models("m", {.limit = 3})), (std::vector<int64_t>{7, 6, 5}));
  EXPECT_EQ(versions(hub.list_models("m", {.limit = 3, .offset = 6})), (std::vector<int64_t>{1}));
  const auto all = hub.list_models();
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all[0].name, "n");
}

TEST_P(HubTest, ProjectsSeparateModels) {
  Hub hub = open();
  hub.save_model("m", small_model(1));
  hub.set_project("vision");
  EXPECT_EQ(hub.project(), "vision");
  EXPECT_TRUE(hub.list_models().empty());
  EXPECT_EQ(hub.save_model("m", small_model(2)), 1);
  EXPECT_EQ(hub.list_projects(), (std::vector<std::string>{"default", "vision"}));
  Hub other = open({.project = "default"});
  expect_same_weights(other.load_model("m").weights, small_model(1));
}

TEST_P(HubTest, NamesWithQuotesSemicolonsAndUnicodeRoundTrip) {
  const std::string nasty = "it's \"quoted\"; DROP TABLE models; -- ünïcødé 模型 😀 \\ %_";
  Hub hub = open({.project = nasty});
  EXPECT_EQ(hub.save_model(nasty, {{nasty, ones({2})}},
                           {.architecture = nasty, .metrics = {{nasty, 1.0}}, .tags = {nasty},
                            .values = {{nasty, nasty}}}),
            1);
  const LoadedModel m = hub.load_model(nasty);
  EXPECT_EQ(m.info.name, nasty);
  EXPECT_EQ(m.weights[0].first, nasty);
  EXPECT_EQ(m.info.meta.architecture, nasty);
  EXPECT_EQ(m.info.meta.tags, std::vector<std::string>{nasty});
  EXPECT_EQ(m.info.meta.values.at(nasty), nasty);
  EXPECT_EQ(hub.find_top_model(nasty, nasty, Order::descending, {.tags = {nasty}, .values = {{nasty, nasty}}})->info.name,
            nasty);
  EXPECT_EQ(hub.list_projects(), std::vector<std::string>{nasty});
  EXPECT_TRUE(hub.load_model(nasty).info.name == nasty);
  auto run = hub.create_run(nasty, "{\"k\": \"" + std::string("ü; '") + "\"}");
  run.log(1, Split::train, nasty, 2.5);
  run.flush();
  EXPECT_EQ(hub.metric_history(run.id(), nasty, Split::train).size(), 1u);
  EXPECT_EQ(hub.list_runs()[0].name, nasty);
}

TEST_P(HubTest, BigModelsAreStoredInChunks) {
  HubOptions options;
  options.chunk_bytes = 1000;
  int64_t chunks = 0;
  options.on_chunk_written = [&](int64_t i) { chunks = i + 1; };
  Hub hub = open(options);
  const auto weights = big_model(50'000);
  hub.save_model("big", weights);
  EXPECT_EQ(chunks, (hub.model_info("big")->size_bytes + 999) / 1000);
  Hub reader = open({.chunk_bytes = 7});  // reading does not depend on the writer's chunk size
  expect_same_weights(reader.load_model("big").weights, weights);
}

// Flips one bit in the middle of `needle`, found in one of the hub's blob files.
void corrupt_blob_file(const std::string& hub_path, const std::string& needle) {
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(hub_path + "-blobs")) {
    std::string file;
    {
      std::ifstream in(entry.path(), std::ios::binary);
      file.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t at = file.find(needle);
    if (at == std::string::npos) continue;
    ++found;
    file[at + needle.size() / 2] ^= 0x01;
    std::ofstream out(entry.path(), std::ios::binary | std::ios::trunc);
    out << file;
  }
  ASSERT_EQ(found, 1);
}

TEST_P(HubTest, CorruptedWeightsNameTheModelAndVersion) {
  // A tensor with a byte pattern found nowhere else, to find in the database file.
  std::vector<uint8_t> pattern(4096);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>((i * 7 + 3) % 251);
  std::string sha;
  {
    Hub hub = open();
    hub.save_model("victim", small_model(1));
    hub.save_model("victim", {{"p", from_vector(pattern)}});
    sha = hub.model_info("victim", 2)->sha256;
  }
  if (postgres()) {
    ASSERT_TRUE(cluster_->psql(database_, "UPDATE blob_chunks SET data = set_byte(data, 1050, get_byte(data, 1050) # 1) "
                                          "WHERE sha256 = '" + sha + "' AND idx = 0"));
  } else {
    corrupt_blob_file(url_, std::string(pattern.begin() + 1000, pattern.begin() + 1100));
  }
  Hub hub = open();
  const std::string msg = error_of([&] { hub.load_model("victim", 2); });
  EXPECT_NE(msg.find("model \"victim\" version 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("corrupted"), std::string::npos) << msg;
  expect_same_weights(hub.load_model("victim", 1).weights, small_model(1));  // the rest is fine
}

}  // namespace
}  // namespace strata::hub::testing
