// Task kinds by name, and the check of a task's parameters against what its kind declares.
#include "strata/workflow/registry.hpp"

#include "strata/core/error.hpp"

namespace strata::workflow {

using nlohmann::json;

namespace {

constexpr size_t kLogTailBytes = 4096;

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::any: return "any value";
    case ParamType::boolean: return "a boolean";
    case ParamType::integer: return "an integer";
    case ParamType::number: return "a number";
    case ParamType::string: return "a string";
    case ParamType::array: return "an array";
    case ParamType::object: return "an object";
  }
  return "?";
}

bool has_type(const json& v, ParamType t) {
  switch (t) {
    case ParamType::any: return true;
    case ParamType::boolean: return v.is_boolean();
    case ParamType::integer: return v.is_number_integer();
    case ParamType::number: return v.is_number();
    case ParamType::string: return v.is_string();
    case ParamType::array: return v.is_array();
    case ParamType::object: return v.is_object();
  }
  return false;
}

}  // namespace

void TaskContext::log(const std::string& line) {
  log_tail += line;
  log_tail += '\n';
  if (log_tail.size() > kLogTailBytes) {
    size_t cut = log_tail.size() - kLogTailBytes;
    const size_t newline = log_tail.find('\n', cut);  // keep whole lines
    if (newline != std::string::npos && newline + 1 < log_tail.size()) cut = newline + 1;
    log_tail.erase(0, cut);
  }
}

void TaskRegistry::add(TaskKind kind) {
  STRATA_CHECK(!kind.name.empty(), "TaskRegistry::add: the kind's name is empty");
  STRATA_CHECK(static_cast<bool>(kind.fn), "TaskRegistry::add: kind \"", kind.name, "\" has no function");
  for (size_t i = 0; i < kind.params.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      STRATA_CHECK(kind.params[i].name != kind.params[j].name, "TaskRegistry::add: kind \"", kind.name,
                   "\" declares parameter \"", kind.params[i].name, "\" twice");
  const std::string name = kind.name;
  STRATA_CHECK(kinds_.emplace(name, std::move(kind)).second, "TaskRegistry::add: kind \"", name,
               "\" is already registered");
}

const TaskKind& TaskRegistry::at(const std::string& name) const {
  auto it = kinds_.find(name);
  if (it == kinds_.end()) {
    std::string known;
    for (const auto& [k, v] : kinds_) known += (known.empty() ? "" : ", ") + k;
    throw Error("workflow: unknown task kind \"" + name + "\"; this worker runs: " + (known.empty() ? "nothing" : known));
  }
  return it->second;
}

std::vector<std::string> TaskRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : kinds_) out.push_back(k);
  return out;
}

json TaskRegistry::validate(const std::string& kind_name, const json& params) const {
  const TaskKind& kind = at(kind_name);
  STRATA_CHECK(params.is_object(), "task kind \"", kind_name, "\": parameters must be a JSON object, got ", params.dump());
  json out = params;
  for (const auto& p : kind.params) {
    if (!params.contains(p.name)) {
      STRATA_CHECK(!p.required, "task kind \"", kind_name, "\": missing required parameter \"", p.name, "\" (",
                   type_name(p.type), ")");
      if (!p.default_value.is_null()) out[p.name] = p.default_value;
      continue;
    }
    const json& v = params[p.name];
    STRATA_CHECK(has_type(v, p.type), "task kind \"", kind_name, "\": parameter \"", p.name, "\" must be ",
                 type_name(p.type), ", got ", v.dump());
  }
  if (!kind.allow_unknown_params)
    for (const auto& [key, value] : params.items()) {
      bool declared = false;
      for (const auto& p : kind.params) declared = declared || p.name == key;
      if (!declared) {
        std::string names;
        for (const auto& p : kind.params) names += (names.empty() ? "" : ", ") + p.name;
        throw Error("task kind \"" + kind_name + "\": unknown parameter \"" + key + "\"; it takes: " +
                    (names.empty() ? "no parameters" : names));
      }
    }
  return out;
}

hub::LoadedDataset load_input_dataset(TaskContext& ctx) {
  STRATA_CHECK(!ctx.task.input_dataset.empty(), "task ", ctx.task.id, " (", ctx.task.name, ") has no input dataset");
  const hub::VersionRef ref = hub::parse_version_ref(ctx.task.input_dataset);
  return ctx.hub.load_dataset(ref.name, ref.version);
}

}  // namespace strata::workflow
