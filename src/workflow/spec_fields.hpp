// SpecFields: how a spec given as JSON (a plan's task, a search, a cross-validation) is read.
// Each field is declared once with where it goes; read() fills them in, and its errors name the
// spec (`who`), the field and what came, and list the fields it takes, so every spec's errors
// read the same and the list cannot drift from the fields.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::workflow::detail {

class SpecFields {
 public:
  explicit SpecFields(std::string who) : who_(std::move(who)) {}

  SpecFields& text(const std::string& key, std::string& out);
  SpecFields& number(const std::string& key, double& out);
  SpecFields& integer(const std::string& key, int64_t& out);
  SpecFields& strings(const std::string& key, std::vector<std::string>& out);
  SpecFields& object(const std::string& key, nlohmann::json& out);
  // The fields every task of a generated plan (a search's trials, a cross-validation's folds)
  // takes from its spec: "tags", "max_attempts", "priority".
  SpecFields& task_options(std::vector<std::string>& tags, int64_t& max_attempts, int64_t& priority);
  // A field with its own reading and checks (`read` gets the value and may throw).
  SpecFields& custom(const std::string& key, std::function<void(const nlohmann::json&)> read);

  // Reads every field of `j` (an object) into its place; throws strata::Error for a field not
  // declared or a value of the wrong type.
  void read(const nlohmann::json& j) const;

  // The spec's "name" when it is a string (to name the spec in errors before reading it), else `fallback`.
  static std::string name_in(const nlohmann::json& j, const std::string& fallback);

 private:
  std::string who_;
  std::vector<std::pair<std::string, std::function<void(const nlohmann::json&)>>> fields_;
};

}  // namespace strata::workflow::detail
