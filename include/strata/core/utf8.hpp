// Text from outside (names from the hub or a request) made valid UTF-8 for formats that refuse
// anything else (TensorBoard's protobuf strings, Prometheus's label values).
#pragma once
#include <string>
#include <string_view>

namespace strata {

// `text` with every byte that does not start a valid UTF-8 sequence (overlong forms, surrogates
// and code points past U+10FFFF included) replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

}  // namespace strata
