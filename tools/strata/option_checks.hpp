// Range checks for the command line's numeric options. CLI11's PositiveNumber refuses 0 with
// "not in range 0.000000 to 1797693134862315..." (DBL_MAX written out); these name the bounds a
// user can act on, and give options that allocate per unit (threads, model copies) a ceiling.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace strata::cli {

inline CLI::Range at_least(int64_t least, int64_t most = std::numeric_limits<int>::max()) {
  return CLI::Range(least, most);
}

// For a number that may have a fraction (seconds): an integer Range refused "2.5", and even "2.0".
inline CLI::Range at_least_number(double least, double most = std::numeric_limits<int>::max()) {
  return CLI::Range(least, most);
}

}  // namespace strata::cli
