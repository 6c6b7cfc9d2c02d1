#include "strata/core/error.hpp"

namespace strata::detail {
std::string concat_impl(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}
}  // namespace strata::detail
