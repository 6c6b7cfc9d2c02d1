// Einsum of one or two operands (values or constants): matmuls, batched matmuls, outer products,
// transposes, reductions, dot products, diagonals and traces (a letter repeated within an
// operand: the repeat becomes a letter of its own, tied to the first by an identity matrix
// multiplied in, and summed away). An ellipsis
// ('...') becomes letters of its own, one per axis it covers (the same number in every operand
// that has one, as ONNX's shape inference requires), which broadcast (a size 1 against any) as
// NumPy's einsum has it; the output's ellipsis, or in an implicit output its start, gets them.
// Every letter gets an axis: the output's letters first, then the summed ones; each operand is
// transposed into that order and given size-1 axes for the letters it lacks, the two are
// multiplied (broadcasting) and the summed axes reduced. The layers are the importer's own
// (transpose, unsqueeze, onnx.mul, onnx.reduce_sum), so the model saves and loads as any other.
// Other equations are refused naming the node.
#include <algorithm>
#include <cctype>
#include <string_view>

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
  std::string ellipsis;  // the letters standing for the ellipsis's axes, which broadcast
  // A letter repeated within an operand (a diagonal), and the letter its repeat became.
  std::vector<std::pair<char, char>> diagonals;
};

// Letters for an ellipsis's axes and repeated letters, taken from the end (equations tend to
// use the first lowercase ones).
constexpr std::string_view kSpareLetters = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba";

// Replaces each operand's "..." by letters the equation does not use, one per axis it covers
// (`ranks`: each operand's rank), the same letters in every operand; the output's "..." by them
// too. An implicit output starts with them.
void expand_ellipses(const Importer& im, const pb::NodeProto& node, Equation& e, bool implicit,
                     const std::vector<size_t>& ranks) {
  const std::string kEllipsis = "...";
  std::string used = e.output;
  for (const std::string& in : e.inputs) used += in;
  size_t count = 0;  // the axes each ellipsis covers
  bool any = false;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const size_t at = e.inputs[i].find(kEllipsis);
    if (at == std::string::npos) continue;
    const size_t letters = e.inputs[i].size() - kEllipsis.size();
    require(
        e.inputs[i].find(kEllipsis, at + 1) == std::string::npos && ranks[i] >= letters, im, node,
        "operand " + std::to_string(i) + " '" + e.inputs[i] + "' does not fit its rank " + std::to_string(ranks[i]));
    require(!any || ranks[i] - letters == count, im, node,
            "the operands' ellipses cover " + std::to_string(count) + " and " + std::to_string(ranks[i] - letters) +
                " axes (ONNX needs the same number)");
    count = ranks[i] - letters;
    any = true;
  }
  require(implicit || any || e.output.find(kEllipsis) == std::string::npos, im, node,
          "the output has an ellipsis and no operand has one");
  if (!any) return;
  for (char c : kSpareLetters)
    if (e.ellipsis.size() < count && used.find(c) == std::string::npos) e.ellipsis += c;
  require(e.ellipsis.size() == count, im, node, "the ellipsis covers more axes than there are letters left");
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const size_t at = e.inputs[i].find(kEllipsis);
    if (at != std::string::npos) e.inputs[i].replace(at, kEllipsis.size(), e.ellipsis);
  }
  if (implicit) return;
  const size_t at = e.output.find(kEllipsis);
  // an output without the ellipsis's axes: NumPy sums them away, ONNX's text leaves it open
  require(at != std::string::npos || count == 0, im, node,
          "the operands' ellipsis covers axes that the output (no '...') does not keep");
  if (at != std::string::npos) e.output.replace(at, kEllipsis.size(), e.ellipsis);
}

