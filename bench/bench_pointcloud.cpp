// The point-cloud searches (strata/ops/pointcloud.hpp) beside plain PyTorch tensor code doing the
// same (bench/python/bench_pointcloud_torch.py), for issue 44's targets: 16 clouds of 1,024 points,
// farthest point sampling to 512, the 16 nearest of 512 queries, a ball query (radius 0.2, 32
// samples), and one PointNet++ set-abstraction step (those 512 centres, radius 0.2, 32 samples,
// shared MLP 64-64-128 with batch norm, max over each group) forward and backward; and a scan's
// size, the 16 nearest of 4,096 queries in 2 clouds of 100,000 points (knn_large, which the CPU
// runs through its uniform grid; PyTorch through cdist and topk in chunks of queries). Prints
// `strata <case> <seconds>` (best of 5), then, given a Python with torch, runs the PyTorch side and
// prints each ratio (torch / strata).
//   bench_pointcloud [PYTHON_WITH_TORCH]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "strata/ops/pointcloud.hpp"
#include "strata/points/pointnet2.hpp"
#include "strata/strata.hpp"

using namespace strata;

namespace {

double best_of(int calls, const std::function<void()>& fn) {
  fn();
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  manual_seed(1);
  const Tensor points = uniform({16, 1024, 3}, -1, 1);
  const Tensor queries = points.narrow(1, 0, 512).contiguous();
  points::SetAbstraction sa(512, 0.2, 32, {64, 64, 128});
  const Tensor scan = uniform({2, 100000, 3}, -1, 1);
  const Tensor scan_queries = scan.narrow(1, 0, 4096).contiguous();
  std::map<std::string, double> strata_s{
      {"fps", best_of(3, [&] { (void)farthest_point_sample(points, 512); })},
      {"knn", best_of(5, [&] { (void)knn(queries, points, 16); })},
      {"ball_query", best_of(5, [&] { (void)ball_query(queries, points, 0.2, 32); })},
      {"set_abstraction", best_of(2, [&] { sum(sa(points)).backward(); })},
      {"knn_large", best_of(3, [&] { (void)knn(scan_queries, scan, 16); })},
  };
  for (const auto& [name, s] : strata_s) std::printf("strata %s %.9g\n", name.c_str(), s);
  if (argc < 2) return 0;
  const std::string command = std::string(argv[1]) + " " + STRATA_BENCH_DIR "/python/bench_pointcloud_torch.py";
  FILE* torch = popen(command.c_str(), "r");
  if (!torch) return std::fprintf(stderr, "cannot run %s\n", command.c_str()), 1;
  char name[64];
  double seconds;
  while (std::fscanf(torch, "torch %63s %lf\n", name, &seconds) == 2) {
    std::printf("torch %s %.9g  ratio torch/strata %.1f\n", name, seconds, seconds / strata_s[name]);
  }
  return pclose(torch) == 0 ? 0 : 1;
}
