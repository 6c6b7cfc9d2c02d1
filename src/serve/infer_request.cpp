#include "strata/serve/infer_request.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "strata/core/checked_size.hpp"
#include "strata/core/limits.hpp"
#include "strata/serve/datatype.hpp"
#include "strata/serve/request_error.hpp"

namespace strata::serve {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& what) { throw RequestError(400, what); }

const json* member(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// Element `i` of a JSON "data" array as T, refusing values of another kind or out of T's range.
template <class T>
T element(const json& value, size_t i, const std::string& input) {
  const auto wrong = [&](const char* expected) {
    refuse("input '" + input + "': data[" + std::to_string(i) + "] should be " + expected + ", got " + value.dump());
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) wrong("true or false");
    return value.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) wrong("a number");
    // FP32 data of 1e300 would be undefined behaviour to convert, not infinity.
    const double v = value.get<double>();
    if (std::fabs(v) > std::numeric_limits<T>::max()) wrong("a number in the datatype's range");
    return static_cast<T>(v);
  } else {
    if (value.is_number_unsigned()) {
      const auto v = value.get<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) wrong("an integer in the datatype's range");
      return static_cast<T>(v);
    }
    if (!value.is_number_integer()) wrong("an integer");
    const auto v = value.get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) || v > static_cast<int64_t>(std::numeric_limits<T>::max()))
      wrong("an integer in the datatype's range");
    return static_cast<T>(v);
  }
}

// The input's values from a JSON "data" array, counted before anything is allocated: the shape
// alone could ask for gigabytes that the request does not hold.
Tensor tensor_from_json(const json& data, const Shape& shape, DType dtype, int64_t numel, const std::string& input) {
  if (!data.is_array()) refuse("input '" + input + "': \"data\" should be a flat array of " + std::to_string(numel) + " values");
  if (data.size() != static_cast<size_t>(numel))
    refuse("input '" + input + "': shape " + shape.str() + " needs " + std::to_string(numel) +
           " values, \"data\" has " + std::to_string(data.size()));
  Tensor tensor = Tensor::empty(shape, dtype);
  dispatch_all(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = tensor.data<T>();
    for (size_t i = 0; i < data.size(); ++i) out[i] = element<T>(data[i], i, input);
  });
  return tensor;
}

// The input's shape as sent: the model's rank, its non-batch sizes, a batch of at least one.
Shape request_shape(const json& input, const TensorSignature& want) {
  const json* shape = member(input, "shape");
  std::vector<int64_t> dims;
  if (shape != nullptr && shape->is_array())
    for (const json& d : *shape) {
      if (!d.is_number_integer()) refuse("input '" + want.name + "': \"shape\" should hold integers, got " + shape->dump());
      dims.push_back(d.get<int64_t>());
    }
  bool ok = shape != nullptr && shape->is_array() && dims.size() == static_cast<size_t>(want.shape.size()) && dims[0] >= 1;
  for (size_t d = 1; ok && d < dims.size(); ++d) ok = dims[d] == want.shape[d];
  if (!ok)
    refuse("input '" + want.name + "': expected shape " + want.shape.str() + " (-1: a batch of 1 or more), got " +
           (shape == nullptr ? "none" : shape->dump()));
  return Shape(dims);
}

std::optional<uint64_t> binary_data_size(const json& entry, const std::string& name) {
  const json* parameters = member(entry, "parameters");
  if (parameters == nullptr) return std::nullopt;
  if (!parameters->is_object()) refuse("'" + name + "': \"parameters\" should be an object");
  const json* size = member(*parameters, "binary_data_size");
  if (size == nullptr) return std::nullopt;
  if (!size->is_number_unsigned()) refuse("'" + name + "': binary_data_size should be a byte count, got " + size->dump());
  return size->get<uint64_t>();
}

bool wants_binary(const json& entry, bool otherwise) {
  const json* parameters = member(entry, "parameters");
  if (parameters == nullptr || !parameters->is_object()) return otherwise;
  const json* binary = member(*parameters, "binary_data");
  return binary != nullptr && binary->is_boolean() ? binary->get<bool>() : otherwise;
}

std::string string_member(const json& object, const char* key, const std::string& where) {
  const json* value = member(object, key);
  if (value == nullptr || !value->is_string()) refuse(where + ": \"" + key + "\" should be a string");
  return value->get<std::string>();
}

