// cache(path) for datasets and streams: the examples go to a file once (example_file.hpp), and
// every later pass, in this process or another, reads the file.
#include <filesystem>
#include <mutex>

#include "example_file.hpp"
#include "strata/data/dataset.hpp"

namespace strata::data {

namespace {

Reader read_file(const std::string& path) {
  auto file = std::make_shared<detail::ExampleFileReader>(path);
  auto pos = std::make_shared<int64_t>(0);
  return Reader([file, pos]() -> std::optional<Example> {
    if (*pos == file->size()) return std::nullopt;
    return file->read((*pos)++);
  });
}

}  // namespace

Stream Stream::cache(const std::string& path) const {
  Stream src = *this;
  return Stream([src, path] {
    if (std::filesystem::exists(path)) return read_file(path);
    auto reader = std::make_shared<Reader>(src.open());
    auto writer = std::make_shared<detail::ExampleFileWriter>(path);
    return Reader([reader, writer]() -> std::optional<Example> {
      auto ex = reader->next();
      if (ex) writer->write(*ex);
      else writer->commit();
      return ex;
    });
  });
}

Dataset Dataset::cache(const std::string& path) const {
  struct State {
    std::mutex mutex;
    std::shared_ptr<const detail::ExampleFileReader> file;
  };
  auto state = std::make_shared<State>();
  Dataset src = *this;
  const int64_t chunk = std::max<int64_t>(impl_->read_ahead, 64);
  // The first read writes the whole dataset (chunk by chunk, so a parallel map runs in
  // parallel); reads then come from the file.
  auto file = [src, state, path, chunk] {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->file) return state->file;
    if (!std::filesystem::exists(path)) {
      detail::ExampleFileWriter writer(path);
      for (int64_t start = 0; start < src.size(); start += chunk) {
        std::vector<int64_t> indices;
        for (int64_t i = start; i < std::min(start + chunk, src.size()); ++i) indices.push_back(i);
        for (const Example& ex : src.get_many(indices)) writer.write(ex);
      }
      writer.commit();
    }
    auto reader = std::make_shared<const detail::ExampleFileReader>(path);
    STRATA_CHECK(reader->size() == src.size(), "Dataset::cache: ", path, " holds ", reader->size(),
                 " examples but the dataset has ", src.size(), " (a cache of other data? delete it to recompute)");
    state->file = reader;
    return state->file;
  };
  return Dataset(size(), [file](int64_t i) { return file()->read(i); });
}

}  // namespace strata::data
