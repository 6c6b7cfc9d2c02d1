// The benchmark cases, by family. Each factory builds its inputs once (the same values on both
// sides) and returns cases ready for bench::run.
#pragma once
#include <vector>

#include "harness.hpp"

namespace bench {

std::vector<Case> dense_cases();      // SGEMM, batched matmul, MLP training step and inference
std::vector<Case> conv_cases();       // conv2d NHWC forward and backward
std::vector<Case> pointwise_cases();  // element-wise, reductions, softmax, per-op overhead
std::vector<Case> network_cases();    // whole nn models: MLP and CNN training and batch-1 inference
std::vector<Case> rnn_cases();        // LSTM with the PTB "small" shapes, training and inference
std::vector<Case> bf16_cases();       // MLP and CNN training in bf16 mixed precision (autocast)

}  // namespace bench
