// Shared by the hub tests: a fresh hub per test (a SQLite file in a temporary directory,
// removed afterwards) and small models to store.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <string>

#include "strata/core/factory.hpp"
#include "postgres_cluster.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub::testing {

namespace fs = std::filesystem;

// Each test runs on both backends: a SQLite file in a fresh temporary directory, and a fresh
// database in a throw-away PostgreSQL cluster (skipped where PostgreSQL is not installed).
class HubTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info->name();
    for (char& c : test)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    dir_ = fs::temp_directory_path() / ("strata_hub_" + std::to_string(::getpid()) + "_" + test);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (postgres()) {
      cluster_ = PostgresCluster::get();
      if (!cluster_) GTEST_SKIP() << PostgresCluster::why();
      static int counter = 0;
      database_ = "strata_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
      cluster_->create_database(database_);
      url_ = cluster_->url(database_);
    } else {
      url_ = (dir_ / "strata.db").string();
    }
  }
  void TearDown() override {
    if (cluster_ && !database_.empty()) cluster_->drop_database(database_);
    fs::remove_all(dir_);
  }

  bool postgres() const { return GetParam() == "postgres"; }
  Hub open(HubOptions options = {}) const { return Hub::open(url_, std::move(options)); }
  // Files in a SQLite hub's blob folder (0 for PostgreSQL, which keeps blobs in rows).
  size_t blob_files() const {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(url_ + "-blobs", ec); !ec && it != fs::directory_iterator(); ++it) ++n;
    return n;
  }

  fs::path dir_;
  std::string url_;
  PostgresCluster* cluster_ = nullptr;
  std::string database_;
};

// A two-layer model's weights; `seed` makes different ones.
inline io::NamedTensors small_model(uint64_t seed, int64_t width = 8) {
  Generator g(seed);
  return {{"dense1/W", randn({4, width}, kFloat32, &g)},
          {"dense1/b", zeros({width})},
          {"dense2/W", randn({width, 2}, kFloat64, &g)},
          {"steps", from_vector(std::vector<int64_t>{static_cast<int64_t>(seed)})}};
}

// Weights of about `bytes` bytes.
inline io::NamedTensors big_model(int64_t bytes, uint64_t seed = 1) {
  Generator g(seed);
  return {{"w", rand({bytes / 4}, kFloat32, &g)}, {"b", ones({16})}};
}

inline void expect_same_weights(const io::NamedTensors& got, const io::NamedTensors& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    ASSERT_EQ(got[i].second.dtype(), want[i].second.dtype()) << want[i].first;
    ASSERT_EQ(got[i].second.shape(), want[i].second.shape()) << want[i].first;
    const Tensor a = got[i].second.contiguous(), b = want[i].second.contiguous();
    EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.nbytes())) << want[i].first;
  }
}

}  // namespace strata::hub::testing
