// TaskOutputs: the model and dataset versions a task function saves, staged in memory and
// written by Queue::complete in the transaction that commits the task's result and status.
// A task whose commit is refused (its lease was taken away) or that fails leaves no version
// behind; a task that succeeded has all of them. Versions are numbered at commit.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/hub/dataset.hpp"
#include "strata/hub/model.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::workflow {

namespace detail {
struct StagedOutput;
}

class TaskOutputs {
 public:
  // Copies the tensors now (training may go on changing them), checks the name and metrics
  // (throwing strata::Error as Hub::save_model does) and hashes the weights.
  void save_model(const std::string& name, const io::NamedTensors& weights, const hub::ModelMeta& meta = {});
  void save_dataset(const std::string& name, const io::NamedTensors& tensors, const hub::DatasetMeta& meta = {});
  void save_dataset(const std::string& name, const hub::DatasetFiles& files, const hub::DatasetMeta& meta = {});
  bool empty() const { return staged_.empty(); }
  size_t size() const { return staged_.size(); }
  void clear() { staged_.clear(); }
  const std::vector<std::shared_ptr<const detail::StagedOutput>>& staged() const { return staged_; }

 private:
  std::vector<std::shared_ptr<const detail::StagedOutput>> staged_;
};

}  // namespace strata::workflow
