// The import of ONNX's operators one by one, against onnxruntime: one-operator files with random
// inputs and several attribute settings (tests/onnx/make_onnx_ops.py writes them at test time
// and has onnxruntime compute their outputs), and the onnx package's own node test cases with
// their stored outputs. Every file either imports and computes the reference's outputs, or is
// refused with an Error: an import never computes a wrong answer. The share of node test cases
// that import and match, per operator, is docs/interop.md's generated table, checked current.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <strata/io/npz.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/strata.hpp>

#include "onnx/onnx_runtime.hpp"
#include "support/expect_error.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

// The generator's files, written once per version of the generator and shared by the test
// programs (ctest runs each test in a process of its own): a fresh folder renamed into place
// when complete, so that a folder under the final name is always whole.
const std::filesystem::path& onnx_ops_files() {
  static const std::filesystem::path dir = [] {
    std::ifstream script(std::string(STRATA_TESTS_DIR) + "/onnx/make_onnx_ops.py");
    std::stringstream text;
    text << script.rdbuf();
    const auto shared = std::filesystem::temp_directory_path() /
                        ("strata_onnx_ops_" + std::to_string(std::hash<std::string>{}(text.str())));
    if (std::filesystem::exists(shared)) return shared;
    const auto fresh = onnx_generated_files("make_onnx_ops.py", "ops");
    std::error_code ec;
    std::filesystem::rename(fresh, shared, ec);
    if (ec) std::filesystem::remove_all(fresh);  // another test program's rename came first
    return shared;
  }();
  return dir;
}

// What happened to one file: refused at import (an Error naming why), imported but failed to
// run, or ran and matched or not (`message` says where).
struct OnnxOpsOutcome {
  enum Kind { refused, failed_to_run, mismatch, match } kind;
  std::string message;
};

// "" when `got` holds `want`'s values: same shape, |got - want| <= 1e-5 + 1e-4 |want| (NaNs
// and infinities equal). Compared as float64, so that booleans and integers compare too (Strata's
// comparisons give float 0/1 where ONNX gives booleans).
std::string onnx_ops_difference(const Tensor& got, const Tensor& want) {
  if (got.shape() != want.shape()) return "shape " + got.shape().str() + ", expected " + want.shape().str();
  const std::vector<double> a = cast(got, kFloat64).to_vector<double>(), b = cast(want, kFloat64).to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    const bool same = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i] ||
                      std::abs(a[i] - b[i]) <= 1e-5 + 1e-4 * std::abs(b[i]);
    if (!same) return "element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " + std::to_string(b[i]);
  }
  return "";
}

OnnxOpsOutcome onnx_ops_run(const std::filesystem::path& file, bool save_and_load = false) {
  std::vector<Tensor> inputs, expected;
  try {
    auto npz = file;
    for (auto& [key, t] : io::load_npz(npz.replace_extension(".npz").string()))
      (key.starts_with("input_") ? inputs : expected).push_back(t);
  } catch (const Error& e) {  // float16, strings: data Strata does not hold
    return {OnnxOpsOutcome::refused, std::string("data: ") + e.what()};
  }
  std::shared_ptr<nn::Model> model;
  try {
    model = onnx::load_onnx(file.string());
  } catch (const Error& e) {
    return {OnnxOpsOutcome::refused, e.what()};
  }
  std::vector<Tensor> got;
  try {
    got = model->run(inputs);
  } catch (const Error& e) {
    return {OnnxOpsOutcome::failed_to_run, e.what()};
  }
  if (got.size() != expected.size()) return {OnnxOpsOutcome::mismatch, "wrong number of outputs"};
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string d = onnx_ops_difference(got[i], expected[i]);
    if (!d.empty()) return {OnnxOpsOutcome::mismatch, "output " + std::to_string(i) + ": " + d};
  }
  if (save_and_load) {  // an ordinary static model: saved and loaded whole, it computes the same
    auto saved = file;
    saved.replace_extension(".safetensors");
    model->save(saved.string());
    auto loaded = nn::Model::load(saved.string());
    loaded->eval();
    const std::vector<Tensor> again = loaded->run(inputs);
    for (size_t i = 0; i < again.size(); ++i) {
      const std::string d = onnx_ops_difference(again[i], expected[i]);
      if (!d.empty()) return {OnnxOpsOutcome::mismatch, "saved and loaded, output " + std::to_string(i) + ": " + d};
    }
  }
  return {OnnxOpsOutcome::match, ""};
}

