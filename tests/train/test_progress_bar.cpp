// ProgressBar: the formatted line as a function of counts and times, and what each mode writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "strata/train/progress_bar.hpp"

using strata::train::ProgressBar;
using Mode = ProgressBar::Mode;

namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

}  // namespace

TEST(ProgressBar, FormatsLabelBarCountRateTimesAndMetrics) {
  std::ostringstream out;
  ProgressBar pb(469, "epoch 1/5", out, Mode::lines);
  // 150/469 fills 9 of 30 cells; 150 / 0.4 s = 375 it/s; (469 - 150) / 375 = 0.85 s left.
  EXPECT_EQ(pb.format(150, 469, 0.4, {{"loss", 0.51234}, {"acc", 0.82141}}),
            "epoch 1/5 [========>.....................] 150/469  375 it/s  00:00<00:01  loss 0.5123  acc 0.8214");
  // Complete: a full bar and no ETA.
  EXPECT_EQ(pb.format(469, 469, 12.3, {}), "epoch 1/5 [==============================] 469/469  38.1 it/s  00:12");
  // The count is padded to the total's width so the line does not jump; 464 left at 2.5 it/s.
  EXPECT_EQ(pb.format(5, 469, 2.0, {}), "epoch 1/5 [..............................]   5/469  2.50 it/s  00:02<03:06");
  // Nothing done yet: rate and ETA unknown.
  EXPECT_EQ(pb.format(0, 469, 0.0, {}), "epoch 1/5 [..............................]   0/469  ? it/s  00:00<?");
}

TEST(ProgressBar, RateAndEtaArithmetic) {
  std::ostringstream out;
  ProgressBar pb(10, "", out, Mode::lines);
  // Slower than one item a second: seconds per item; 9 left at 4 s each.
  EXPECT_EQ(pb.format(1, 10, 4.0, {}), "[==>...........................]  1/10  4.00 s/it  00:04<00:36");
  // 5 of 10 in 1250 s: as long again to go, shown with hours.
  EXPECT_EQ(pb.format(5, 10, 1250, {}), "[==============>...............]  5/10  250.00 s/it  20:50<20:50");
  EXPECT_EQ(pb.format(9, 10, 3600 * 9, {}), "[==========================>...]  9/10  3600.00 s/it  9:00:00<1:00:00");
  // Unknown total: no bar, no ETA. Metric formatting switches to scientific for tiny values.
  ProgressBar open(0, "stream", out, Mode::lines);
  EXPECT_EQ(open.format(250, 0, 10.0, {{"loss", 1e-5}, {"lr", 0.0}, {"n", 123456.0}}),
            "stream 250  25.0 it/s  00:10  loss 1.000e-05  lr 0.0000  n 1.235e+05");
}

TEST(ProgressBar, FormatDuration) {
  EXPECT_EQ(ProgressBar::format_duration(0), "00:00");
  EXPECT_EQ(ProgressBar::format_duration(59.4), "00:59");
  EXPECT_EQ(ProgressBar::format_duration(59.6), "01:00");
  EXPECT_EQ(ProgressBar::format_duration(3725), "1:02:05");
  EXPECT_EQ(ProgressBar::format_duration(-1), "?");
  EXPECT_EQ(ProgressBar::format_duration(std::nan("")), "?");
  EXPECT_EQ(ProgressBar::format_duration(std::numeric_limits<double>::infinity()), "?");
}

TEST(ProgressBar, DetectsNonTerminalStreams) {
  std::ostringstream out;
  EXPECT_FALSE(ProgressBar(10, "", out).redraws());  // not std::cerr: never a terminal
  EXPECT_TRUE(ProgressBar(10, "", out, Mode::redraw).redraws());
}

TEST(ProgressBar, LinesModePrintsEveryTenth) {
  std::ostringstream out;
  {
    ProgressBar pb(100, "train", out, Mode::lines);
    for (int i = 0; i < 100; ++i) pb.update(1, {{"loss", 1.0 / (i + 1)}});
    pb.finish();  // the 100% line is already out: nothing more
  }
  const std::string text = out.str();
  EXPECT_FALSE(contains(text, "\r"));
  const auto lines = split_lines(text);
  ASSERT_EQ(lines.size(), 10u) << text;
  for (int k = 1; k <= 10; ++k) {
    const std::string count = (k < 10 ? " " : "") + std::to_string(10 * k) + "/100";
    EXPECT_TRUE(contains(lines[k - 1], "train [")) << lines[k - 1];
    EXPECT_TRUE(contains(lines[k - 1], count)) << lines[k - 1];
    EXPECT_TRUE(contains(lines[k - 1], "loss " + std::string(k == 10 ? "0.0100" : ""))) << lines[k - 1];
  }
}

TEST(ProgressBar, LinesModeWithBigStepsAndAnEarlyFinish) {
  std::ostringstream out;
  ProgressBar pb(100, "", out, Mode::lines);
  pb.update(25);
  pb.update(25);
  pb.update(5);  // 55%: still in the 50% tenth
  pb.finish({{"acc", 0.5}});
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 3u) << out.str();
  EXPECT_TRUE(contains(lines[0], " 25/100"));
  EXPECT_TRUE(contains(lines[1], " 50/100"));
  EXPECT_TRUE(contains(lines[2], " 55/100"));
  EXPECT_TRUE(contains(lines[2], "acc 0.5000"));
  pb.update(10);  // after finish: ignored
  pb.finish();
  EXPECT_EQ(split_lines(out.str()).size(), 3u);
}

TEST(ProgressBar, DestructorFinishesTheLine) {
  std::ostringstream out;
  { ProgressBar(100, "", out, Mode::lines).update(5); }
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(contains(lines[0], "  5/100"));
}

TEST(ProgressBar, RedrawModeRewritesOneLine) {
  std::ostringstream out;
  ProgressBar pb(1000, "fast", out, Mode::redraw);
  for (int i = 0; i < 1000; ++i) pb.update();
  pb.finish();
  const std::string text = out.str();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.front(), '\r');
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  // At most ~10 redraws a second: 1000 quick updates draw the first, the complete one and finish.
  const auto redraws = std::count(text.begin(), text.end(), '\r');
  EXPECT_GE(redraws, 2);
  EXPECT_LE(redraws, 10);
  const std::string last = text.substr(text.rfind('\r') + 1);
  EXPECT_TRUE(contains(last, "fast [==============================] 1000/1000")) << last;
}

TEST(ProgressBar, RedrawBlanksTheTailOfALongerLine) {
  std::ostringstream out;
  ProgressBar pb(2, "", out, Mode::redraw);
  pb.update(1, {{"a_long_metric_name", 1.0}});
  pb.update(1, {{"l", 1.0}});  // completes, so it draws despite the interval
  const std::string text = out.str();
  const auto second = text.rfind('\r');
  const std::string first_line = text.substr(1, second - 1), second_line = text.substr(second + 1);
  EXPECT_EQ(second_line.size(), first_line.size());
  EXPECT_EQ(second_line.back(), ' ');
  EXPECT_TRUE(contains(second_line, "l 1.0000"));
}