// The index of the tensor an "inputs" or "outputs" entry names.
size_t named_tensor(const json& entry, const std::vector<TensorSignature>& tensors, const std::string& kind,
                    const std::string& model) {
  if (!entry.is_object()) refuse("each of \"" + kind + "s\" should be an object");
  const std::string name = string_member(entry, "name", "an " + kind);
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return i;
  refuse("model '" + model + "' has no " + kind + " named '" + name + "'");
}

// BOOL binary data is a byte per element, 0 or 1: any other byte would become a C++ bool that
// holds neither value, undefined behaviour for every op that reads it.
void check_bool_bytes(std::string_view bytes, const std::string& input) {
  for (size_t i = 0; i < bytes.size(); ++i)
    if (const auto byte = static_cast<unsigned char>(bytes[i]); byte > 1)
      refuse("input '" + input + "': BOOL binary data should hold bytes 0 or 1, element " + std::to_string(i) +
             " is " + std::to_string(byte));
}

// One "inputs" entry of the JSON header, checked against the model's input it names: binary
// inputs carry the bytes they take from what follows the header, JSON inputs their values.
struct HeaderInput {
  size_t index;  // into ServedVersion::inputs
  Shape shape;
  std::optional<size_t> binary_bytes;
  Tensor values;  // from "data", when not binary
};

HeaderInput read_input(const json& input, const TensorSignature& want, size_t index) {
  const std::string& name = want.name;
  const std::string datatype = string_member(input, "datatype", "input '" + name + "'");
  const auto dtype = dtype_of_datatype(datatype);
  if (!dtype || *dtype != want.dtype)
    refuse("input '" + name + "': expected datatype " + datatype_name(want.dtype) + ", got " + datatype);
  HeaderInput read{index, request_shape(input, want), std::nullopt, {}};
  const CheckedSize size = [&] {
    try {
      return checked_size(std::span<const int64_t>(read.shape.begin(), read.shape.end()), itemsize(want.dtype),
                          "input '" + name + "'");
    } catch (const Error& e) {
      refuse(e.what());
    }
  }();
  if (const auto bytes = binary_data_size(input, "input '" + name + "'")) {
    if (*bytes != size.bytes)
      refuse("input '" + name + "': shape " + read.shape.str() + " of " + datatype + " needs " +
             std::to_string(size.bytes) + " bytes, binary_data_size is " + std::to_string(*bytes));
    read.binary_bytes = size.bytes;
    return read;
  }
  const json* data = member(input, "data");
  if (data == nullptr) refuse("input '" + name + "' has neither \"data\" nor a binary_data_size parameter");
  read.values = tensor_from_json(*data, read.shape, want.dtype, size.numel, name);
  return read;
}

// A binary input's bytes, taken from the front of `binary`.
Tensor take_binary(const HeaderInput& input, const TensorSignature& want, std::string_view& binary) {
  const size_t bytes = *input.binary_bytes;
  if (bytes > binary.size())
    refuse("input '" + want.name + "': binary data truncated: needs " + std::to_string(bytes) + " bytes, " +
           std::to_string(binary.size()) + " remain in the body");
  if (want.dtype == kBool) check_bool_bytes(binary.substr(0, bytes), want.name);
  Tensor tensor = Tensor::empty(input.shape, want.dtype);  // its bytes are present: checked above
  std::memcpy(tensor.raw_data(), binary.data(), bytes);
  binary.remove_prefix(bytes);
  return tensor;
}

// What to answer with: "outputs" when given, else every output; binary where asked.
std::vector<RequestedOutput> parse_outputs(const json& request, const ServedVersion& model) {
  bool binary_default = false;  // Triton's request-level "binary_data_output" parameter
  if (const json* parameters = member(request, "parameters"); parameters != nullptr && parameters->is_object())
    if (const json* b = member(*parameters, "binary_data_output"); b != nullptr && b->is_boolean())
      binary_default = b->get<bool>();
  std::vector<RequestedOutput> wanted;
  const json* outputs = member(request, "outputs");
  if (outputs == nullptr) {
    for (size_t i = 0; i < model.outputs.size(); ++i) wanted.push_back({i, binary_default});
    return wanted;
  }
  if (!outputs->is_array()) refuse("\"outputs\" should be an array");
  for (const json& output : *outputs) {
    const size_t index = named_tensor(output, model.outputs, "output", model.name);
    // Each answered once: a 20-byte entry repeated would copy a whole output into the answer for
    // each repeat.
    for (const RequestedOutput& earlier : wanted)
      if (earlier.index == index) refuse("output '" + model.outputs[index].name + "' is asked for twice");
    wanted.push_back({index, wants_binary(output, binary_default)});
  }
  return wanted;
}

