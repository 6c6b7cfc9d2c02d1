#include "strata/train/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata::train {
namespace {

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Four decimals like Keras where that reads well; scientific for tiny or huge values.
std::string format_metric(double v) {
  const double a = std::fabs(v);
  return printf_string(v == 0 || (a >= 1e-3 && a < 1e5) ? "%.4f" : "%.3e", v);
}

// Items per second with three significant digits; seconds per item when slower than one a second.
std::string format_rate(int64_t done, double elapsed) {
  if (done <= 0 || elapsed <= 0) return "? it/s";
  const double rate = done / elapsed;
  if (rate < 1) return printf_string("%.2f s/it", 1 / rate);
  return printf_string(rate >= 100 ? "%.0f it/s" : rate >= 10 ? "%.1f it/s" : "%.2f it/s", rate);
}

std::string bar(int64_t done, int64_t total, int width) {
  const int64_t filled = std::min<int64_t>(width, done * width / total);
  std::string s(width, '.');
  std::fill_n(s.begin(), filled, '=');
  if (filled > 0 && filled < width) s[filled - 1] = '>';
  return "[" + s + "]";
}

}  // namespace

ProgressBar::ProgressBar(int64_t total, std::string label, std::ostream& out, Mode mode)
    : total_(total), label_(std::move(label)), out_(out), mode_(mode), start_(std::chrono::steady_clock::now()) {
  if (mode_ == Mode::detect) mode_ = (&out_ == &std::cerr && ::isatty(STDERR_FILENO)) ? Mode::redraw : Mode::lines;
}

ProgressBar::~ProgressBar() {
  try {
    finish();
  } catch (...) {  // a failing stream must not escape a destructor
  }
}

double ProgressBar::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(int64_t n, const Metrics& metrics) {
  if (finished_) return;
  done_ += n;
  if (!metrics.empty()) metrics_ = metrics;
  if (mode_ == Mode::redraw) {
    const bool complete = total_ > 0 && done_ >= total_;
    if (complete || elapsed() - last_draw_ >= kRedrawInterval || last_draw_ < 0) draw(false);
    return;
  }
  // Lines mode: one line each time the count crosses a tenth of the total (or 100 items).
  const int64_t step = total_ > 0 ? done_ * 10 / total_ : done_ / 100;
  if (step > last_step_) {
    last_step_ = step;
    draw(false);
  }
}

void ProgressBar::finish(const Metrics& metrics) {
  if (finished_) return;
  finished_ = true;
  if (!metrics.empty()) metrics_ = metrics;
  // In lines mode the last line may already show the final count and metrics.
  if (mode_ == Mode::redraw || last_printed_ != done_ || !metrics.empty()) draw(true);
  if (mode_ == Mode::redraw) out_ << '\n';
  out_.flush();
}

void ProgressBar::draw(bool final) {
  const double now = elapsed();
  std::string line = format(done_, total_, now, metrics_);
  last_printed_ = done_;
  if (mode_ == Mode::lines) {
    out_ << line << '\n';
  } else {
    const size_t width = line.size();
    if (width < last_width_) line.append(last_width_ - width, ' ');  // blank the old line's tail
    last_width_ = width;
    last_draw_ = now;
    out_ << '\r' << line;
  }
  if (!final) out_.flush();
}

std::string ProgressBar::format(int64_t done, int64_t total, double elapsed_seconds, const Metrics& metrics) const {
  std::string s = label_;
  if (!s.empty()) s += ' ';
  const std::string count = std::to_string(done);
  if (total > 0) {
    const std::string of = std::to_string(total);
    s += bar(done, total, kBarWidth) + ' ';
    s += std::string(of.size() > count.size() ? of.size() - count.size() : 0, ' ') + count + '/' + of;
  } else {
    s += count;
  }
  s += "  " + format_rate(done, elapsed_seconds) + "  " + format_duration(elapsed_seconds);
  if (total > 0 && done < total) {
    // Remaining items at the mean rate so far.
    s += '<' + (done > 0 && elapsed_seconds > 0 ? format_duration((total - done) * elapsed_seconds / done) : "?");
  }
  for (const auto& [name, value] : metrics) s += "  " + name + ' ' + format_metric(value);
  return s;
}

std::string ProgressBar::format_duration(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds)) return "?";
  const auto total = static_cast<int64_t>(std::llround(seconds));
  const int64_t h = total / 3600, m = total / 60 % 60, sec = total % 60;
  char buf[48];
  if (h > 0) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)h, (long long)m, (long long)sec);
  else std::snprintf(buf, sizeof buf, "%02lld:%02lld", (long long)m, (long long)sec);
  return buf;
}

}  // namespace strata::train
