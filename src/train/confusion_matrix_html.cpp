#include "strata/train/confusion_matrix_html.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "html_text.hpp"
#include "strata/core/error.hpp"

namespace strata::train {

namespace {

using detail::fixed;
using detail::html_escape;
using detail::label;

constexpr double kCell = 44, kLeft = 130, kTop = 120;

// White for 0, deepening to blue for 1 (a cell's share of its row).
std::string shade(double share) {
  const auto channel = [share](int full) { return static_cast<int>(255 - (255 - full) * share + 0.5); };
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", channel(0x1f), channel(0x77), channel(0xb4));
  return buf;
}

void heat_map(std::ostringstream& out, const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  const int64_t n = matrix.num_classes();
  const double side = kCell * static_cast<double>(n);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + side + 20 << "\" height=\"" << kTop + side + 40
      << "\" data-chart=\"confusion matrix\">\n"
      << "<text x=\"" << kLeft + side / 2 << "\" y=\"14\" text-anchor=\"middle\">predicted</text>\n"
      << "<text x=\"14\" y=\"" << kTop + side / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      << kTop + side / 2 << ")\">target</text>\n";
  for (int64_t c = 0; c < n; ++c) {
    const double middle = static_cast<double>(c) * kCell + kCell / 2;
    out << "<text x=\"" << fixed(kLeft + middle) << "\" y=\"" << kTop - 8 << "\" transform=\"rotate(-60 "
        << fixed(kLeft + middle) << ' ' << kTop - 8 << ")\">" << html_escape(names[c]) << "</text>\n"
        << "<text x=\"" << kLeft - 8 << "\" y=\"" << fixed(kTop + middle)
        << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << html_escape(names[c]) << "</text>\n";
  }
  for (int64_t t = 0; t < n; ++t) {
    int64_t row_total = 0;
    for (int64_t count : matrix.counts()[t]) row_total += count;
    for (int64_t p = 0; p < n; ++p) {
      const int64_t count = matrix.counts()[t][p];
      const double share = row_total == 0 ? 0 : static_cast<double>(count) / static_cast<double>(row_total);
      const double x = kLeft + kCell * static_cast<double>(p), y = kTop + kCell * static_cast<double>(t);
      out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell << "\" height=\"" << kCell << "\" fill=\""
          << shade(share) << "\" stroke=\"#fff\" data-target=\"" << t << "\" data-predicted=\"" << p
          << "\" data-count=\"" << count << "\"><title>" << html_escape(names[t]) << " predicted as "
          << html_escape(names[p]) << ": " << count << "</title></rect>\n"
          << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell / 2
          << "\" text-anchor=\"middle\" dominant-baseline=\"middle\" style=\"fill:" << (share > 0.5 ? "#fff" : "#222")
          << "\">" << count << "</text>\n";
    }
  }
  out << "</svg>\n";
}

void scores(std::ostringstream& out, const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  out << "<table>\n<tr><th>class</th><th>precision</th><th>recall</th><th>f1</th><th>count</th></tr>\n";
  for (int64_t c = 0; c < matrix.num_classes(); ++c) {
    int64_t count = 0;
    for (int64_t n : matrix.counts()[c]) count += n;
    out << "<tr><td>" << html_escape(names[c]) << "</td><td>" << label(matrix.precision(c)) << "</td><td>"
        << label(matrix.recall(c)) << "</td><td>" << label(matrix.f1(c)) << "</td><td>" << count << "</td></tr>\n";
  }
  out << "<tr><th>macro</th><td>" << label(matrix.macro_precision()) << "</td><td>" << label(matrix.macro_recall())
      << "</td><td>" << label(matrix.macro_f1()) << "</td><td>" << matrix.total() << "</td></tr>\n</table>\n";
}

}  // namespace

std::string confusion_matrix_html(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names,
                                  const std::string& title) {
  const int64_t n = matrix.num_classes();
  STRATA_CHECK(n > 0, "confusion_matrix_html: the matrix has no classes yet (update it first)");
  STRATA_CHECK(class_names.empty() || static_cast<int64_t>(class_names.size()) == n, "confusion_matrix_html: ",
               class_names.size(), " class names for ", n, " classes");
  std::vector<std::string> names = class_names;
  for (int64_t c = static_cast<int64_t>(names.size()); c < n; ++c) names.push_back(std::to_string(c));
  int64_t right = 0;
  for (int64_t c = 0; c < n; ++c) right += matrix.counts()[c][c];
  std::ostringstream out;
  out << detail::page_head(title) << "<p>" << matrix.total() << " samples, accuracy "
      << label(matrix.total() == 0 ? 0.0 : static_cast<double>(right) / static_cast<double>(matrix.total()))
      << "</p>\n";
  heat_map(out, matrix, names);
  scores(out, matrix, names);
  out << "</body>\n</html>\n";
  return out.str();
}

void save_confusion_matrix_html(const ConfusionMatrix& matrix, const std::string& path,
                                const std::vector<std::string>& class_names, const std::string& title) {
  const std::string page = confusion_matrix_html(matrix, class_names, title);
  std::ofstream file(path, std::ios::trunc);
  STRATA_CHECK(file.good(), "save_confusion_matrix_html: cannot open '", path, "' for writing");
  file << page;
  file.close();
  STRATA_CHECK(!file.fail(), "save_confusion_matrix_html: writing '", path, "' failed");
}

}  // namespace strata::train
