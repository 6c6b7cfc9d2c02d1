// safetensors: Hugging Face's weight format, read and written exactly to its spec: an 8-byte
// little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}, optional
// "__metadata__": {str: str}}, then the tensors' raw little-endian bytes, packed without holes.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::io {

// Tensors in file order (a name appears once).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::map<std::string, std::string>;

struct Safetensors {
  NamedTensors tensors;  // in the order of their data in the file
  Metadata metadata;
};

// "F32", "F64", "I64", "I32", "U8", "BOOL": safetensors' names for Strata's dtypes.
const char* safetensors_dtype(DType dtype);

// --- writing ---
// Calls sink(data, n) with the header, then each tensor's bytes in order; a contiguous tensor
// is passed straight from its storage, so a big model is never copied whole.
using ByteSink = std::function<void(const char* data, size_t n)>;
void write_safetensors(const NamedTensors& tensors, const Metadata& metadata, const ByteSink& sink);
// The total size write_safetensors produces, without producing it.
uint64_t safetensors_size(const NamedTensors& tensors, const Metadata& metadata = {});
std::string to_safetensors(const NamedTensors& tensors, const Metadata& metadata = {});
void save_safetensors(const std::string& path, const NamedTensors& tensors, const Metadata& metadata = {});

// --- reading ---
// Takes the bytes of one file in pieces of any size and builds its tensors as they come, so a
// reader holds the tensors and one piece, never the whole file twice. Throws strata::Error
// naming what is wrong (truncated, bad header, offsets, dtype, sizes); `source` names the input.
class SafetensorsDecoder {
 public:
  // total_size, when known, lets the header be checked against it before tensors are allocated.
  explicit SafetensorsDecoder(std::string source = "safetensors", uint64_t total_size = kUnknownSize);
  static constexpr uint64_t kUnknownSize = ~uint64_t{0};
  void feed(const char* data, size_t n);
  Safetensors finish();  // checks that the input ended where the header said

 private:
  struct Entry {
    std::string name;
    std::vector<int64_t> dims;
    DType dtype;
    Tensor tensor;
    uint64_t begin, end;
  };
  void parse_header();

  std::string source_;
  uint64_t total_size_;
  std::string head_;  // the length prefix and JSON header until parsed
  uint64_t header_len_ = 0;
  bool parsed_ = false;
  std::vector<Entry> entries_;  // sorted by offset
  Metadata metadata_;
  uint64_t data_len_ = 0;  // the data bytes the header accounts for
  uint64_t received_ = 0;  // data bytes received so far
  size_t current_ = 0;     // the entry the next data byte belongs to
};

Safetensors from_safetensors(std::string_view bytes);
Safetensors load_safetensors(const std::string& path);

}  // namespace strata::io
