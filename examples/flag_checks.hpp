// CLI11 checks of the examples' numeric flags with only a lower bound. CLI11 2.1's Range needs
// an upper end and its PositiveNumber states none, so both print the type's maximum in --help
// and in their errors; these say the bound: "--batch: 1 is not an INT >= 2".
#pragma once
#include <cstdint>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace flag_checks {

// A whole number >= `least` (also rejects what is not a whole number: "abc", "2.5").
inline CLI::Validator at_least(int64_t least) {
  const std::string what = "INT >= " + std::to_string(least);
  return {[least, what](std::string& value) {
            int64_t n = 0;
            return CLI::detail::lexical_cast(value, n) && n >= least ? std::string() : value + " is not an " + what;
          },
          what};
}

// A number at least `bound`, or strictly above it (rejects NaN and what is not a number).
inline CLI::Validator number_bound(double bound, bool inclusive) {
  std::ostringstream what;
  what << "NUMBER " << (inclusive ? ">= " : "> ") << bound;
  return {[bound, inclusive, what = what.str()](std::string& value) {
            double x = 0;
            const bool ok = CLI::detail::lexical_cast(value, x) && (inclusive ? x >= bound : x > bound);
            return ok ? std::string() : value + " is not a " + what;
          },
          what.str()};
}

inline CLI::Validator not_below(double bound) { return number_bound(bound, true); }
inline CLI::Validator above(double bound) { return number_bound(bound, false); }

}  // namespace flag_checks
