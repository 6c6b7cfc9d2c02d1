// SharedConnection and PreparedVersion: the hub's connection, lock and staged writes
// (staged_writes.hpp) as other modules see them.
#include "strata/hub/shared_connection.hpp"

#include "hub_state.hpp"
#include "staged_writes.hpp"

namespace strata::hub {

PreparedVersion PreparedVersion::model(const std::string& name, const io::NamedTensors& weights,
                                       const ModelMeta& meta) {
  PreparedVersion v;
  v.model_ = std::make_shared<const detail::PreparedModel>(detail::prepare_model(name, weights, meta));
  return v;
}

PreparedVersion PreparedVersion::dataset(const std::string& name, const io::NamedTensors& tensors,
                                         const DatasetMeta& meta) {
  PreparedVersion v;
  v.dataset_ = std::make_shared<const detail::PreparedDataset>(detail::prepare_dataset(name, tensors, meta));
  return v;
}

PreparedVersion PreparedVersion::dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta) {
  PreparedVersion v;
  v.dataset_ = std::make_shared<const detail::PreparedDataset>(detail::prepare_dataset(name, files, meta));
  return v;
}

const std::string& PreparedVersion::name() const { return model_ ? model_->name : dataset_->name; }

SharedConnection::SharedConnection(const Hub& hub) : state_(hub.state_) {}

SharedConnection::Session SharedConnection::lock() const { return Session(*state_); }

SharedConnection::Session::Session(detail::HubState& state) : lock_(state.mu), state_(&state) {}

Database& SharedConnection::Session::db() const { return *state_->db; }

std::optional<int64_t> SharedConnection::Session::project_id(bool create) { return state_->project_id(create); }

const std::string& SharedConnection::Session::project() const { return state_->options.project; }

int64_t SharedConnection::Session::write(const PreparedVersion& version) {
  return version.model_ ? detail::write_model(*state_, *version.model_)
                        : detail::write_dataset(*state_, *version.dataset_);
}

}  // namespace strata::hub
