// Conformance cases for the element-wise, shape, reduction and matmul ops.
#include "ops/conformance.hpp"

namespace strata::testing {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

OpCase unary_case(const char* op, Fn fn, Tensor x, const char* label = "") {
  return OpCase{op, {std::move(x)}, std::move(fn), label};
}

}  // namespace

STRATA_CONFORMANCE_CASES(unary) {
  std::vector<OpCase> cases;
  struct U {
    const char* name;
    Tensor (*fn)(const Tensor&);
    double low, high;  // a domain where the function is smooth
  };
  const U table[] = {
      {"neg", neg, -2, 2},
      {"abs", abs, 0.1, 2},
      {"exp", exp, -2, 2},
      {"log", log, 0.2, 3},
      {"log1p", log1p, -0.5, 2},
      {"expm1", expm1, -2, 2},
      {"sqrt", sqrt, 0.2, 3},
      {"rsqrt", rsqrt, 0.2, 3},
      {"square", square, -2, 2},
      {"reciprocal", reciprocal, 0.3, 2},
      {"sin", sin, -3, 3},
      {"cos", cos, -3, 3},
      {"erf", erf, -2, 2},
      {"asin", asin, -0.8, 0.8},
      {"acos", acos, -0.8, 0.8},
      {"atan", atan, -3, 3},
      {"tanh", tanh, -2, 2},
      {"sigmoid", sigmoid, -3, 3},
      {"relu", relu, 0.1, 2},
      {"relu6", relu6, 0.1, 5},
      {"selu", selu, -2, 2},
      {"gelu", gelu, -3, 3},
      {"softplus", softplus, -3, 3},
      {"softsign", softsign, -3, 3},
      {"silu", silu, -3, 3},
      {"mish", mish, -3, 3},
      {"hard_sigmoid", hard_sigmoid, -2.5, 2.5},
      {"hard_tanh", hard_tanh, -0.9, 0.9},
      {"sign", sign, 0.1, 2},
      {"floor", floor, 0.1, 0.9},
      {"ceil", ceil, 0.1, 0.9},
      {"round", round, 0.1, 0.4},
  };
  for (const U& u : table) {
    auto fn = u.fn;
    cases.push_back(unary_case(u.name, [fn](const auto& in) { return fn(in[0]); },
                               rand64(gen, random_shape(gen), u.low, u.high), "random shape"));
    cases.push_back(unary_case(u.name, [fn](const auto& in) { return fn(in[0]); },
                               noncontiguous64(gen, {3, 2}, u.low, u.high), "non-contiguous"));
  }
  // relu and friends on both sides of their kinks (points chosen away from the kink itself).
  cases.push_back(unary_case("relu", [](const auto& in) { return relu(in[0]); },
                             tensor({-1.5, -0.3, 0.4, 2.0}).to(kFloat64), "both signs"));
  cases.push_back(unary_case("leaky_relu", [](const auto& in) { return leaky_relu(in[0], 0.2); },
                             tensor({-1.5, -0.3, 0.4, 2.0}).to(kFloat64)));
  cases.push_back(unary_case("elu", [](const auto& in) { return elu(in[0], 1.3); },
                             tensor({-1.5, -0.3, 0.4, 2.0}).to(kFloat64)));
  cases.push_back(unary_case("clamp", [](const auto& in) { return clamp(in[0], -0.5, 0.5); },
                             tensor({-1.5, -0.3, 0.4, 2.0}).to(kFloat64)));
  cases.push_back(unary_case("pow_scalar", [](const auto& in) { return pow(in[0], 2.5); }, rand64(gen, {5}, 0.2, 2)));
  return cases;
}

STRATA_CONFORMANCE_CASES(binary) {
  std::vector<OpCase> cases;
  struct B {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
  };
  const B table[] = {{"add", add}, {"sub", sub}, {"mul", mul}, {"div", div}, {"pow", pow},
                     {"maximum", maximum}, {"minimum", minimum}};
  for (const B& b : table) {
    auto fn = b.fn;
    Fn f = [fn](const auto& in) { return fn(in[0], in[1]); };
    cases.push_back({b.name, {rand64(gen, {3, 4}, 0.5, 2), rand64(gen, {3, 4}, 0.5, 2)}, f, "same shape"});
    cases.push_back({b.name, {rand64(gen, {2, 3, 4}, 0.5, 2), rand64(gen, {3, 1}, 0.5, 2)}, f, "broadcast"});
    Shape s = random_shape(gen);
    Shape s_broadcast = s;
    s_broadcast[gen.engine()() % s.size()] = 1;
    cases.push_back({b.name, {rand64(gen, s, 0.5, 2), rand64(gen, s_broadcast, 0.5, 2)}, f, "random broadcast"});
    cases.push_back({b.name, {noncontiguous64(gen, {3, 2}, 0.5, 2), rand64(gen, {2}, 0.5, 2)}, f, "non-contiguous"});
  }
  cases.push_back({"where", {rand64(gen, {3, 4}), rand64(gen, {4})},
                   [](const auto& in) { return where(in[0] > 0.0, in[0], in[1]); }, "broadcast"});
  cases.push_back({"cast", {rand64(gen, {3, 2})},
                   [](const auto& in) { return cast(cast(in[0], kFloat32), kFloat64); }, "through float32", 1e-4,
                   1e-2});
  // Across devices in tests/dispatch (CountingBackendTest.GradientsCrossDevicesBack); here the
  // identity on one device.
  cases.push_back({"to_device", {rand64(gen, {3, 2})}, [](const auto& in) { return to_device(in[0], in[0].device()); }});
  return cases;
}

