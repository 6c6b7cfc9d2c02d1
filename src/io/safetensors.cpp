// safetensors writing and incremental reading, checked against the format's rules: the header
// is a JSON object, offsets lie inside the data, tensors are packed with no overlap and no hole,
// and each tensor's byte range matches its dtype and shape.
#include "strata/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/io/atomic_file.hpp"

namespace strata::io {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

// The Rust reference implementation refuses headers over 100 MB; so do we, before allocating.
constexpr uint64_t kMaxHeader = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct DTypeName {
  DType dtype;
  const char* name;
};
constexpr DTypeName kDTypes[] = {{kFloat32, "F32"}, {kFloat64, "F64"}, {kInt64, "I64"},    {kInt32, "I32"},
                                 {kUInt8, "U8"},    {kBool, "BOOL"},   {kBFloat16, "BF16"}};

DType dtype_from_name(const std::string& name, const std::string& where) {
  for (const auto& d : kDTypes)
    if (name == d.name) return d.dtype;
  throw Error(where + ": unsupported dtype \"" + name + "\" (expected F32, F64, I64, I32, U8, BOOL or BF16)");
}

// The JSON header, padded with spaces to a multiple of 8 so that the data is aligned, as
// Python's writer does; returned with its 8-byte length prefix.
std::string encode_header(const NamedTensors& tensors, const Metadata& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    STRATA_CHECK(t.defined(), "save_safetensors: tensor \"", name, "\" is undefined");
    STRATA_CHECK(name != kMetadataKey, "save_safetensors: \"", kMetadataKey, "\" is reserved, not a tensor name");
    STRATA_CHECK(seen.insert(name).second, "save_safetensors: tensor name \"", name, "\" appears twice");
    const uint64_t n = t.nbytes();
    header[name] = {{"dtype", safetensors_dtype(t.dtype())},
                    {"shape", t.shape().vec()},
                    {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("save_safetensors: a tensor name or metadata string is not valid UTF-8 (") + e.what() + ")");
  }
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = json.size();
  std::memcpy(out.data(), &n, 8);
  return out + json;
}

}  // namespace

const char* safetensors_dtype(DType dtype) {
  for (const auto& d : kDTypes)
    if (d.dtype == dtype) return d.name;
  throw Error(std::string("safetensors: no safetensors dtype for ") + dtype_name(dtype));
}

void write_safetensors(const NamedTensors& tensors, const Metadata& metadata, const ByteSink& sink) {
  const std::string header = encode_header(tensors, metadata);
  sink(header.data(), header.size());
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    const Tensor c = t.is_contiguous() ? t : t.contiguous();
    sink(static_cast<const char*>(c.raw_data()), c.nbytes());
  }
}

uint64_t safetensors_size(const NamedTensors& tensors, const Metadata& metadata) {
  uint64_t n = encode_header(tensors, metadata).size();
  for (const auto& [name, t] : tensors) n += t.nbytes();
  return n;
}

std::string to_safetensors(const NamedTensors& tensors, const Metadata& metadata) {
  std::string out;
  out.reserve(safetensors_size(tensors, metadata));
  write_safetensors(tensors, metadata, [&](const char* p, size_t n) { out.append(p, n); });
  return out;
}

void save_safetensors(const std::string& path, const NamedTensors& tensors, const Metadata& metadata) {
  AtomicFile file(path);  // a failed save leaves the previous file whole (errors name the path)
  write_safetensors(tensors, metadata, [&](const char* p, size_t n) { file.write(p, n); });
  file.commit();
}

// ---------------------------------------------------------------------------------------------

SafetensorsDecoder::SafetensorsDecoder(std::string source, uint64_t total_size)
    : source_(std::move(source)), total_size_(total_size) {}