// The node test cases: name -> the operators of its graph.
const std::map<std::string, std::set<std::string>>& onnx_node_cases() {
  static const std::map<std::string, std::set<std::string>> cases = [] {
    std::map<std::string, std::set<std::string>> out;
    std::ifstream in(onnx_ops_files() / "node" / "cases.txt");
    std::string name, ops;
    while (in >> name >> ops) {
      std::stringstream list(ops);
      for (std::string op; std::getline(list, op, ',');) out[name].insert(op);
    }
    return out;
  }();
  return cases;
}

// Each node case's outcome, computed once for the whole test program.
const OnnxOpsOutcome& onnx_node_outcome(const std::string& name) {
  static std::map<std::string, OnnxOpsOutcome> done;
  auto it = done.find(name);
  if (it == done.end()) it = done.emplace(name, onnx_ops_run(onnx_ops_files() / "node" / (name + ".onnx"))).first;
  return it->second;
}

// A family of operators: its generated files (names starting with `prefix`) and the node test
// cases of its operators alone.
struct OnnxOpsFamily {
  const char* name;
  const char* prefix;
  std::set<std::string> ops;
};

const OnnxOpsFamily kOnnxOpsFamilies[] = {
    {"UnaryMath", "unary_", {"Neg",   "Abs",      "Exp",      "Log",       "Sqrt",  "Reciprocal", "Sign",
                             "Floor", "Ceil",     "Round",    "Erf",       "Sin",   "Cos",        "Tan",
                             "Sinh",  "Cosh",     "Asinh",    "Acosh",     "Atanh", "Tanh",       "Sigmoid",
                             "Relu",  "Softplus", "Softsign", "HardSwish", "Mish"}},
    {"BinaryMath", "binary_", {"Add", "Sub", "Mul", "Div", "Pow", "Mod"}},
    {"Variadic", "variadic_", {"Sum", "Max", "Min", "Mean"}},
    {"Activations",
     "act_",
     {"Gelu", "Selu", "Celu", "Shrink", "ThresholdedRelu", "Elu", "LeakyRelu", "HardSigmoid", "PRelu", "Softmax",
      "LogSoftmax", "Hardmax"}},
    {"ElementTypes", "dtype_", {"Cast"}},
    {"Shapes",
     "shape_",
     {"Pad", "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "Size", "LRN", "Dropout", "Gemm", "ConstantOfShape",
      "Range", "GatherElements"}},
    {"Logic",
     "logic_",
     {"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "And", "Or", "Xor", "Not", "Where", "Cast"}},
    // Files of opsets 7 to 10 (adapted to opset 11 when imported); the node cases of old opsets
    // are in the families of their operators.
    {"OldOpsets", "old_", {}},
    {"Resize", "resize_", {"Resize", "Upsample"}},
    {"Normalization", "norm_", {"LayerNormalization", "GroupNormalization", "InstanceNormalization"}},
    {"Einsum", "einsum_", {"Einsum"}},
    {"Recurrent", "rnn_", {"RNN", "GRU", "LSTM"}},
    {"Pools", "pool_", {"MaxPool", "AveragePool", "LpPool", "GlobalLpPool", "MaxUnpool"}},
    {"Indexing", "index_", {"Gather", "GatherND", "ScatterElements", "ScatterND", "Scatter", "MatMul"}},
    {"Reductions",
     "reduce_",
     {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
      "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "CumSum", "TopK"}},
};

void PrintTo(const OnnxOpsFamily& family, std::ostream* os) { *os << family.name; }

class OnnxOps : public ::testing::TestWithParam<OnnxOpsFamily> {};

// Each generated file matches onnxruntime, also once the imported model is saved and loaded.
TEST_P(OnnxOps, MatchOnnxruntimeAndNeverComputeWrongly) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  const OnnxOpsFamily& family = GetParam();
  int generated = 0;
  for (const auto& entry : std::filesystem::directory_iterator(onnx_ops_files() / "cases")) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() != ".onnx" || !name.starts_with(family.prefix)) continue;
    ++generated;
    const OnnxOpsOutcome o = onnx_ops_run(entry.path(), /*save_and_load=*/true);
    EXPECT_EQ(o.kind, OnnxOpsOutcome::match) << name << ": " << o.message;
  }
  EXPECT_GT(generated, 0) << "no generated files named " << family.prefix << "*";
  int matched = 0, refused = 0;
  for (const auto& [name, ops] : onnx_node_cases()) {
    if (!std::includes(family.ops.begin(), family.ops.end(), ops.begin(), ops.end())) continue;
    const OnnxOpsOutcome& o = onnx_node_outcome(name);
    EXPECT_NE(o.kind, OnnxOpsOutcome::mismatch) << name << " computes a wrong answer: " << o.message;
    EXPECT_NE(o.kind, OnnxOpsOutcome::failed_to_run) << name << " imports but does not run: " << o.message;
    (o.kind == OnnxOpsOutcome::match ? matched : refused)++;
    if (o.kind == OnnxOpsOutcome::refused) std::cout << "  refused " << name << ": " << o.message << "\n";
  }
  std::cout << family.name << ": " << generated << " generated files match; node test cases: " << matched
            << " match, " << refused << " refused\n";
}

INSTANTIATE_TEST_SUITE_P(Families, OnnxOps, ::testing::ValuesIn(kOnnxOpsFamilies),
                         [](const auto& info) { return std::string(info.param.name); });

// Pools at random attributes that onnxruntime runs (make_onnx_ops.py's randpool_*): each
// matches it, or is refused by name where onnxruntime and onnx's reference disagree or a window
// holds padding alone; most match.
TEST(OnnxOpsRandomPools, MatchOnnxruntimeOrAreRefused) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  int matched = 0, refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(onnx_ops_files() / "cases")) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() != ".onnx" || !name.starts_with("randpool_")) continue;
    const OnnxOpsOutcome o = onnx_ops_run(entry.path());
    EXPECT_TRUE(o.kind == OnnxOpsOutcome::match || o.kind == OnnxOpsOutcome::refused) << name << ": " << o.message;
    (o.kind == OnnxOpsOutcome::match ? matched : refused)++;
  }
  std::cout << "random pools: " << matched << " match, " << refused << " refused\n";
  EXPECT_GT(matched, refused) << "most random pools should import";
  EXPECT_GT(matched + refused, 100);
}

