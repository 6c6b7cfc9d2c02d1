#include "strata/nn/layer_config.hpp"
#include "strata/nn/option_table.hpp"

namespace strata::nn {
namespace {

// A table cell: pipes would end the cell early.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string layer_options_markdown() {
  std::string out;
  for (const std::string& kind : registered_layer_classes()) {
    const OptionTable* table = layer_options(kind);
    if (table == nullptr) continue;
    out += "### " + kind + " (" + table->name + ")\n\n";
    if (table->fields.empty()) {
      out += "No options.\n\n";
      continue;
    }
    out += "| option | type | default | bounds | |\n|---|---|---|---|---|\n";
    for (const OptionField& f : table->fields) {
      const std::string default_value =
          table->defaults.contains(f.name) ? table->defaults[f.name].dump() : f.default_text;
      out += "| " + f.name + " | " + cell(f.type) + " | `" + cell(default_value) + "` | " + cell(f.rule_text()) + " | " +
             cell(f.doc) + " |\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace strata::nn
