// Reading a whole file for the loaders, with errors that name it.
#pragma once
#include <string>
#include <vector>

namespace strata::data::detail {

// Throws strata::Error "<what>: cannot open <path>" when the file cannot be read, LimitError
// when it holds more than limits().max_tensor_bytes.
std::vector<unsigned char> read_file_bytes(const std::string& path, const char* what);

}  // namespace strata::data::detail
