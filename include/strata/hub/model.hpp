// What the hub records about a model version, and the queries that select versions.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "strata/io/safetensors.hpp"

namespace strata::hub {

// Everything saved with a model's weights.
struct ModelMeta {
  std::string architecture;                 // JSON config of a static model, or a dynamic model's class name
  std::map<std::string, double> metrics;    // accuracy, loss, ...: what find_top_model sorts by
  std::vector<std::string> tags;
  std::map<std::string, std::string> values;  // user key-values
  std::optional<int64_t> dataset_id;        // DatasetInfo::id of the dataset version it was trained on
  std::optional<int64_t> run_id;            // the run (Hub::create_run) that produced it
};

struct ModelInfo {
  int64_t id = 0;
  std::string name;
  int64_t version = 0;  // 1, 2, ... per name; never reused, even after a delete
  ModelMeta meta;
  std::string sha256;   // of the weights' safetensors bytes (hex)
  int64_t size_bytes = 0;
  double created_at = 0;  // seconds since the Unix epoch
};

struct LoadedModel {
  ModelInfo info;
  io::NamedTensors weights;  // the caller's own copy: changing it changes nothing stored
};

enum class Order { ascending, descending };

// Versions must carry every tag and every key-value listed.
struct ModelFilter {
  std::vector<std::string> tags;
  std::map<std::string, std::string> values;
};

// One page of a listing, newest first.
struct Page {
  int64_t limit = 100;
  int64_t offset = 0;
};

}  // namespace strata::hub
