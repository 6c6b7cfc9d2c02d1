// A confusion matrix as a picture: one self-contained HTML page (no scripts, no network) with an
// inline SVG heat map (rows: the target class, columns: the predicted one; each cell shaded by
// its share of its row, so the diagonal is each class's recall) and a table of each class's
// precision, recall, F1 and count, then the macro averages.
//   train::ConfusionMatrix cm(10);
//   cm.update(train::predict(net, x_test), y_test);
//   train::save_confusion_matrix_html(cm, {"T-shirt/top", "Trouser", ...}, "confusion.html");
#pragma once
#include <string>
#include <vector>

#include "strata/train/confusion_matrix.hpp"

namespace strata::train {

// The page as text. Each cell is an SVG <rect data-target="3" data-predicted="5" data-count="12">
// so tools can read the counts back. `class_names`: one per class, or empty for "0", "1", ...
std::string confusion_matrix_html(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names = {},
                                  const std::string& title = "Confusion matrix");
// Writes confusion_matrix_html to `path`; throws strata::Error when the file cannot be written.
void save_confusion_matrix_html(const ConfusionMatrix& matrix, const std::string& path,
                                const std::vector<std::string>& class_names = {},
                                const std::string& title = "Confusion matrix");

}  // namespace strata::train
