// The confusion-matrix page: every cell's count read back from the SVG equals the matrix's, cells
// are shaded by their share of the row, names are escaped, and bad calls are refused.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/train/confusion_matrix_html.hpp"

namespace strata::train {
namespace {

using strata::testing::expect_error;

// Logits whose argmax is `predicted`.
Tensor logits_for(const std::vector<int64_t>& predicted, int64_t classes) {
  return one_hot(from_vector(predicted), classes) * 3.0 - 1.0;
}

ConfusionMatrix three_classes() {
  ConfusionMatrix matrix(3);
  // Targets 0, 0, 0, 1, 1, 2 predicted 0, 0, 1, 1, 2, 2: class 0's row is 2, 1, 0.
  matrix.update(logits_for({0, 0, 1, 1, 2, 2}, 3), from_vector(std::vector<int64_t>{0, 0, 0, 1, 1, 2}));
  return matrix;
}

TEST(ConfusionMatrixHtmlTest, EveryCellsCountReadsBackAndIsShadedByItsRowShare) {
  const ConfusionMatrix matrix = three_classes();
  const std::string page = confusion_matrix_html(matrix, {"cat", "dog <b>", "bird & co"}, "pets \"v2\"");
  const std::regex cell(
      R"re(<rect [^>]*fill="(#[0-9a-f]{6})"[^>]*data-target="(\d+)" data-predicted="(\d+)" data-count="(\d+)")re");
  int cells = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), cell); it != std::sregex_iterator(); ++it, ++cells) {
    const int64_t t = std::stoll((*it)[2]), p = std::stoll((*it)[3]);
    EXPECT_EQ(std::stoll((*it)[4]), matrix.counts()[t][p]) << "cell " << t << ", " << p;
    // Class 2's row is all on the diagonal: full colour; an empty cell is white.
    if (t == 2 && p == 2) EXPECT_EQ((*it)[1], "#1f77b4");
    if (matrix.counts()[t][p] == 0) EXPECT_EQ((*it)[1], "#ffffff") << "cell " << t << ", " << p;
  }
  EXPECT_EQ(cells, 9);
  EXPECT_NE(page.find("6 samples, accuracy 0.6667"), std::string::npos);
  EXPECT_NE(page.find("dog &lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find("bird &amp; co"), std::string::npos);
  EXPECT_NE(page.find("<title>pets &quot;v2&quot;</title>"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  // The table: class 0's precision 2/2, recall 2/3; the macro F1 as the matrix computes it.
  EXPECT_NE(page.find("<tr><td>cat</td><td>1</td><td>0.6667</td>"), std::string::npos);
  char macro_f1[32];
  std::snprintf(macro_f1, sizeof macro_f1, "%.4g", matrix.macro_f1());
  EXPECT_NE(page.find(std::string("<td>") + macro_f1 + "</td><td>6</td></tr>"), std::string::npos);
}

TEST(ConfusionMatrixHtmlTest, NamesDefaultToClassIdsAndBadCallsAreRefused) {
  const std::string page = confusion_matrix_html(three_classes());
  EXPECT_NE(page.find("<tr><td>2</td>"), std::string::npos);
  expect_error([] { confusion_matrix_html(three_classes(), {"a", "b"}); }, {"2 class names for 3 classes"});
  expect_error([] { confusion_matrix_html(ConfusionMatrix()); }, {"no classes yet"});
  expect_error([] { save_confusion_matrix_html(three_classes(), "/no/such/dir/cm.html"); }, {"cannot open"});
}

}  // namespace
}  // namespace strata::train
