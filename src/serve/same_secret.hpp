// Token checks of the inference server and the dashboard.
#pragma once
#include <string>

namespace strata::serve::detail {

// Two strings compared in a time that does not depend on where they first differ.
inline bool same_secret(const std::string& a, const std::string& b) {
  unsigned char differ = a.size() != b.size();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  return differ == 0;
}

}  // namespace strata::serve::detail
