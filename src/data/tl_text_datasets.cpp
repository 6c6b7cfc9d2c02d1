#include "strata/data/tl_text_datasets.hpp"

#include <zlib.h>

#include <filesystem>

#include "ascii_text.hpp"
#include "file_bytes.hpp"
#include "io/zip_archive.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/atomic_file.hpp"

namespace strata::data {
namespace {

namespace fs = std::filesystem;

std::string expect_file(const fs::path& path, const char* what, const char* source) {
  STRATA_CHECK(fs::is_regular_file(path), what, ": expected the file ", path.string(), " (", source,
               "; nothing is downloaded)");
  return path.string();
}

// gunzip `gz` into `plain` (whole or not at all), bounded like any tensor read from a file.
void gunzip(const std::string& gz, const std::string& plain) {
  gzFile in = gzopen(gz.c_str(), "rb");
  STRATA_CHECK(in != nullptr, "WMT en-fr: cannot open ", gz);
  io::AtomicFile out(plain);
  char buffer[1 << 16];
  uint64_t total = 0;
  int n = 0;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) {
    total += uint64_t(n);
    if (total > limits().max_tensor_bytes) {
      gzclose(in);
      check_limit("WMT en-fr " + gz, "unpacked bytes", total, "max_tensor_bytes", limits().max_tensor_bytes);
    }
    out.write(buffer, size_t(n));
  }
  int err = Z_OK;
  const std::string message = n < 0 ? gzerror(in, &err) : "";
  gzclose(in);
  STRATA_CHECK(n == 0, "WMT en-fr: ", gz, " is not a whole gzip file (", message, ")");
  out.commit();
}

}  // namespace

std::vector<std::string> load_text8(const std::string& dir) {
  const std::string path = expect_file(fs::path(dir) / "text8.zip", "text8", "mattmahoney.net/dc/text8.zip");
  io::detail::ZipReader zip(path);
  STRATA_CHECK(!zip.entries().empty(), "text8: ", path, " holds no file");
  return detail::split_ascii_whitespace(zip.read(zip.entries().front()));
}

std::string load_nietzsche(const std::string& dir) {
  const std::string path =
      expect_file(fs::path(dir) / "nietzsche.txt", "Nietzsche", "s3.amazonaws.com/text-datasets/nietzsche.txt");
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "Nietzsche");
  return std::string(bytes.begin(), bytes.end());
}

WmtEnFr load_wmt_en_fr(const std::string& dir) {
  const fs::path root(dir);
  const std::string train = (root / "giga-fren.release2.fixed").string();
  for (const char* lang : {".en", ".fr"}) {
    const std::string plain = train + lang;
    if (!fs::is_regular_file(plain))
      gunzip(expect_file(plain + ".gz", "WMT en-fr", "training-giga-fren.tar from statmt.org/wmt10"), plain);
  }
  const std::string dev = (root / "newstest2013").string();
  for (const char* lang : {".en", ".fr"})
    expect_file(dev + lang, "WMT en-fr", "dev/ of dev-v2.tgz from statmt.org/wmt15");
  return {train, dev};
}

}  // namespace strata::data
