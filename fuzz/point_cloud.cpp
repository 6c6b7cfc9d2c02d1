// Point-cloud files (points::parse_ply, parse_off, parse_pcd, parse_xyz, parse_csv): the first
// byte picks the reader, the rest is the file. Each seed in corpus/point_cloud/ starts with the
// byte of its format: 0 PLY, 1 OFF, 2 PCD, 3 XYZ, 4 CSV.
#include <string_view>

#include "fuzz_input.hpp"
#include "strata/points/files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata::points;
  using Reader = PointCloudFile (*)(std::string_view, std::string_view);
  static constexpr Reader kReaders[] = {parse_ply, parse_off, parse_pcd, parse_xyz, parse_csv};
  if (size == 0) return 0;
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  strata::fuzz::read_or_refuse([&] {
    const PointCloudFile cloud = kReaders[data[0] % std::size(kReaders)](file, {});
    strata::fuzz::use_every_byte(cloud.points);
    strata::fuzz::use_every_byte(cloud.properties);
    strata::fuzz::use_every_byte(cloud.faces);
  });
  return 0;
}
