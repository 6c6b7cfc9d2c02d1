// What TaskOutputs stages (a prepared model or dataset version) and how Queue::complete writes
// it inside the transaction that commits the task's result.
#pragma once
#include <nlohmann/json.hpp>

#include "strata/hub/shared_connection.hpp"
#include "strata/workflow/task_outputs.hpp"

namespace strata::workflow::detail {

struct StagedOutput {
  hub::PreparedVersion version;
};

// Inside a write transaction, with the hub's lock held: writes every staged version and returns
// what was written, [{"model": "mlp", "version": 3}, {"dataset": "features", "version": 1}].
nlohmann::json write_outputs(hub::SharedConnection::Session& session, const TaskOutputs& outputs);

}  // namespace strata::workflow::detail
