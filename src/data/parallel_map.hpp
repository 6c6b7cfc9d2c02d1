// Applies a MapFn to a batch of examples on several threads, in place, keeping their order.
#pragma once
#include <vector>

#include "strata/data/stream.hpp"

namespace strata::data::detail {

// The first exception thrown by fn is rethrown here, after all threads have stopped.
void parallel_map(std::vector<Example>& examples, const MapFn& fn, int threads);

}  // namespace strata::data::detail