void SafetensorsDecoder::feed(const char* data, size_t n) {
  while (!parsed_ && n > 0) {
    const size_t want = (head_.size() < 8 ? 8 : 8 + header_len_) - head_.size();
    const size_t take = std::min(want, n);
    head_.append(data, take);
    data += take;
    n -= take;
    if (head_.size() == 8 && header_len_ == 0) {
      std::memcpy(&header_len_, head_.data(), 8);
      STRATA_CHECK(header_len_ > 0, source_, ": header length is 0, expected a JSON object");
      STRATA_CHECK(header_len_ <= kMaxHeader, source_, ": header length ", std::to_string(header_len_),
                   " is larger than the ", std::to_string(kMaxHeader), "-byte limit");
      STRATA_CHECK(total_size_ == kUnknownSize || 8 + header_len_ <= total_size_, source_, ": header length ",
                   std::to_string(header_len_), " runs past the end of the ", std::to_string(total_size_),
                   "-byte input");
    }
    if (head_.size() == 8 + header_len_ && header_len_ > 0) parse_header();
  }
  if (n == 0) return;
  STRATA_CHECK(received_ + n <= data_len_, source_, ": ", std::to_string(received_ + n - data_len_),
               " bytes after the last tensor (the header accounts for ", std::to_string(data_len_), " data bytes)");
  while (n > 0) {
    while (current_ < entries_.size() && received_ >= entries_[current_].end) ++current_;
    Entry& e = entries_[current_];
    const size_t take = std::min<uint64_t>(n, e.end - received_);
    std::memcpy(static_cast<char*>(e.tensor.raw_data()) + (received_ - e.begin), data, take);
    data += take;
    n -= take;
    received_ += take;
  }
}

void SafetensorsDecoder::parse_header() {
  parsed_ = true;
  const auto json = nlohmann::json::parse(head_.begin() + 8, head_.end(), nullptr, /*allow_exceptions=*/false);
  STRATA_CHECK(!json.is_discarded(), source_, ": the header is not valid JSON");
  STRATA_CHECK(json.is_object(), source_, ": the header is JSON but not an object");
  const auto u64 = [](const nlohmann::json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0); };
  for (const auto& [name, v] : json.items()) {
    const std::string where = source_ + ": tensor \"" + name + "\"";
    if (name == kMetadataKey) {
      STRATA_CHECK(v.is_object(), source_, ": \"__metadata__\" must be an object of strings");
      for (const auto& [k, s] : v.items()) {
        STRATA_CHECK(s.is_string(), source_, ": metadata \"", k, "\" is not a string");
        metadata_[k] = s.get<std::string>();
      }
      continue;
    }
    STRATA_CHECK(v.is_object(), where, ": expected an object with dtype, shape and data_offsets");
    STRATA_CHECK(v.contains("dtype") && v["dtype"].is_string(), where, ": missing or non-string \"dtype\"");
    STRATA_CHECK(v.contains("shape") && v["shape"].is_array(), where, ": missing or non-array \"shape\"");
    const auto& offs = v.contains("data_offsets") ? v["data_offsets"] : nlohmann::json();
    STRATA_CHECK(offs.is_array() && offs.size() == 2 && u64(offs[0]) && u64(offs[1]), where,
                 ": \"data_offsets\" must be [begin, end] of non-negative integers");
    const DType dtype = dtype_from_name(v["dtype"].get<std::string>(), where);
    std::vector<uint64_t> dims;
    for (const auto& d : v["shape"]) {
      STRATA_CHECK(u64(d), where, ": shape entries must be non-negative integers, got ", d.dump());
      dims.push_back(d.get<uint64_t>());
    }
    const CheckedSize checked = checked_size(dims, itemsize(dtype), where);
    const uint64_t begin = offs[0].get<uint64_t>(), end = offs[1].get<uint64_t>();
    STRATA_CHECK(begin <= end, where, ": data_offsets [", std::to_string(begin), ", ", std::to_string(end),
                 "] end before they begin");
    STRATA_CHECK(end - begin == checked.bytes, where, ": shape ", checked.shape.str(), " of ", v["dtype"].get<std::string>(),
                 " needs ", std::to_string(checked.bytes), " bytes, data_offsets give ", std::to_string(end - begin));
    entries_.push_back({name, checked.shape.vec(), dtype, Tensor(), begin, end});
  }
  // Entries in data order; the data is packed: each begins where the previous ended.
  std::vector<size_t> order(entries_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(entries_[a].begin, entries_[a].end) < std::tie(entries_[b].begin, entries_[b].end);
  });
  uint64_t at = 0;
  for (size_t i : order) {
    const Entry& e = entries_[i];
    STRATA_CHECK(e.begin >= at, source_, ": tensor \"", e.name, "\" data_offsets [", std::to_string(e.begin), ", ",
                 std::to_string(e.end), "] overlap the previous tensor, which ends at ", std::to_string(at));
    STRATA_CHECK(e.begin == at, source_, ": a hole of ", std::to_string(e.begin - at), " bytes before tensor \"",
                 e.name, "\" (data must be packed)");
    at = e.end;
  }
  data_len_ = at;
  if (total_size_ != kUnknownSize)
    STRATA_CHECK(8 + header_len_ + data_len_ == total_size_, source_, ": the header's data_offsets end at ",
                 std::to_string(data_len_), " but the input has ", std::to_string(total_size_ - 8 - header_len_),
                 " data bytes");
  std::vector<Entry> sorted;
  sorted.reserve(entries_.size());
  for (size_t i : order) {
    Entry e = std::move(entries_[i]);
    e.tensor = Tensor::empty(Shape(e.dims), e.dtype);  // allocated only once the header checks out
    sorted.push_back(std::move(e));
  }
  entries_ = std::move(sorted);
  head_.clear();
  head_.shrink_to_fit();
}

