// What the schema fixtures hold (tests/hub/fixtures/schema_v<k>.db and .pg_dump: hubs as
// each earlier schema version left them). make_schema_fixtures.cpp writes this content with the
// migrations up to version k; test_schema_upgrades.cpp opens each fixture with today's code and
// expects the same content back. Values are spelled out (no random generator), so the fixtures
// stay valid whatever changes elsewhere.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub::testing::schema_fixture {

// The schema version that first has each table the fixtures fill.
inline constexpr int64_t kFirstWithTasks = 2;
inline constexpr int64_t kFirstWithDatasets = 3;
inline constexpr int64_t kFirstWithBlobFiles = 4;  // SQLite on disk only

inline const std::string kProject = "fixtures";
inline constexpr double kTime = 1'700'000'000.0;

inline const std::string kModel = "mlp";
inline const std::string kArchitecture = R"({"class": "Sequential", "layers": 2})";
inline const std::map<std::string, double> kMetrics = {{"accuracy", 0.875}};
inline const std::vector<std::string> kTags = {"baseline"};
inline const std::map<std::string, std::string> kValues = {{"lr", "0.01"}};

inline const std::string kRun = "train-mlp";
inline const std::string kRunStatus = "finished";
inline const std::string kRunConfig = R"({"lr": 0.01})";
inline const std::string kLossMetric = "loss";
inline const std::vector<double> kLosses = {0.9, 0.5, 0.25};  // steps 1, 2, 3 of the train split
inline const std::string kEventKind = "epoch";
inline const std::string kEventPayload = R"({"epoch": 1})";

inline const std::string kDataset = "digits";
inline const std::string kDatasetDescription = "two digits";
inline const std::map<std::string, std::string> kDatasetValues = {{"source", "fixture"}};

inline const std::string kPlan = "search";
inline const std::string kTask = "train";

inline io::NamedTensors model_weights() {
  return {{"dense1/W", from_vector(std::vector<float>{0.5f, -1.25f, 2.0f, 0.125f, -0.75f, 3.5f}, {2, 3})},
          {"dense1/b", from_vector(std::vector<float>{0.1f, 0.2f, 0.3f})},
          {"dense2/W", from_vector(std::vector<double>{1.5, -2.5, 0.25}, {3, 1})},
          {"steps", from_vector(std::vector<int64_t>{42})}};
}

inline io::NamedTensors dataset_tensors() {
  return {{"x", from_vector(std::vector<uint8_t>{0, 255, 128, 64, 32, 16, 8, 4}, {2, 4})},
          {"y", from_vector(std::vector<int64_t>{3, 7})}};
}

}  // namespace strata::hub::testing::schema_fixture
