// A text table for the command line: a header row and rows of cells, printed with every
// column as wide as its widest cell (numbers right-aligned, text left-aligned).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace strata::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add_row(std::vector<std::string> cells);  // must have as many cells as the header
  bool empty() const { return rows_.empty(); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace strata::cli
