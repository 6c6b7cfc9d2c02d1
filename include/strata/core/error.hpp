// strata::Error — the one exception type every Strata failure derives from.
// Messages say what was expected and what came (shapes, dtypes, names the user typed).
#pragma once
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <type_traits>

namespace strata {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Reading the data of a meta tensor (core/device.hpp), which has none. Static models catch it to
// learn a layer's shapes from a real batch-1 probe instead, for ops with no shape-only path.
class NoDataError : public Error {
 public:
  using Error::Error;
};

// Memory for a tensor could not be had: the machine's memory, or the process's limit (ulimit -v,
// a cgroup), is exhausted. The message says how much was asked for.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// Throws strata::Error with the concatenation of the message parts when `cond` is false.
#define STRATA_CHECK(cond, ...)                                          \
  do {                                                                   \
    if (!(cond)) throw ::strata::Error(::strata::detail::concat(__VA_ARGS__)); \
  } while (0)

namespace detail {
std::string concat_impl(std::initializer_list<std::string> parts);
template <class T>
std::string to_piece(const T& v) {
  if constexpr (std::is_convertible_v<T, std::string>) return std::string(v);
  else return std::to_string(v);
}
template <class... Args>
std::string concat(const Args&... args) {
  return concat_impl({to_piece(args)...});
}
}  // namespace detail
}  // namespace strata
