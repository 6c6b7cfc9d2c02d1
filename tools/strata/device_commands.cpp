#include "device_commands.hpp"

#include <omp.h>

#include <iostream>

#include "strata/core/allocator.hpp"

namespace strata::cli {

void add_device_commands(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("devices", "List the devices tensors can live on here (cpu, cuda)");
  cmd->callback([] {
    std::cout << "cpu: available (" << omp_get_max_threads() << " OpenMP threads)\n";
    if (device_available(DeviceType::CUDA)) std::cout << "cuda: available (cuda:0)\n";
    else std::cout << "cuda: not available: " << device_unavailable_reason(DeviceType::CUDA) << "\n";
  });
}

}  // namespace strata::cli