Safetensors SafetensorsDecoder::finish() {
  STRATA_CHECK(head_.size() >= 8 || parsed_, source_, ": truncated: ", std::to_string(head_.size()),
               " bytes, expected at least the 8-byte header length");
  STRATA_CHECK(parsed_, source_, ": truncated: the header is ", std::to_string(header_len_), " bytes, only ",
               std::to_string(head_.size() - 8), " present");
  STRATA_CHECK(received_ == data_len_, source_, ": truncated: ", std::to_string(received_), " of ",
               std::to_string(data_len_), " data bytes present");
  Safetensors out;
  out.metadata = std::move(metadata_);
  for (auto& e : entries_) {
    if (e.tensor.dtype() == kBool) {
      const auto* p = static_cast<const uint8_t*>(e.tensor.raw_data());
      for (int64_t i = 0; i < e.tensor.numel(); ++i)
        STRATA_CHECK(p[i] <= 1, source_, ": tensor \"", e.name, "\" is BOOL but holds the byte ", std::to_string(p[i]));
    }
    out.tensors.emplace_back(std::move(e.name), std::move(e.tensor));
  }
  entries_.clear();
  return out;
}

Safetensors from_safetensors(std::string_view bytes) {
  SafetensorsDecoder d("from_safetensors", bytes.size());
  d.feed(bytes.data(), bytes.size());
  return d.finish();
}

Safetensors load_safetensors(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  STRATA_CHECK(f.good(), "load_safetensors: cannot open ", path);
  const uint64_t size = static_cast<uint64_t>(f.tellg());
  f.seekg(0);
  SafetensorsDecoder d("load_safetensors: " + path, size);
  // At least one byte: a zero-sized read never reaches end-of-file (an empty file would spin).
  std::vector<char> buf(std::max<uint64_t>(1, std::min<uint64_t>(size, 4 << 20)));
  while (f) {
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (f.gcount() > 0) d.feed(buf.data(), static_cast<size_t>(f.gcount()));
  }
  return d.finish();
}

}  // namespace strata::io
