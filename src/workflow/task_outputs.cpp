// TaskOutputs: staging a task's model and dataset versions, and writing them at commit.
#include "staged_output.hpp"

namespace strata::workflow {

namespace {

// The tensors' own copies: the caller's may change after staging (training goes on).
io::NamedTensors copied(const io::NamedTensors& tensors) {
  io::NamedTensors out;
  out.reserve(tensors.size());
  for (const auto& [name, t] : tensors) out.emplace_back(name, t.clone());
  return out;
}

}  // namespace

void TaskOutputs::save_model(const std::string& name, const io::NamedTensors& weights, const hub::ModelMeta& meta) {
  staged_.push_back(std::make_shared<detail::StagedOutput>(
      detail::StagedOutput{hub::PreparedVersion::model(name, copied(weights), meta)}));
}

void TaskOutputs::save_dataset(const std::string& name, const io::NamedTensors& tensors, const hub::DatasetMeta& meta) {
  staged_.push_back(std::make_shared<detail::StagedOutput>(
      detail::StagedOutput{hub::PreparedVersion::dataset(name, copied(tensors), meta)}));
}

void TaskOutputs::save_dataset(const std::string& name, const hub::DatasetFiles& files, const hub::DatasetMeta& meta) {
  staged_.push_back(
      std::make_shared<detail::StagedOutput>(detail::StagedOutput{hub::PreparedVersion::dataset(name, files, meta)}));
}

nlohmann::json detail::write_outputs(hub::SharedConnection::Session& session, const TaskOutputs& outputs) {
  nlohmann::json written = nlohmann::json::array();
  for (const auto& staged : outputs.staged()) {
    const hub::PreparedVersion& v = staged->version;
    written.push_back({{v.is_model() ? "model" : "dataset", v.name()}, {"version", session.write(v)}});
  }
  return written;
}

}  // namespace strata::workflow
