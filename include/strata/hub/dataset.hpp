// What the hub records about a dataset version: tensors (stored as safetensors bytes) or files
// (stored as bytes), a description, user key-values and the time. Models link to one by id.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/io/safetensors.hpp"

namespace strata::hub {

struct DatasetMeta {
  std::string description;
  std::map<std::string, std::string> values;  // user key-values
};

// A file of a dataset: its name (a relative path, say) and its bytes.
struct DatasetFile {
  std::string name;
  std::string bytes;
  bool operator==(const DatasetFile&) const = default;
};
using DatasetFiles = std::vector<DatasetFile>;

enum class DatasetKind { tensors, files };

struct DatasetInfo {
  int64_t id = 0;  // what ModelMeta::dataset_id refers to
  std::string name;
  int64_t version = 0;  // 1, 2, ... per name; never reused, even after a delete
  DatasetKind kind = DatasetKind::tensors;
  DatasetMeta meta;
  int64_t entries = 0;  // tensors or files
  std::string sha256;   // of the stored bytes (hex); identical contents are stored once
  int64_t size_bytes = 0;
  double created_at = 0;  // seconds since the Unix epoch
};

struct LoadedDataset {
  DatasetInfo info;
  io::NamedTensors tensors;  // kind == tensors, in the order saved
  DatasetFiles files;        // kind == files, in the order saved
};

}  // namespace strata::hub