// What the import cannot honour is refused naming the node, attribute, type or opset.
// The fuzz target's find, kept as its seed: a Resize scale of a million on one axis planned 2.1
// million source positions while importing (minutes under the sanitizers); it is refused at once.
TEST(OnnxOpsRefusals, AHugeResizeIsRefusedBeforeItIsPlanned) {
  const std::string file = std::string(STRATA_TESTS_DIR) + "/../fuzz/corpus/onnx/resize_scale_of_a_million.onnx";
  expect_error([&] { onnx::load_onnx(file); },
               {"(Resize)", "output lengths add up to 2097163", "above the 2^16 planned"});
}

TEST(OnnxOpsRefusals, NameWhatIsNotSupported) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"float16_arithmetic", {"node 'square' (Mul)", "'c' is float16"}},
      {"string_initializer", {"initializer 's'", "element type STRING is not supported"}},
      {"int8_input", {"input 'x'", "element type INT8"}},
      {"cast_to_float16", {"node 'to_half' (Cast)", "a cast to FLOAT16 is not supported"}},
      {"pad_wrap_beyond", {"node 'wrap' (Pad)", "wrap padding needs pads smaller than the axis"}},
      {"pad_negative", {"node 'crop' (Pad)", "negative pads are not supported"}},
      {"range_opset27", {"node 'range' (Range)", "'Range' at opset 27 is not supported"}},
      {"reduce_axes_input", {"node 'sum' (ReduceSum)", "input 'a' must be a constant"}},
      {"gelu_approximate", {"node 'gelu' (Gelu)", "approximate 'fast' is not supported"}},
      {"opset6", {"opset 6 is not supported (7 to 28 are)"}},
      {"batchnorm_spatial0", {"node 'bn' (BatchNormalization) (opset 7)", "spatial 0"}},
      {"range_opset10",
       {"node 'range' (Range)", "'Range' does not exist at opset 10 (ONNX introduced it at opset 11)"}},
      {"matmul_mismatch", {"node 'mm' (MatMul)", "operands [2, 3, 4] and [3, 2] do not fit"}},
      {"scatter_reduction", {"node 'put' (ScatterND)", "reduction 'avg' is not one of none, add, mul, max, min"}},
      {"einsum_diagonal", {"node 'diag' (Einsum)", "the diagonal of letter 'i' needs axes of one fixed size"}},
      {"slice_opset9_no_starts", {"node 'cut' (Slice) (opset 9)", "lacks its attribute 'starts'"}},
      {"upsample_opset9_shrink",
       {"node 'up' (Upsample) (opset 9)", "mode nearest needs constant scales of at least 1"}},
      {"resize_crop", {"node 'crop' (Resize)", "coordinate_transformation_mode 'tf_crop_and_resize' is not supported"}},
      {"resize_align_corners_fraction",
       {"node 'corners' (Resize)", "align_corners with a scale whose output length 5.2"}},
      {"resize_scales_input",
       {"node 'grow' (Resize)", "scales input 'sc' is computed when the model runs; only constant scales"}},
      {"einsum_ellipsis_summed",
       {"node 'sum' (Einsum)", "the operands' ellipsis covers axes that the output (no '...') does not keep"}},
      {"einsum_ellipsis_mismatch", {"node 'mm' (Einsum)", "the ellipsis's axes [3, 4, 5] do not broadcast"}},
      {"einsum_ellipsis_ranks", {"node 'mm' (Einsum)", "the operands' ellipses cover 1 and 2 axes"}},
      {"rnn_activation", {"node 'cell' (RNN)", "activation 'Swish' is not one ONNX defines"}},
      {"rnn_alpha_sigmoid", {"node 'cell' (RNN)", "activation_alpha is supported only", "'Tanh' does not"}},
      {"rnn_affine_defaults", {"node 'cell' (RNN)", "activation 'Affine' needs activation_alpha and activation_beta"}},
      {"rnn_clip", {"node 'cell' (RNN)", "clip -1.000000 is not positive"}},
      {"rnn_layout", {"node 'cell' (RNN)", "layout 2 is not 0 or 1"}},
      {"rnn_direction", {"node 'cell' (RNN)", "direction 'sideways' is not one of forward, reverse, bidirectional"}},
      {"symbolic_image_size", {"input 'img'", "axis 2 is symbolic ('height')", "ImportOptions::sizes"}},
      {"maxpool_storage_order", {"node 'pool' (MaxPool)", "storage_order must be 0 or 1"}},
      {"maxpool_same_dilations", {"node 'pool' (MaxPool)", "auto_pad SAME_UPPER with dilations is not supported"}},
      {"averagepool_valid_ceil",
       {"node 'pool' (AveragePool)", "auto_pad VALID with ceil_mode where the windows do not end on the input's last"}},
      {"maxpool_padding_alone", {"node 'pool' (MaxPool)", "output 0 of axis 2 is a window of padding alone"}},
      {"maxunpool_output_shape",
       {"node 'unpool' (MaxUnpool)", "output_shape [2, 4, 4] must keep the input's batch and channels [2, 3, 3]"}},
      {"resize_scales_depend_on_batch",
       {"node 'ratio' (Div)", "divides two shapes with the symbolic batch whose quotient depends on N"}},
      {"upsample_opset9_computed_shrink", {"node 'up' (Resize)", "Upsample's mode nearest needs scales of at least 1"}},
  };
  for (const auto& [name, fragments] : cases) {
    const auto file = onnx_ops_files() / "refuse" / (name + ".onnx");
    std::vector<std::string> expected{file.filename().string()};
    expected.insert(expected.end(), fragments.begin(), fragments.end());
    expect_error([&] { onnx::load_onnx(file.string()); }, expected);
  }
}