STRATA_CONFORMANCE_CASES(shape) {
  std::vector<OpCase> cases;
  cases.push_back({"reshape", {rand64(gen, {2, 6})}, [](const auto& in) { return reshape(in[0], {3, -1}); }});
  cases.push_back({"reshape", {noncontiguous64(gen, {3, 4})},
                   [](const auto& in) { return reshape(in[0], {12}); }, "copying reshape"});
  cases.push_back({"permute", {rand64(gen, {2, 3, 4})}, [](const auto& in) { return permute(in[0], {2, 0, 1}); }});
  cases.push_back({"squeeze", {rand64(gen, {3, 1, 2})}, [](const auto& in) { return squeeze(in[0], 1); }});
  cases.push_back({"unsqueeze", {rand64(gen, {3, 2})}, [](const auto& in) { return unsqueeze(in[0], -1); }});
  cases.push_back({"slice", {rand64(gen, {5, 4})}, [](const auto& in) { return slice(in[0], 0, 1, 5, 2); }});
  cases.push_back({"slice", {noncontiguous64(gen, {4, 3})},
                   [](const auto& in) { return slice(in[0], 1, -2, 3); }, "non-contiguous"});
  cases.push_back({"select", {rand64(gen, {3, 4})}, [](const auto& in) { return select(in[0], 1, -1); }});
  cases.push_back({"expand", {rand64(gen, {3, 1})}, [](const auto& in) { return expand(in[0], {2, 3, 4}); }});
  cases.push_back({"contiguous", {noncontiguous64(gen, {3, 4})}, [](const auto& in) { return contiguous(in[0]); }});
  cases.push_back({"clone", {rand64(gen, {3})}, [](const auto& in) { return clone(in[0]); }});
  return cases;
}

STRATA_CONFORMANCE_CASES(reduce) {
  std::vector<OpCase> cases;
  using R = Tensor (*)(const Tensor&, const Axes&, bool);
  const std::pair<const char*, R> table[] = {{"sum", sum}, {"mean", mean}, {"prod", prod},
                                             {"amax", amax}, {"amin", amin}, {"logsumexp", logsumexp}};
  for (const auto& [name, op] : table) {
    const R fn = op;  // clang before 16 cannot capture a structured binding in a lambda
    cases.push_back({name, {rand64(gen, {3, 4}, 0.5, 2)}, [fn](const auto& in) { return fn(in[0], {}, false); }, "all"});
    cases.push_back({name, {rand64(gen, {2, 3, 4}, 0.5, 2)}, [fn](const auto& in) { return fn(in[0], {0, 2}, true); },
                     "axes 0,2 keepdim"});
    cases.push_back({name, {noncontiguous64(gen, {3, 4}, 0.5, 2)}, [fn](const auto& in) { return fn(in[0], {-1}, false); },
                     "non-contiguous"});
  }
  OpCase prod_zeros{"prod", {tensor({0.0, 2.0, 3.0, 0.0, 0.0, 5.0}, {2, 3})},
                    [](const auto& in) { return prod(in[0], {1}, false); },
                    "zeros (second order: inexact where a group holds two or more zeros)"};
  prod_zeros.second_order = false;
  cases.push_back(prod_zeros);
  cases.push_back({"var", {rand64(gen, {3, 4})}, [](const auto& in) { return var(in[0], {1}, 1, false); }});
  cases.push_back({"std", {rand64(gen, {3, 4})}, [](const auto& in) { return std(in[0], {0}, 0, true); }});
  cases.push_back({"norm", {rand64(gen, {3, 4}, 0.2, 1)}, [](const auto& in) { return norm(in[0], 2, {1}); }});
  cases.push_back({"norm", {rand64(gen, {3, 4}, 0.2, 1)}, [](const auto& in) { return norm(in[0], 3); }, "p=3"});
  cases.push_back({"cumsum", {rand64(gen, {3, 4})}, [](const auto& in) { return cumsum(in[0], 0); }});
  cases.push_back({"cumsum", {noncontiguous64(gen, {3, 4})}, [](const auto& in) { return cumsum(in[0], -1); },
                   "non-contiguous"});
  return cases;
}

STRATA_CONFORMANCE_CASES(linalg) {
  std::vector<OpCase> cases;
  Fn mm = [](const auto& in) { return matmul(in[0], in[1]); };
  cases.push_back({"matmul", {rand64(gen, {3, 4}), rand64(gen, {4, 2})}, mm, "2-D"});
  cases.push_back({"matmul", {rand64(gen, {2, 3, 4}), rand64(gen, {4, 2})}, mm, "batch broadcast"});
  cases.push_back({"matmul", {rand64(gen, {2, 1, 3, 4}), rand64(gen, {3, 4, 2})}, mm, "partial broadcast"});
  cases.push_back({"matmul", {noncontiguous64(gen, {3, 4}), rand64(gen, {4})}, mm, "matrix-vector, transposed"});
  cases.push_back({"linear", {rand64(gen, {2, 3, 4}), rand64(gen, {4, 5}), rand64(gen, {5})},
                   [](const auto& in) { return linear(in[0], in[1], in[2]); }});
  cases.push_back({"linear", {rand64(gen, {3, 4}), noncontiguous64(gen, {4, 2})},
                   [](const auto& in) { return linear(in[0], in[1]); }, "no bias, transposed weight"});
  return cases;
}

}  // namespace strata::testing
