// `bench_vs_libtorch --breakdown`: where a training step's time goes, layer by layer, in Strata
// and in libtorch (bench/breakdown.cpp).
#pragma once

namespace bench {

// Prints, for the TL tutorial CNN and the TL MLP at batch 128, each layer's forward and backward
// time on both sides, the loss's and Adam's, and the whole step; `reps` timed steps per row.
void print_breakdowns(int reps);

}  // namespace bench
