#include "bindings.hpp"

namespace strata::python {
namespace {

// Deeper values are refused: a config or record nested this far is not one a user wrote.
constexpr int kMaxDepth = 64;

nlohmann::json to_json_at(py::handle v, const std::string& what, int depth) {
  STRATA_CHECK(depth < kMaxDepth, what, ": nested deeper than ", kMaxDepth, " levels");
  if (v.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::dict>(v)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto [k, item] : v.cast<py::dict>()) {
      STRATA_CHECK(py::isinstance<py::str>(k), what, ": dictionary keys must be strings");
      out[k.cast<std::string>()] = to_json_at(item, what, depth + 1);
    }
    return out;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    nlohmann::json out = nlohmann::json::array();
    for (auto item : v) out.push_back(to_json_at(item, what, depth + 1));
    return out;
  }
  // NumPy scalars and other numbers.
  if (py::hasattr(v, "__index__")) return v.attr("__index__")().cast<int64_t>();
  if (py::hasattr(v, "__float__")) return v.attr("__float__")().cast<double>();
  throw Error(what + ": a value of type " + py::str(py::type::of(v)).cast<std::string>() +
              " cannot be an option (numbers, strings, booleans, lists and dicts can)");
}

}  // namespace

nlohmann::json to_json(py::handle value, const std::string& what) { return to_json_at(value, what, 0); }

py::object from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(from_json(item));
      return out;
    }
    default: {
      py::dict out;
      for (const auto& [k, item] : j.items()) out[py::str(k)] = from_json(item);
      return out;
    }
  }
}

}  // namespace strata::python
