// ProgressBar: a one-line progress display for loops over batches, like Keras's Progbar or tqdm:
//   epoch 1/5 [=========>....................]  150/469  312.4 it/s  00:00<00:01  loss 0.5123  acc 0.8214
#pragma once
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace strata::train {

using Metrics = std::vector<std::pair<std::string, double>>;

class ProgressBar {
 public:
  // How the bar is drawn: redraw rewrites one line with '\r' at most ~10 times a second (for a
  // terminal); lines prints a whole line at each 10% of the total (for logs and pipes); detect
  // picks redraw when `out` is std::cerr and stderr is a terminal, lines otherwise.
  enum class Mode { detect, redraw, lines };

  // `total` items are expected; total <= 0 means unknown (no bar, no ETA, a line every 100 items
  // in lines mode). The clock starts now.
  ProgressBar(int64_t total, std::string label = "", std::ostream& out = std::cerr, Mode mode = Mode::detect);
  ~ProgressBar();  // finishes the line if finish() was not called
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Counts n more items done; `metrics` (if any) replace the ones shown.
  void update(int64_t n = 1, const Metrics& metrics = {});
  // Draws the final state and ends the line; later calls do nothing.
  void finish(const Metrics& metrics = {});

  int64_t done() const { return done_; }
  bool redraws() const { return mode_ == Mode::redraw; }

  // The line drawn for `done` of `total` items after `elapsed_seconds` (no '\r' or newline).
  std::string format(int64_t done, int64_t total, double elapsed_seconds, const Metrics& metrics) const;
  // "mm:ss", or "h:mm:ss" from an hour on.
  static std::string format_duration(double seconds);

  static constexpr int kBarWidth = 30;
  static constexpr double kRedrawInterval = 0.1;  // seconds

 private:
  double elapsed() const;
  void draw(bool final);

  int64_t total_;
  std::string label_;
  std::ostream& out_;
  Mode mode_;
  std::chrono::steady_clock::time_point start_;
  int64_t done_ = 0;
  Metrics metrics_;
  double last_draw_ = -1;    // redraw mode: when the line was last drawn
  size_t last_width_ = 0;    // redraw mode: length of the last line, to blank its tail
  int64_t last_step_ = 0;    // lines mode: the last 10% step printed
  int64_t last_printed_ = -1;  // the count the last drawn line showed
  bool finished_ = false;
};

}  // namespace strata::train
