// Another module's tables in a hub's database, on the hub's own connection: the workflow's task
// queue keeps its tasks there, so that a task's result and the model and dataset versions the task
// made commit in one transaction, and its statements queue behind the hub's calls like any other.
//   hub::SharedConnection connection(hub);
//   auto session = connection.lock();  // the hub's calls wait until `session` goes
//   session.db().transaction(true, [&] { session.db().execute("UPDATE tasks ...", {...}); });
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "strata/hub/dataset.hpp"
#include "strata/hub/model.hpp"
#include "strata/hub/sql.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub {

class Hub;

namespace detail {
struct HubState;
struct PreparedModel;
struct PreparedDataset;
}  // namespace detail

// A model or dataset version checked and serialised ahead, with no lock held, and stored later by
// SharedConnection::Session::write inside a write transaction (its weights are hashed, or written
// to their blob file, on the first write). Throws strata::Error naming the version as Hub's
// save_model / save_dataset do.
class PreparedVersion {
 public:
  static PreparedVersion model(const std::string& name, const io::NamedTensors& weights, const ModelMeta& meta = {});
  static PreparedVersion dataset(const std::string& name, const io::NamedTensors& tensors,
                                 const DatasetMeta& meta = {});
  static PreparedVersion dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta = {});

  bool is_model() const { return model_ != nullptr; }
  const std::string& name() const;

 private:
  friend class SharedConnection;
  PreparedVersion() = default;
  std::shared_ptr<const detail::PreparedModel> model_;
  std::shared_ptr<const detail::PreparedDataset> dataset_;
};

class SharedConnection {
 public:
  // The connection stays open while this lives, even after `hub` goes.
  explicit SharedConnection(const Hub& hub);

  // The connection held, as each of the hub's calls holds it: the hub's calls (and other
  // sessions on it) wait until this goes.
  class Session {
   public:
    Database& db() const;
    // The current project's id; with `create` (inside a write transaction) it is made when
    // missing. Nothing when the project has no row yet.
    std::optional<int64_t> project_id(bool create);
    const std::string& project() const;  // the current project's name
    // Inside a write transaction: stores the version and returns its number.
    int64_t write(const PreparedVersion& version);

   private:
    friend class SharedConnection;
    explicit Session(detail::HubState& state);
    std::unique_lock<std::mutex> lock_;
    detail::HubState* state_;
  };
  Session lock() const;

 private:
  std::shared_ptr<detail::HubState> state_;
};

// The hub's clock: seconds since 1970, as its time columns hold them.
inline double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace strata::hub
