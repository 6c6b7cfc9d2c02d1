// Datasets in the hub: versions of tensors or files with their metadata, the name search, the
// link from a model, deleting with the blobs, and awkward names.
#include "support/expect_error.hpp"
#include "hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

using strata::testing::expect_error;

std::vector<int64_t> versions_of(const std::vector<DatasetInfo>& v) {
  std::vector<int64_t> out;
  for (const auto& d : v) out.push_back(d.version);
  return out;
}

TEST_P(HubTest, SavesLoadsAndFindsDatasetVersions) {
  Hub hub = open();
  const io::NamedTensors train{{"x", small_model(1)[0].second}, {"y", from_vector(std::vector<int64_t>{0, 1, 1, 0})}};
  EXPECT_EQ(hub.save_dataset("mnist-train", train, {.description = "first 4", .values = {{"source", "idx"}}}), 1);
  EXPECT_EQ(hub.save_dataset("mnist-train", small_model(2)), 2);
  std::string binary("\0\x01\xff\n", 4);
  const DatasetFiles files{{"labels.csv", "a,b\n1,2\n"}, {"img/0.png", binary}, {"empty", ""}};
  EXPECT_EQ(hub.save_dataset("mnist-raw", files, {.description = "as downloaded"}), 1);

  const LoadedDataset first = hub.load_dataset("mnist-train", 1);
  expect_same_weights(first.tensors, train);
  EXPECT_TRUE(first.files.empty());
  EXPECT_EQ(first.info.kind, DatasetKind::tensors);
  EXPECT_EQ(first.info.meta.description, "first 4");
  EXPECT_EQ(first.info.meta.values, (std::map<std::string, std::string>{{"source", "idx"}}));
  EXPECT_EQ(first.info.entries, 2);
  EXPECT_EQ(first.info.sha256.size(), 64u);
  EXPECT_GT(first.info.created_at, 1.6e9);
  expect_same_weights(hub.load_dataset("mnist-train").tensors, small_model(2));
  EXPECT_EQ(hub.load_dataset("mnist-train", "latest").info.version, 2);

  const LoadedDataset raw = hub.load_dataset("mnist-raw", "1");
  EXPECT_EQ(raw.info.kind, DatasetKind::files);
  EXPECT_EQ(raw.files, files);  // names, order and bytes (a NUL included)
  EXPECT_TRUE(raw.tensors.empty());

  EXPECT_EQ(versions_of(hub.find_datasets()), (std::vector<int64_t>{1, 2, 1}));  // newest first
  EXPECT_EQ(hub.find_datasets()[0].name, "mnist-raw");
  EXPECT_EQ(versions_of(hub.find_datasets("train")), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(versions_of(hub.find_datasets("mnist", {.limit = 1, .offset = 1})), (std::vector<int64_t>{2}));
  EXPECT_TRUE(hub.find_datasets("MNIST").empty());  // case-sensitive on both backends
  EXPECT_EQ(hub.dataset_info("mnist-train")->version, 2);
  EXPECT_FALSE(hub.dataset_info("mnist-train", 3));

  expect_error([&] { hub.load_dataset("mnist-train", 7); }, {"dataset \"mnist-train\" version 7"});
  expect_error([&] { hub.load_dataset("mnist-train", "newest"); }, {"\"newest\"", "mnist-train"});
  expect_error([&] { hub.save_dataset("d", DatasetFiles{{"a", "1"}, {"a", "2"}}); }, {"file \"a\" appears twice"});
  expect_error([&] { hub.save_dataset("", small_model(1)); }, {"dataset name is empty"});
  Hub other = open({.project = "elsewhere"});
  EXPECT_TRUE(other.find_datasets().empty());
}

TEST_P(HubTest, ModelsLinkToDatasetsAndDeletingReleasesBlobs) {
  Hub hub = open();
  hub.save_dataset("d", small_model(1));
  hub.save_dataset("d", small_model(2));
  const int64_t d1 = hub.dataset_info("d", 1)->id;
  // The same bytes as dataset version 1: one blob for both.
  hub.save_model("m", small_model(1), {.dataset_id = d1});
  EXPECT_EQ(hub.load_model("m").info.meta.dataset_id, d1);
  EXPECT_EQ(hub.store_size().blobs, 2);
  expect_error([&] { hub.save_model("m", small_model(3), {.dataset_id = d1 + 100}); },
               {"model \"m\"", "dataset id " + std::to_string(d1 + 100)});

  EXPECT_EQ(hub.delete_dataset("d", kLatest), 1);  // version 2: its blob goes
  EXPECT_EQ(hub.store_size().blobs, 1);
  EXPECT_EQ(hub.delete_dataset("d", 1), 1);  // the model still uses the blob; its link is cleared
  EXPECT_EQ(hub.store_size().blobs, 1);
  EXPECT_FALSE(hub.load_model("m").info.meta.dataset_id.has_value());
  expect_same_weights(hub.load_model("m").weights, small_model(1));
  hub.delete_all_versions("m");
  EXPECT_EQ(hub.store_size().blobs, 0);

  hub.save_dataset("e", DatasetFiles{{"f", "x"}});
  hub.save_dataset("e", DatasetFiles{{"f", "y"}});
  EXPECT_EQ(hub.delete_all_dataset_versions("e"), 2);
  EXPECT_EQ(hub.store_size().blobs, 0);
  EXPECT_EQ(hub.save_dataset("e", DatasetFiles{}), 3);  // numbers are never reused
  EXPECT_TRUE(hub.load_dataset("e").files.empty());
}

TEST_P(HubTest, DatasetNamesWithQuotesSemicolonsAndUnicodeRoundTrip) {
  const std::string nasty = "it's \"quoted\"; DROP TABLE datasets; -- ünïcødé 数据 😀 \\ %_";
  Hub hub = open({.project = nasty});
  hub.save_dataset("plain", small_model(1));
  EXPECT_EQ(hub.save_dataset(nasty, DatasetFiles{{nasty, nasty}}, {.description = nasty, .values = {{nasty, nasty}}}), 1);
  const LoadedDataset d = hub.load_dataset(nasty);
  EXPECT_EQ(d.info.name, nasty);
  EXPECT_EQ(d.info.meta.description, nasty);
  EXPECT_EQ(d.info.meta.values.at(nasty), nasty);
  EXPECT_EQ(d.files, (DatasetFiles{{nasty, nasty}}));
  // The search takes its text literally: '%' and '_' are no wildcards, quotes no syntax.
  ASSERT_EQ(hub.find_datasets("\\ %_").size(), 1u);
  EXPECT_EQ(hub.find_datasets("数据 😀")[0].name, nasty);
  EXPECT_TRUE(hub.find_datasets("%").size() == 1 && hub.find_datasets("_").size() == 1);
  EXPECT_EQ(hub.delete_dataset(nasty, 1), 1);
  EXPECT_EQ(hub.find_datasets().size(), 1u);
}

}  // namespace
}  // namespace strata::hub::testing
