#include "strata/serve/infer_response.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "strata/serve/datatype.hpp"

namespace strata::serve {
namespace {

// The response is written as text, not built as a JSON document first: a document holds a
// 16-byte value per element (plus its array's growth), so a large output asked for as JSON cost
// about 40 bytes per element before a byte was sent (a 20,000 x 784 output: 630 MB).

// A JSON string, quoted and escaped; bytes that are not UTF-8 (a hub model's name may hold
// them) become U+FFFD.
void append_string(std::string& out, const std::string& text) {
  out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One element: the shortest text that reads back as the same value of its type (a float as a
// float: 0.1f is "0.1"). A float always reads as one ("2.0", not "2"): JSON readers take "-0" for
// the integer 0, losing the sign. JSON has no NaN or infinity: those are null, as nlohmann
// writes them.
template <class T>
void append_value(std::string& out, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    out += value ? "true" : "false";
  } else {
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(value)) {
        out += "null";
        return;
      }
    }
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out.append(text, end);
    if constexpr (std::is_floating_point_v<T>)
      if (std::find_if(text, end, [](char c) { return c == '.' || c == 'e'; }) == end) out += ".0";
  }
}

void append_data(std::string& out, const Tensor& tensor) {
  dispatch_all(tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* values = tensor.data<T>();
    out += '[';
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      if (i > 0) out += ',';
      append_value(out, values[i]);
    }
    out += ']';
  });
}

void append_shape(std::string& out, const Shape& shape) {
  out += '[';
  for (int d = 0; d < shape.size(); ++d) {
    if (d > 0) out += ',';
    append_value(out, shape[d]);
  }
  out += ']';
}

}  // namespace

InferResponse encode_infer_response(const ServedVersion& model, const InferRequest& request,
                                    const std::vector<Tensor>& outputs) {
  InferResponse encoded;
  std::string& out = encoded.body;
  std::string binary;
  out += R"({"model_name":)";
  append_string(out, model.name);
  out += R"(,"model_version":)";
  append_string(out, std::to_string(model.version));
  if (!request.id.empty()) {
    out += R"(,"id":)";
    append_string(out, request.id);
  }
  out += R"(,"outputs":[)";
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const RequestedOutput& wanted = request.outputs[i];
    const Tensor tensor = outputs.at(wanted.index).contiguous();
    out += i > 0 ? R"(,{"name":)" : R"({"name":)";
    append_string(out, model.outputs[wanted.index].name);
    out += R"(,"datatype":)";
    append_string(out, datatype_name(tensor.dtype()));
    out += R"(,"shape":)";
    append_shape(out, tensor.shape());
    if (wanted.binary) {
      out += R"(,"parameters":{"binary_data_size":)";
      append_value(out, static_cast<uint64_t>(tensor.nbytes()));
      out += '}';
      binary.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
    } else {
      out += R"(,"data":)";
      append_data(out, tensor);
    }
    out += '}';
  }
  out += "]}";
  if (std::any_of(request.outputs.begin(), request.outputs.end(), [](const RequestedOutput& o) { return o.binary; })) {
    encoded.json_length = out.size();
    out += binary;
  }
  return encoded;
}

}  // namespace strata::serve
