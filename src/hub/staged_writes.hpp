// A model or dataset version split in two: prepared (checked, metadata serialised) and its
// blob staged (stage_blob: hashed, or written to its file) with no lock held, then written
// inside a write transaction the caller owns. The hub's
// save_model / save_dataset are both halves in one go; the workflow's queue writes a task's
// staged outputs in the transaction that commits its result.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "blob_store.hpp"
#include "hub_state.hpp"

namespace strata::hub::detail {

struct PreparedModel {
  std::string name{};
  io::NamedTensors weights{};
  std::shared_ptr<StagedBlob> blob = std::make_shared<StagedBlob>();  // staged by write_* if not before
  ModelMeta meta{};
  std::string metrics_json{}, tags_json{}, values_json{};
};
// Throws strata::Error naming the model for an empty name, a metric that is not finite, or
// text that is not UTF-8.
PreparedModel prepare_model(const std::string& name, const io::NamedTensors& weights, const ModelMeta& meta);
// Inside a write transaction on s.db, with s.mu held: stores the version and returns its number.
int64_t write_model(HubState& s, const PreparedModel& model);

struct PreparedDataset {
  std::string name{};
  io::NamedTensors tensors{};
  std::shared_ptr<StagedBlob> blob = std::make_shared<StagedBlob>();  // staged by write_* if not before
  DatasetKind kind = DatasetKind::tensors;
  std::string description{}, values_json{};
};
PreparedDataset prepare_dataset(const std::string& name, const io::NamedTensors& tensors, const DatasetMeta& meta);
PreparedDataset prepare_dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta);
int64_t write_dataset(HubState& s, const PreparedDataset& dataset);

}  // namespace strata::hub::detail
