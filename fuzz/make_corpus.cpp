// Writes the fuzz targets' seed corpora: small valid inputs, one folder per target, made with
// Strata's own writers where it has one (so a seed is what Strata and NumPy/Keras-compatible
// tools produce) and by hand for the text and raw formats. The output is committed as
// fuzz/corpus/; rerun after a format changes:
//   cmake --build build-sanitize --target fuzz_make_corpus && build-sanitize/fuzz/fuzz_make_corpus fuzz/corpus
// Crash inputs (corpus/<target>/crash-*) are not written here: they are kept as found.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/npz.hpp"
#include "strata/io/pickle.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/nn/nn.hpp"

namespace fs = std::filesystem;
using namespace strata;

namespace {

fs::path out_dir;

void write(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(out_dir / target);
  std::ofstream(out_dir / target / name, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string bytes_of(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

std::string read_back(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Writers that take a path write into a scratch file; the seed is its bytes.
template <class WriteFile>
std::string via_file(const std::string& suffix, WriteFile&& write_file) {
  const fs::path scratch = fs::temp_directory_path() / ("strata-make-corpus" + suffix);
  write_file(scratch.string());
  std::string bytes = read_back(scratch);
  fs::remove(scratch);
  return bytes;
}

void safetensors_seeds() {
  write("safetensors", "f32.safetensors", io::to_safetensors({{"w", from_vector<float>({1, -2, 3.5f})}}));
  write("safetensors", "mixed.safetensors",
        io::to_safetensors({{"ids", from_vector<int64_t>({1, 2, 3, 4}, {2, 2})},
                            {"pixels", from_vector<uint8_t>({0, 127, 255})},
                            {"mask", from_vector<bool>({true, false})},
                            {"scale", from_vector<double>({0.5}, Shape{})},
                            {"count", from_vector<int32_t>({7})}},
                           {{"format", "pt"}}));
  write("safetensors", "empty.safetensors", io::to_safetensors({}));
}

void npy_seeds() {
  write("npy", "f32_2x3.npy", io::encode_npy(from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})));
  write("npy", "i64.npy", io::encode_npy(from_vector<int64_t>({-1, 0, 1})));
  write("npy", "bool.npy", io::encode_npy(from_vector<bool>({true, false, true})));
  write("npy", "u8_scalar.npy", io::encode_npy(from_vector<uint8_t>({9}, Shape{})));
  // The two layouts only standalone .npy files may have: Fortran order and big-endian.
  std::string fortran = io::encode_npy_header("<f4", {2, 2});
  fortran.replace(fortran.find("False"), 5, "True ");
  const float f[] = {1, 2, 3, 4};
  write("npy", "fortran_f4.npy", fortran + std::string(reinterpret_cast<const char*>(f), sizeof f));
  write("npy", "big_endian_i4.npy", io::encode_npy_header(">i4", {2}) + std::string("\0\0\0\1\0\0\1\0", 8));
}

void npz_and_pickle_seeds() {
  const io::NamedTensors arrays = {{"x", from_vector<float>({1, 2, 3, 4}, {2, 2})}, {"y", from_vector<int64_t>({0, 1})}};
  write("npz", "stored.npz", via_file(".npz", [&](const std::string& p) { io::save_npz(p, arrays); }));
  write("npz", "deflated.npz", via_file(".npz", [&](const std::string& p) { io::save_npz(p, arrays, true); }));
  // TensorLayer's save_npz: a pickled object array of weights under "params".
  const std::vector<Tensor> weights = {from_vector<float>({0.5f, -1, 2, 0}, {2, 2}), from_vector<float>({0, 1}),
                                       from_vector<int32_t>({3})};
  write("npz", "tensorlayer_list.npz", via_file(".npz", [&](const std::string& p) { io::save_npz_list(p, weights); }));
  write("pickle", "arrays.pkl", io::pickle_arrays(weights));
  write("pickle", "one_array.pkl", io::pickle_arrays({from_vector<double>({1.5, 2.5, 3.5}, {3, 1})}));
}

void hdf5_seeds() {
  const std::vector<io::LayerWeights> layers = {
      {"dense", {{"dense/kernel:0", from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})}, {"dense/bias:0", from_vector<float>({0, 1})}}},
      {"batch_normalization",
       {{"batch_normalization/gamma:0", from_vector<float>({1, 1})},
        {"batch_normalization/beta:0", from_vector<float>({0, 0})},
        {"batch_normalization/moving_mean:0", from_vector<float>({0.1f, 0.2f})},
        {"batch_normalization/moving_variance:0", from_vector<float>({1, 2})}}}};
  write("hdf5", "layers.h5", via_file(".h5", [&](const std::string& p) { io::save_hdf5_weights(p, layers); }));
}

// IDX: two zero bytes, the type code, the number of dimensions, big-endian sizes, the data.
std::string idx(unsigned char type, const std::vector<uint32_t>& dims, const std::string& data) {
  std::string out = {'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int shift : {24, 16, 8, 0}) out += static_cast<char>((d >> shift) & 0xff);
  return out + data;
}

std::string gzip(const std::string& bytes) {
  return via_file(".gz", [&](const std::string& p) {
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  });
}

void idx_seeds() {
  const std::string images = idx(0x08, {2, 3, 3}, std::string("\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0\xff\x01", 18));
  write("idx", "images_u8", images);
  write("idx", "images_u8.gz", gzip(images));
  write("idx", "labels_u8", idx(0x08, {4}, std::string("\x00\x09\x03\x07", 4)));
  write("idx", "i8", idx(0x09, {2}, std::string("\x80\x7f", 2)));
  write("idx", "i16", idx(0x0B, {2}, std::string("\x80\x00\x01\x02", 4)));
  write("idx", "i32", idx(0x0C, {1, 2}, std::string("\x00\x00\x00\x01\xff\xff\xff\xfe", 8)));
  write("idx", "f32", idx(0x0D, {2}, std::string("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8)));
  write("idx", "f64", idx(0x0E, {1}, std::string("\x3f\xf8\x00\x00\x00\x00\x00\x00", 8)));
}

void csv_seeds() {
  write("csv", "numeric_labels.csv", "id,a,b,label\n1,0.5,-2,0\n2,1e3,,1\n3,-0.25,4.5,2\n");
  write("csv", "named_labels.csv", "\"sepal length\",width,label\n5.1,3.5,setosa\n7.0,3.2,\"versi,color\"\n6.3,3.3,virginica\n");
  write("csv", "features_only.csv", "x,y\n1,2\n3,4\n");
}

// CIFAR records: label byte(s), then 1024 red, 1024 green and 1024 blue bytes.
std::string cifar_record(const std::string& labels, unsigned char shade) {
  std::string pixels(3072, '\0');
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<char>((i * 7 + shade) & 0xff);
  return labels + pixels;
}

void cifar_seeds() {
  write("cifar", "cifar10.bin", cifar_record("\x03", 0) + cifar_record("\x09", 100));
  write("cifar", "cifar100.bin", cifar_record(std::string("\x05\x4a", 2), 50));
}

void image_seeds() {
  for (int64_t channels : {1, 2, 3, 4}) {
    std::vector<uint8_t> pixels(static_cast<size_t>(5 * 4 * channels));
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 13);
    const Tensor image = from_vector(pixels, {5, 4, channels});
    write("image", "c" + std::to_string(channels) + ".png", bytes_of(data::encode_png(image)));
    if (channels == 1 || channels == 3)
      write("image", "c" + std::to_string(channels) + ".jpg", bytes_of(data::encode_jpeg(image, 80)));
  }
}

// Small models over different layer families; the JSON seeds carry only architectures, so
// they may be larger than what is worth saving with weights.
std::vector<std::shared_ptr<nn::Model>> architectures() {
  std::vector<std::shared_ptr<nn::Model>> models;
  {
    auto x = nn::Input({-1, 4}, "features");
    auto h = nn::Dense(3, "relu")(x);
    models.push_back(std::make_shared<nn::Model>(x, nn::Dense(2)(nn::Dropout(0.5)(h)), "mlp"));
  }
  {
    auto x = nn::Input({-1, 6, 6, 1}, "image");
    auto h = nn::Conv2d(2, {3, 3}, "relu")(x);
    h = nn::MaxPool2d({2, 2})(nn::BatchNorm2d()(h));
    auto a = nn::GlobalMeanPool2d()(h);
    auto b = nn::GlobalMaxPool2d()(h);
    auto merged = nn::Concat()({nn::Flatten()(h), nn::Elementwise("add")({a, b})});
    models.push_back(std::make_shared<nn::Model>(x, nn::Dense(2)(merged), "cnn"));
  }
  {
    auto x = nn::Input({-1, 6, 6, 4}, "image");
    auto h = nn::SeparableConv2d(4, {3, 3}, "tanh")(nn::DepthwiseConv2d({3, 3})(x));
    h = nn::GroupNorm(2)(nn::GroupConv2d(4, {3, 3}, 2)(h));
    h = nn::UpSampling2d({2, 2})(nn::DeConv2d(2, {3, 3})(h));
    models.push_back(std::make_shared<nn::Model>(x, nn::ZeroPad2d(1)(h), "conv_variants"));
  }
  {
    auto x = nn::Input({-1, 5, 3}, "sequence");
    auto h = nn::Conv1d(4, {3})(x);
    h = nn::Bidirectional(nn::GRU(3))(nn::LSTM(4)(h));
    h = nn::MultiheadAttention(6, 2)(nn::LayerNorm()(h));
    auto last = nn::SimpleRNN(2, {.return_sequences = false})(nn::Reshape({5, 6})(h));
    models.push_back(std::make_shared<nn::Model>(x, last, "recurrent"));
  }
  return models;
}

void model_seeds() {
  for (const auto& model : architectures()) {
    write("model_json", model->name() + ".json", model->to_json());
    write("model_file", model->name() + ".safetensors",
          via_file(".safetensors", [&](const std::string& p) { model->save(p); }));
  }
}

void plan_seeds() {
  write("plan", "tasks.json", R"({"name": "captioning", "tasks": [
  {"name": "cnn", "kind": "train", "params": {"arch": "cnn", "lr": 0.01}, "tags": ["gpu"], "model": "cnn"},
  {"name": "rnn", "kind": "train", "params": {"arch": "rnn"}, "after": ["cnn"], "max_attempts": 5,
   "retry_delay_seconds": 1.5, "input_dataset": "features", "output_dataset": "captions"},
  {"name": "eval", "kind": "evaluate", "after": ["cnn", "rnn"], "priority": 1}]}
)");
  write("plan", "grid.json", R"({"search": {"name": "grid", "kind": "trial", "model": "net", "method": "grid",
  "space": {"lr": {"type": "float", "min": 1e-4, "max": 1, "log": true, "steps": 3},
            "units": {"type": "int", "min": 16, "max": 18}, "act": {"choices": ["relu", "tanh"]}},
  "fixed": {"epochs": 2}, "budget": 10}}
)");
  write("plan", "random.json", R"({"search": {"name": "random", "kind": "trial", "model": "net", "method": "random",
  "trials": 4, "seed": 7, "space": {"dropout": {"type": "float", "min": 0, "max": 0.5}}}}
)");
  write("plan", "halving.json", R"({"search": {"name": "sh", "kind": "trial", "model": "net",
  "method": "successive_halving", "trials": 9, "seed": 1, "min_budget": 1, "eta": 3, "max_rungs": 3,
  "metric": "loss", "order": "asc", "space": {"units": {"type": "int", "min": 8, "max": 64, "steps": 4}}}}
)");
  write("plan", "cross_validation.json", R"({"cross_validation": {"name": "cv", "kind": "fold", "model": "linear",
  "input_dataset": "train-set", "examples": 100, "folds": 5, "shuffle_seed": 4, "config": {"lr": 0.05},
  "summary_dataset": "cv-summary", "aggregate_kind": "cv_aggregate"}}
)");
}

