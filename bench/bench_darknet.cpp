// YOLOv4 and YOLOv4-tiny read from their published cfgs (tests/vision/fixtures/) and run forward
// at 416x416, batch 1, in eval mode with random weights, beside PyTorch running the same cfgs
// through tests/vision/make_darknet_fixtures.py's reference model
// (bench/python/bench_darknet_torch.py). Prints `strata <network> <seconds>` (best of 3), then,
// given a Python with torch, the PyTorch times and each ratio (torch / strata).
//   bench_darknet [PYTHON_WITH_TORCH]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "strata/strata.hpp"
#include "strata/vision/darknet.hpp"

using namespace strata;

int main(int argc, char** argv) {
  manual_seed(1);
  std::map<std::string, double> strata_s;
  for (const char* name : {"yolov4", "yolov4-tiny"}) {
    auto net = vision::read_darknet_cfg(std::string(STRATA_TESTS_DIR) + "/vision/fixtures/" + name + ".cfg",
                                        {.width = 416, .height = 416});
    net.model->eval();
    NoGradGuard no_grad;
    const Tensor image = rand({1, 416, 416, 3});
    net.model->run({image});  // warm-up: oneDNN primitives are made on the first call
    double best = 1e30;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      net.model->run({image});
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    strata_s[name] = best;
    std::printf("strata %s %.4f\n", name, best);
  }
  if (argc < 2) return 0;
  const std::string command = std::string(argv[1]) + " " + STRATA_BENCH_DIR "/python/bench_darknet_torch.py";
  FILE* torch = popen(command.c_str(), "r");
  if (!torch) return std::fprintf(stderr, "cannot run %s\n", command.c_str()), 1;
  char name[64];
  double seconds;
  while (std::fscanf(torch, "torch %63s %lf\n", name, &seconds) == 2)
    std::printf("torch %s %.4f  ratio %.2f\n", name, seconds, seconds / strata_s.at(name));
  return pclose(torch) == 0 ? 0 : 1;
}