// What the JSON header asks, with every check that needs only the header made.
struct RequestHeader {
  std::string id;
  std::vector<HeaderInput> inputs;  // in the header's order, which binary data follows
  std::vector<RequestedOutput> outputs;
};

RequestHeader read_header(std::string_view text, const ServedVersion& model) {
  try {
    check_json_depth(text, "inference request");
  } catch (const LimitError& e) {
    refuse(e.what());
  }
  json request;
  try {
    request = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number out of range (1e999)
    refuse(std::string("the request is not valid JSON: ") + e.what());  // says at which byte
  }
  if (!request.is_object()) refuse("the request should be a JSON object");

  RequestHeader header;
  if (const json* id = member(request, "id")) {
    if (!id->is_string()) refuse("\"id\" should be a string");
    header.id = id->get<std::string>();
  }
  const json* inputs = member(request, "inputs");
  if (inputs == nullptr || !inputs->is_array()) refuse("the request needs an \"inputs\" array");
  std::vector<int64_t> batch(model.inputs.size(), 0);  // 0: not given (a given input's batch is at least 1)
  for (const json& input : *inputs) {
    const size_t index = named_tensor(input, model.inputs, "input", model.name);
    if (batch[index] != 0) refuse("input '" + model.inputs[index].name + "' is given twice");
    header.inputs.push_back(read_input(input, model.inputs[index], index));
    batch[index] = header.inputs.back().shape[0];
  }
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    if (batch[i] == 0) refuse("the request lacks input '" + model.inputs[i].name + "'");
    if (batch[i] != batch[0])
      refuse("input '" + model.inputs[i].name + "' has a batch of " + std::to_string(batch[i]) + ", input '" +
             model.inputs[0].name + "' of " + std::to_string(batch[0]));
  }
  header.outputs = parse_outputs(request, model);
  return header;
}

// The request: the header's inputs, binary ones taken in order from `binary`, which they must use
// up exactly.
InferRequest assemble(const RequestHeader& header, std::string_view binary, const ServedVersion& model) {
  InferRequest request{header.id, std::vector<Tensor>(model.inputs.size()), header.outputs};
  for (const HeaderInput& input : header.inputs)
    request.inputs[input.index] =
        input.binary_bytes ? take_binary(input, model.inputs[input.index], binary) : input.values;
  if (!binary.empty()) refuse(std::to_string(binary.size()) + " bytes after the inputs' binary data belong to no input");
  return request;
}

// The last header this thread read whose inputs are all binary, with the model signature it was
// read against. A client sending tensors of one shape sends the same header with every request
// (tritonclient, wrk), and reading it again cost about 5 of the 6-9 us that decoding an MLP's
// request took inside the server (docs/serving.md). It is reused only for the same bytes and a
// model of the same inputs and outputs: nothing else goes into a RequestHeader.
struct LastBinaryHeader {
  std::string text;
  std::vector<TensorSignature> inputs, outputs;
  RequestHeader header;
};
constexpr size_t kLastHeaderMaxBytes = 4096;  // a longer header is read each time, not kept

}  // namespace

InferRequest parse_infer_request(std::string_view body, std::optional<size_t> json_length, const ServedVersion& model) {
  const size_t header_bytes = json_length.value_or(body.size());
  if (header_bytes > body.size())
    refuse("Inference-Header-Content-Length is " + std::to_string(header_bytes) + " but the body has only " +
           std::to_string(body.size()) + " bytes");
  const std::string_view text = body.substr(0, header_bytes), binary = body.substr(header_bytes);
  thread_local std::optional<LastBinaryHeader> last;
  if (last && text == last->text && last->inputs == model.inputs && last->outputs == model.outputs)
    return assemble(last->header, binary, model);
  RequestHeader header = read_header(text, model);
  const bool all_binary = std::all_of(header.inputs.begin(), header.inputs.end(),
                                      [](const HeaderInput& input) { return input.binary_bytes.has_value(); });
  if (!all_binary || text.size() > kLastHeaderMaxBytes) return assemble(header, binary, model);
  last = LastBinaryHeader{std::string(text), model.inputs, model.outputs, std::move(header)};
  return assemble(last->header, binary, model);
}

}  // namespace strata::serve
