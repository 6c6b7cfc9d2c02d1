#include "strata/train/history_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "html_text.hpp"
#include "number_text.hpp"
#include "strata/core/error.hpp"

namespace strata::train {

namespace {

using detail::fixed;
using detail::html_escape;
using detail::label;

constexpr double kWidth = 640, kHeight = 300;
constexpr double kLeft = 60, kRight = 20, kTop = 30, kBottom = 40;
constexpr const char* kTrainColor = "#1f77b4";
constexpr const char* kValColor = "#ff7f0e";

// About five round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double& lo, double& hi) {
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    const double pad = std::max(std::fabs(hi) * 0.1, 1e-3);
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;
  std::vector<double> ticks;
  for (double t = lo; t <= hi + step * 1e-6; t += step) ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

struct Series {
  std::string key;
  const std::vector<double>* values;
  const char* color;
  bool dashed;
};

// One chart: the quantity `name` (e.g. "loss") for training and, when recorded, validation.
void chart(std::ostringstream& out, const History& history, const std::string& name) {
  std::vector<Series> series = {{name, &history[name], kTrainColor, false}};
  if (history.contains("val_" + name)) series.push_back({"val_" + name, &history["val_" + name], kValColor, true});

  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series)
    for (double v : *s.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;  // nothing finite to plot: an empty frame
  const std::vector<double> ticks = nice_ticks(lo, hi);

  const int64_t epochs = history.epochs();
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](int64_t e) { return kLeft + (epochs <= 1 ? plot_w / 2 : plot_w * e / (epochs - 1)); };
  auto y_of = [&](double v) { return kTop + plot_h * (hi - v) / (hi - lo); };

  out << "<h2>" << html_escape(name) << "</h2>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\" data-chart=\"" << html_escape(name) << "\">\n"
      << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"#ccc\"/>\n";
  for (double t : ticks) {
    const std::string y = fixed(y_of(t));
    out << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#eee\"/><text x=\"" << kLeft - 6 << "\" y=\"" << y
        << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << label(t) << "</text>\n";
  }
  const int64_t every = std::max<int64_t>(1, (epochs + 9) / 10);  // at most ~10 epoch labels
  for (int64_t e = 0; e < epochs; e += every)
    out << "<text x=\"" << fixed(x_of(e)) << "\" y=\"" << kTop + plot_h + 18 << "\" text-anchor=\"middle\">" << e + 1
        << "</text>\n";
  out << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 4 << "\" text-anchor=\"middle\">epoch</text>\n";

  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    // A NaN (say, a validation pass that did not run) breaks the line instead of dropping to 0.
    std::string points;
    auto flush_line = [&] {
      if (!points.empty())
        out << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"2\""
            << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << " data-series=\"" << html_escape(s.key) << "\" points=\""
            << points << "\"/>\n";
      points.clear();
    };
    for (int64_t e = 0; e < epochs; ++e) {
      const double v = (*s.values)[e];
      if (!std::isfinite(v)) {
        flush_line();
        continue;
      }
      if (!points.empty()) points += ' ';
      points += fixed(x_of(e)) + "," + fixed(y_of(v));
    }
    flush_line();
    for (int64_t e = 0; e < epochs; ++e) {
      const double v = (*s.values)[e];
      if (!std::isfinite(v)) continue;
      out << "<circle cx=\"" << fixed(x_of(e)) << "\" cy=\"" << fixed(y_of(v)) << "\" r=\"3\" fill=\"" << s.color
          << "\" data-series=\"" << html_escape(s.key) << "\" data-epoch=\"" << e << "\" data-value=\""
          << detail::number_text(v) << "\"><title>" << html_escape(s.key) << ", epoch " << e + 1 << ": " << label(v)
          << "</title></circle>\n";
    }
    const double lx = kLeft + plot_w - 190 + 80 * static_cast<double>(i), ly = 16;
    out << "<line x1=\"" << lx << "\" x2=\"" << lx + 20 << "\" y1=\"" << ly << "\" y2=\"" << ly << "\" stroke=\""
        << s.color << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/><text x=\""
        << lx + 24 << "\" y=\"" << ly << "\" dominant-baseline=\"middle\">" << (i == 0 ? "train" : "validation")
        << "</text>\n";
  }
  out << "</svg>\n";
}

// Quantities to chart: loss first, then each metric, by their training key.
std::vector<std::string> quantities(const History& history) {
  std::vector<std::string> names;
  auto add = [&](const std::string& key) {
    if (key != "lr" && std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
  };
  if (history.contains("loss")) add("loss");
  for (const auto& kv : history.values())
    if (!kv.first.starts_with("val_")) add(kv.first);
  return names;
}

void table(std::ostringstream& out, const History& history) {
  out << "<table>\n<tr><th>epoch</th>";
  for (const auto& kv : history.values()) out << "<th>" << html_escape(kv.first) << "</th>";
  out << "</tr>\n";
  for (int64_t e = 0; e < history.epochs(); ++e) {
    out << "<tr><td>" << e + 1 << "</td>";
    for (const auto& kv : history.values()) out << "<td>" << label(kv.second[e]) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

std::string history_html(const History& history, const std::string& title) {
  std::ostringstream out;
  out << detail::page_head(title) << "<p>" << history.epochs() << " epochs</p>\n";
  for (const std::string& name : quantities(history)) chart(out, history, name);
  table(out, history);
  out << "</body>\n</html>\n";
  return out.str();
}

void save_history_html(const History& history, const std::string& path, const std::string& title) {
  std::ofstream file(path, std::ios::trunc);
  STRATA_CHECK(file.good(), "save_history_html: cannot open '", path, "' for writing");
  file << history_html(history, title);
  file.close();
  STRATA_CHECK(!file.fail(), "save_history_html: writing '", path, "' failed");
}

}  // namespace strata::train
