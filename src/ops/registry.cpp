#include "strata/ops/registry.hpp"

namespace strata::ops {

static std::set<std::string>& registry() {
  static std::set<std::string> r;
  return r;
}
void register_op(const char* name) { registry().insert(name); }
const std::set<std::string>& registered_ops() { return registry(); }

}  // namespace strata::ops
