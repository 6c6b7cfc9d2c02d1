// Einsum of one or two operands (values or constants) without ellipses or repeated letters within
// an operand: matmuls, batched matmuls, outer products, transposes, reductions, dot products.
// Every letter gets an axis: the output's letters first, then the summed ones; each operand is
// transposed into that order and given size-1 axes for the letters it lacks, the two are
// multiplied (broadcasting) and the summed axes reduced. The layers are the importer's own
// (transpose, unsqueeze, onnx.mul, onnx.reduce_sum), so the model saves and loads as any other.
// Other equations are refused naming the node.
#include <algorithm>
#include <cctype>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

constexpr size_t kMaxLetters = 8;

struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

Equation parse(const Importer& im, const pb::NodeProto& node, std::string text, size_t operands) {
  text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
  require(text.find("...") == std::string::npos, im, node, "ellipses ('...') are not supported");
  Equation e;
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    e.inputs.push_back(lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  require(e.inputs.size() == operands && (operands == 1 || operands == 2), im, node,
          "needs one or two operands, as many as the equation's");
  std::string all;
  for (const std::string& in : e.inputs) {
    for (char c : in)
      require(std::isalpha(static_cast<unsigned char>(c)), im, node, "equation '" + text + "' is not letters");
    std::string sorted = in;
    std::sort(sorted.begin(), sorted.end());
    require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), im, node,
            "a letter repeated within an operand (a diagonal) is not supported");
    all += in;
  }
  if (arrow == std::string::npos) {  // implicit: the letters that appear once, alphabetically
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1) e.output += c;
    std::sort(e.output.begin(), e.output.end());
  } else {
    e.output = text.substr(arrow + 2);
    std::string sorted = e.output;
    std::sort(sorted.begin(), sorted.end());
    require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), im, node, "an output letter is repeated");
    for (char c : e.output)
      require(all.find(c) != std::string::npos, im, node, std::string("output letter '") + c + "' is in no operand");
  }
  return e;
}

}  // namespace

void einsum_op(Importer& im, const pb::NodeProto& node) {
  const size_t operands = im.num_inputs(node);
  const Equation e = parse(im, node, string_attribute(node, "equation", ""), operands);
  std::string letters = e.output;  // the output's letters, then the summed ones
  for (const std::string& in : e.inputs)
    for (char c : in)
      if (letters.find(c) == std::string::npos) letters += c;
  require(letters.size() <= kMaxLetters, im, node, "more than 8 distinct letters");
  std::vector<int64_t> size(letters.size(), 0);
  for (size_t i = 0; i < operands; ++i) {
    const Shape shape = im.is_constant(node, static_cast<int>(i)) ? im.constant(node, static_cast<int>(i)).shape()
                                                                  : im.value(node, static_cast<int>(i)).shape();
    require(shape.size() == e.inputs[i].size(), im, node,
            "operand " + std::to_string(i) + " " + shape.str() + " does not have a letter per axis");
    for (size_t a = 0; a < shape.size(); ++a) {
      int64_t& n = size[letters.find(e.inputs[i][a])];
      require(shape[a] != -1 || (a == 0 && !e.output.empty() && letters[0] == e.inputs[i][0]), im, node,
              "the symbolic batch must be the first letter of the output and of its operand");
      require(n == 0 || n == shape[a], im, node, std::string("letter '") + e.inputs[i][a] + "' has two sizes");
      n = shape[a];
    }
  }
  std::vector<int64_t> bounded(size);
  for (int64_t& n : bounded) n = std::max<int64_t>(n, 1);
  checked_size(bounded, 8, im.what() + ": " + node_str(node));  // the product before the sum
  // Each operand with an axis per letter, in the letters' order (size 1 where it lacks one).
  std::vector<nn::Symbol> values;
  std::vector<Tensor> constants;
  for (size_t i = 0; i < operands; ++i) {
    const std::string& in = e.inputs[i];
    std::string order;  // its letters in the common order
    for (char c : letters)
      if (in.find(c) != std::string::npos) order += c;
    std::vector<int64_t> perm, missing;
    for (char c : order) perm.push_back(static_cast<int64_t>(in.find(c)));
    for (size_t l = 0; l < letters.size(); ++l)
      if (in.find(letters[l]) == std::string::npos) missing.push_back(static_cast<int64_t>(l));
    const bool identity = std::is_sorted(perm.begin(), perm.end());
    if (im.is_constant(node, static_cast<int>(i))) {
      Tensor t = identity ? im.constant(node, static_cast<int>(i))
                          : contiguous(permute(im.constant(node, static_cast<int>(i)), Shape(perm)));
      std::vector<int64_t> full;
      for (size_t l = 0; l < letters.size(); ++l)
        full.push_back(in.find(letters[l]) == std::string::npos ? 1 : size[l]);
      constants.push_back(t.reshape(Shape(full)));
      continue;
    }
    nn::Symbol x = im.value(node, static_cast<int>(i));
    if (!identity) x = im.transpose(node, x, perm);
    if (!missing.empty()) x = squeeze(im, node, x, missing, /*unsqueeze=*/true);
    values.push_back(x);
  }
  require(!values.empty(), im, node, "needs at least one computed operand");
  nn::Symbol product = values[0];
  if (values.size() == 2) product = im.function(node, "onnx.mul", {values[0], values[1]});
  if (!constants.empty()) product = im.function(node, "onnx.mul", {product}, {{"B", constants[0]}});
  int64_t mask = 0;
  for (size_t l = e.output.size(); l < letters.size(); ++l) mask |= int64_t{1} << l;
  if (mask != 0) product = im.function(node, "onnx.reduce_sum", {product}, {{"axes", zeros(Shape{mask})}});
  im.set_output(node, product);
}

}  // namespace strata::onnx::detail