void task_params_seeds() {
  write("task_params", "all.json", R"({"model": "cnn", "epochs": 3, "lr": 0.001, "shuffle": true,
  "layers": [32, 64, {"units": 10}], "optimizer": {"name": "adam", "betas": [0.9, 0.999]}, "note": null})");
  write("task_params", "required_only.json", R"({"model": "mlp"})");
}


// fuzz/infer_request.cpp's layout: byte 0, then (when it is odd) the JSON header's length in 4
// little-endian bytes, then the body; the model takes image FP32 [-1,2,2], ids INT64 [-1,2], keep BOOL [-1,1].
std::string infer_body(const std::string& json_text, const std::string& binary = {}) {
  if (binary.empty()) return std::string(1, '\0') + json_text;
  std::string framed(1, '\1');
  for (int shift = 0; shift < 32; shift += 8) framed += static_cast<char>((json_text.size() >> shift) & 0xff);
  return framed + json_text + binary;
}

void infer_request_seeds() {
  write("infer_request", "json.bin", infer_body(R"({"id": "a", "inputs": [
  {"name": "image", "datatype": "FP32", "shape": [1, 2, 2], "data": [0.5, -1, 2e3, 0]},
  {"name": "ids", "datatype": "INT64", "shape": [1, 2], "data": [7, -9007199254740993]},
  {"name": "keep", "datatype": "BOOL", "shape": [1, 1], "data": [true]}]})"));
  write("infer_request", "batch_2_outputs.bin", infer_body(R"({"inputs": [
  {"name": "keep", "datatype": "BOOL", "shape": [2, 1], "data": [false, true]},
  {"name": "image", "datatype": "FP32", "shape": [2, 2, 2], "data": [1, 2, 3, 4, 5, 6, 7, 8]},
  {"name": "ids", "datatype": "INT64", "shape": [2, 2], "data": [1, 2, 3, 4]}],
  "parameters": {"binary_data_output": true}, "outputs": [{"name": "label"}]})"));
  const std::string binary_header = R"({"inputs": [
  {"name": "image", "datatype": "FP32", "shape": [1, 2, 2], "parameters": {"binary_data_size": 16}},
  {"name": "ids", "datatype": "INT64", "shape": [1, 2], "data": [3, 4]},
  {"name": "keep", "datatype": "BOOL", "shape": [1, 1], "parameters": {"binary_data_size": 1}}],
  "outputs": [{"name": "scores", "parameters": {"binary_data": true}}, {"name": "label"}]})";
  const float image[4] = {1.0f, -2.5f, 0.0f, 3.25f};
  const std::string image_bytes(reinterpret_cast<const char*>(image), sizeof image);
  write("infer_request", "binary.bin", infer_body(binary_header, image_bytes + '\1'));
  // Refused: a BOOL byte of 2. Without parse_infer_request's check, the target's read of it as a
  // bool is UBSan's "load of value 2" (random mutation did not reach it in 210,000 inputs).
  write("infer_request", "binary_bool_byte_2.bin", infer_body(binary_header, image_bytes + '\2'));
}

// fuzz/http_connection.cpp's input is what a client sends on one connection.
void http_connection_seeds() {
  write("http_connection", "get.txt", "GET /ready HTTP/1.1\r\nHost: a\r\n\r\n");
  write("http_connection", "pipelined.txt",
        "GET /items/42 HTTP/1.1\r\nHost: a\r\n\r\n"
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
        "GET /ready HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  write("http_connection", "chunked.txt",
        "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n");
  write("http_connection", "expect_continue.txt",
        "POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc");
  write("http_connection", "cut_body.txt", "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 900\r\n\r\nabc");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR   (fuzz/corpus)\n";
    return 2;
  }
  out_dir = argv[1];
  safetensors_seeds();
  npy_seeds();
  npz_and_pickle_seeds();
  hdf5_seeds();
  idx_seeds();
  csv_seeds();
  cifar_seeds();
  image_seeds();
  model_seeds();
  plan_seeds();
  task_params_seeds();
  infer_request_seeds();
  http_connection_seeds();
  return 0;
}
