// Training curves as a picture: a History written as one self-contained HTML page (no scripts,
// no network) with an inline SVG line chart per quantity — loss first, then each metric —
// training and validation per epoch, and a table of the numbers underneath.
//   train::save_history_html(history, "curves.html");
#pragma once
#include <string>

#include "strata/train/history.hpp"

namespace strata::train {

// The page as text. Each plotted point is an SVG <circle data-series="val_loss"
// data-epoch="3" data-value="0.125"> (epochs from 0), so tools can read the values back.
std::string history_html(const History& history, const std::string& title = "Training history");
// Writes history_html to `path`; throws strata::Error when the file cannot be written.
void save_history_html(const History& history, const std::string& path,
                       const std::string& title = "Training history");

}  // namespace strata::train