// An image model of symbolic height and width imports at the sizes the caller gives them, and
// computes what onnxruntime computes at those sizes.
TEST(OnnxOpsSymbolicSizes, ImportAtTheSizesGiven) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  const auto file = onnx_ops_files() / "refuse" / "symbolic_image_size.onnx";
  onnx::ImportOptions options;
  options.sizes = {{"height", 7}, {"width", 5}};
  auto model = onnx::load_onnx(file.string(), options);
  const Tensor x = randn(Shape{2, 3, 7, 5});
  const std::vector<Tensor> got = model->run({x});
  const auto dir = onnx_temp_dir("symbolic_sizes");
  std::filesystem::copy_file(file, dir / "model.onnx");
  const std::vector<Tensor> want = onnxruntime_outputs(dir / "model.onnx", {x});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(onnx_ops_difference(got[0], want[0]), "");
  // another height is refused by the model, whose sizes are now fixed
  EXPECT_THROW(model->run({randn(Shape{2, 3, 8, 5})}), Error);
  options.sizes["height"] = 0;
  expect_error([&] { onnx::load_onnx(file.string(), options); }, {"input 'img'", "the size 0 given for 'height'"});
}

// docs/interop.md's table: each operator the import reads, and how many of the node test cases
// of that operator alone (a one-node graph) import and match; then the share of all cases.
std::string onnx_ops_table() {
  std::map<std::string, std::pair<int, int>> per_op;  // matched, total
  int matched = 0, total = 0;
  for (const auto& [name, ops] : onnx_node_cases()) {
    const bool match = onnx_node_outcome(name).kind == OnnxOpsOutcome::match;
    matched += match;
    ++total;
    if (ops.size() == 1) {
      per_op[*ops.begin()].first += match;
      per_op[*ops.begin()].second += 1;
    }
  }
  std::ostringstream md;
  md << "| operator | opsets | node test cases of it alone that import and match |\n|---|---|---|\n";
  for (const onnx::ImportedOperator& op : onnx::imported_operators()) {
    const auto it = per_op.find(op.name);
    md << "| " << op.name << " | " << op.first_opset << "–" << op.last_opset << " | ";
    if (it == per_op.end())
      md << "none in the onnx package";
    else
      md << it->second.first << " of " << it->second.second;
    md << " |\n";
  }
  md << "\nAll node test cases (" << total << " with tensor inputs and outputs, onnx 1.23.2): " << matched
     << " import and match (" << (100 * matched + total / 2) / total << "%).\n";
  return md.str();
}

