// Files compiled into the library (cmake/embed_files.cmake writes their table from
// src/serve/ui): the dashboard's page, script and style, served from memory.
#pragma once
#include <string_view>
#include <vector>

namespace strata::serve::detail {

struct EmbeddedFile {
  std::string_view name;  // the file name, "dashboard.js"
  std::string_view content_type;
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& embedded_ui_files();

}  // namespace strata::serve::detail
