// `strata devices`: the devices this machine can run tensors on (as torch.cuda.is_available()
// answers in PyTorch): the CPU with its OpenMP threads, and CUDA or the reason it is not there
// (docs/cuda.md). Exits 0 either way: no GPU is a fact, not an error.
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_device_commands(CLI::App& app);

}  // namespace strata::cli