TEST(OnnxNodeCases, NoneComputesWronglyAndTheDocsTableIsCurrent) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  ASSERT_GT(onnx_node_cases().size(), 1000u) << "the onnx package's node test cases were not written";
  for (const auto& [name, ops] : onnx_node_cases()) {
    const OnnxOpsOutcome& o = onnx_node_outcome(name);
    EXPECT_NE(o.kind, OnnxOpsOutcome::mismatch) << name << " computes a wrong answer: " << o.message;
    if (o.kind == OnnxOpsOutcome::failed_to_run) std::cout << "  imports but does not run: " << name << ": " << o.message << "\n";
  }
  const std::string path = std::string(STRATA_TESTS_DIR) + "/../docs/interop.md";
  const std::string begin = "<!-- generated by tests/onnx/test_onnx_ops.cpp: do not edit below -->\n";
  const std::string end = "<!-- end of generated table -->\n";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str(), generated = onnx_ops_table();
  const size_t from = doc.find(begin), to = doc.find(end);
  if (std::getenv("STRATA_WRITE_DOCS") != nullptr && from != std::string::npos && to != std::string::npos) {
    std::ofstream(path) << doc.substr(0, from + begin.size()) << generated << doc.substr(to);
    return;
  }
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to) << path << " lacks the generated table";
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), generated)
      << path << " is stale: run `STRATA_WRITE_DOCS=1 build/tests/test_onnx "
                 "--gtest_filter=OnnxNodeCases.NoneComputesWronglyAndTheDocsTableIsCurrent`";
}

// The import reads each operator up to the opset before the first change of its definition
// after opset 21 in onnx's schemas that it does not follow (the importer's list is current).
TEST(OnnxOpsets, LastOpsetsFollowOnnxSchemas) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  // Changes the import follows: Mod's opset 28 (floats with fmod 0), SpaceToDepth's (a mode),
  // the pools' opset 22 (about ceil_mode, which the import refuses).
  const std::set<std::pair<std::string, int64_t>> followed = {
      {"Mod", 28}, {"SpaceToDepth", 28}, {"AveragePool", 22}, {"MaxPool", 22}};
  std::map<std::string, int64_t> last;
  std::ifstream in(onnx_ops_files() / "opsets.txt");
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    std::string op;
    fields >> op;
    last[op] = 28;
    for (int64_t v; fields >> v;)
      if (!followed.count({op, v})) last[op] = std::min(last[op], v - 1);
  }
  ASSERT_GT(last.size(), 100u);
  for (const onnx::ImportedOperator& imported : onnx::imported_operators()) {
    ASSERT_TRUE(last.count(imported.name)) << imported.name << " is not an operator of onnx's default domain";
    EXPECT_EQ(imported.last_opset, last[imported.name]) << imported.name;
  }
}

// Each operator is read from the opset ONNX introduced it at (files of opsets 7 to 10 adapted),
// as onnx's schemas tell.
TEST(OnnxOpsets, FirstOpsetsFollowOnnxSchemas) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  std::map<std::string, int64_t> introduced;
  std::ifstream in(onnx_ops_files() / "introduced.txt");
  std::string op;
  for (int64_t v; in >> op >> v;) introduced[op] = v;
  ASSERT_GT(introduced.size(), 100u);
  for (const onnx::ImportedOperator& imported : onnx::imported_operators()) {
    ASSERT_TRUE(introduced.count(imported.name)) << imported.name << " is not an operator of onnx's default domain";
    EXPECT_EQ(imported.first_opset, std::max<int64_t>(7, introduced[imported.name])) << imported.name;
  }
}

}  // namespace
