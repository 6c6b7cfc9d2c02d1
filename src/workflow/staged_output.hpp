// What TaskOutputs stages (a prepared model or dataset version) and how Queue::complete writes
// it inside the transaction that commits the task's result.
#pragma once
#include <variant>

#include <nlohmann/json.hpp>

#include "hub/staged_writes.hpp"
#include "strata/workflow/task_outputs.hpp"

namespace strata::workflow::detail {

struct StagedOutput {
  std::variant<hub::detail::PreparedModel, hub::detail::PreparedDataset> version;
};

// Inside a write transaction, with the hub's lock held: writes every staged version and returns
// what was written, [{"model": "mlp", "version": 3}, {"dataset": "features", "version": 1}].
nlohmann::json write_outputs(hub::detail::HubState& hub, const TaskOutputs& outputs);

}  // namespace strata::workflow::detail
