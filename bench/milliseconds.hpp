// The wall time of one call, for the benches that time whole operations once.
#pragma once
#include <chrono>

template <class F>
double milliseconds(F fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