Equation parse(const Importer& im, const pb::NodeProto& node, std::string text, const std::vector<size_t>& ranks) {
  text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
  const size_t operands = ranks.size();
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
  if (arrow != std::string::npos) e.output = text.substr(arrow + 2);
  expand_ellipses(im, node, e, arrow == std::string::npos, ranks);
  std::string all;
  for (const std::string& in : e.inputs) {
    for (char c : in)
      require(std::isalpha(static_cast<unsigned char>(c)), im, node, "equation '" + text + "' is not letters");
    all += in;
  }
  if (arrow == std::string::npos) {  // implicit: the ellipsis, then the letters that appear once, alphabetically
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1 && e.ellipsis.find(c) == std::string::npos) e.output += c;
    std::sort(e.output.begin(), e.output.end());
    e.output = e.ellipsis + e.output;
  } else {
    for (char c : e.output)
      require(std::isalpha(static_cast<unsigned char>(c)), im, node, "equation '" + text + "' is not letters");
    std::string sorted = e.output;
    std::sort(sorted.begin(), sorted.end());
    require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), im, node, "an output letter is repeated");
    for (char c : e.output)
      require(all.find(c) != std::string::npos, im, node, std::string("output letter '") + c + "' is in no operand");
  }
  // Each repeat of a letter within an operand becomes a letter of its own, which einsum_op ties
  // to the first by an identity matrix, multiplied in and summed away.
  std::string used = all + e.output;
  for (std::string& in : e.inputs)
    for (size_t a = 0; a < in.size(); ++a) {
      if (in.find(in[a]) == a) continue;
      const auto spare = std::find_if(kSpareLetters.begin(), kSpareLetters.end(),
                                      [&](char c) { return used.find(c) == std::string::npos; });
      require(spare != kSpareLetters.end(), im, node, "too many letters");
      used += *spare;
      e.diagonals.push_back({in[a], *spare});
      in[a] = *spare;
    }
  return e;
}

}  // namespace

void einsum_op(Importer& im, const pb::NodeProto& node) {
  const size_t operands = im.num_inputs(node);
  std::vector<size_t> ranks;
  for (size_t i = 0; i < operands; ++i)
    ranks.push_back(static_cast<size_t>(rank_of_input(im, node, static_cast<int>(i))));
  const Equation e = parse(im, node, string_attribute(node, "equation", ""), ranks);
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
      const bool broadcasts = e.ellipsis.find(e.inputs[i][a]) != std::string::npos && (n == 1 || shape[a] == 1);
      require(n == 0 || n == shape[a] || broadcasts, im, node,
              e.ellipsis.find(e.inputs[i][a]) != std::string::npos
                  ? "the ellipsis's axes " + shape.str() + " do not broadcast"
                  : std::string("letter '") + e.inputs[i][a] + "' has two sizes");
      if (n == 0 || n == 1) n = shape[a];
    }
  }
  // Each diagonal as an operand: the identity matrix over the repeated letter and its repeat.
  std::vector<Tensor> constants;
  for (const auto& [letter, repeat] : e.diagonals) {
    const size_t at = letters.find(letter), again = letters.find(repeat);
    require(size[at] > 0 && size[again] == size[at], im, node,
            std::string("the diagonal of letter '") + letter + "' needs axes of one fixed size");
    std::vector<int64_t> full(letters.size(), 1);
    full[at] = full[again] = size[at];
    constants.push_back(eye(size[at]).reshape(Shape(full)));
  }
  std::vector<int64_t> bounded(size);
  for (int64_t& n : bounded) n = std::max<int64_t>(n, 1);
  checked_size(bounded, 8, im.what() + ": " + node_str(node));  // the product before the sum
  // Each operand with an axis per letter, in the letters' order (size 1 where it lacks one).
  std::vector<nn::Symbol> values;
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
      std::vector<int64_t> full;  // its own sizes (an ellipsis's axis may be 1, broadcasting)
      for (size_t l = 0, j = 0; l < letters.size(); ++l)
        full.push_back(in.find(letters[l]) == std::string::npos ? 1 : t.size(static_cast<int64_t>(j++)));
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
  for (const Tensor& c : constants) product = im.function(node, "onnx.mul", {product}, {{"B", c}});
  int64_t mask = 0;
  for (size_t l = e.output.size(); l < letters.size(); ++l) mask |= int64_t{1} << l;
  if (mask != 0) product = im.function(node, "onnx.reduce_sum", {product}, {{"axes", zeros(Shape{mask})}});
  im.set_output(node, product);
}

}  // namespace strata::onnx::detail
