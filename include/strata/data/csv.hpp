// CSV files with a header row: numeric columns into a float32 feature matrix, one label column
// into int64 class ids.
#pragma once
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/data/dataset.hpp"

namespace strata::data {

struct CsvOptions {
  char delimiter = ',';
  // The column holding the label; empty: no label column, every column is a feature.
  std::string label_column;
  // Columns to leave out (e.g. an id column).
  std::vector<std::string> ignore_columns;
};

struct CsvTable {
  std::vector<std::string> feature_names;  // the header names of the feature columns, in order
  Tensor features;                         // float32 [rows, features]; an empty field is NaN
  Tensor labels;                           // int64 [rows]; undefined without a label column
  // When labels are not all integers, they are names: classes[id] is the name of class id
  // (names sorted, so ids do not depend on row order). Empty when labels were integers.
  std::vector<std::string> classes;

  Dataset dataset() const;  // examples {features row, label} (or {features row})
};

// Reads a CSV file whose first row names the columns. Fields may be double-quoted ("" for a
// quote inside). Throws strata::Error naming the file, the line and the column for a missing
// file, a row with the wrong number of fields, a feature that is not a number, or an unknown
// label or ignored column.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace strata::data
