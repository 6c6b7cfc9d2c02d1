#include "strata/train/csv_logger.hpp"

#include <filesystem>

#include "number_text.hpp"
#include "strata/core/error.hpp"

namespace strata::train {

CSVLogger::CSVLogger(std::string path, char separator, bool append)
    : path_(std::move(path)), separator_(separator), append_(append) {}

void CSVLogger::on_train_begin() {
  std::error_code ec;
  header_written_ = append_ && std::filesystem::file_size(path_, ec) > 0 && !ec;
  columns_.clear();
  file_.open(path_, append_ ? std::ios::app : std::ios::trunc);
  STRATA_CHECK(file_.good(), "CSVLogger: cannot open '", path_, "' for writing");
}

void CSVLogger::on_epoch_end(int64_t epoch, Logs& logs) {
  if (columns_.empty())
    for (const auto& kv : logs) columns_.push_back(kv.first);
  if (!header_written_) {
    file_ << "epoch";
    for (const auto& c : columns_) file_ << separator_ << c;
    file_ << '\n';
    header_written_ = true;
  }
  file_ << epoch;
  for (const auto& c : columns_) {
    file_ << separator_;
    if (auto it = logs.find(c); it != logs.end()) file_ << detail::number_text(it->second);
  }
  file_ << '\n';
  file_.flush();  // a row per epoch survives a crash later in training
  STRATA_CHECK(file_.good(), "CSVLogger: writing '", path_, "' failed");
}

void CSVLogger::on_train_end(const Logs&) {
  if (file_.is_open()) file_.close();
}

}  // namespace strata::train
