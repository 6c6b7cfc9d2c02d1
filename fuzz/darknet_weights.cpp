// darknet .weights files (vision::load_darknet_weights) for a small network with and without
// batch norm: the header's versions, and every length short of, at and past what the cfg needs.
// Seeds in corpus/darknet_weights/: the network's weights with a 64-bit and a 32-bit `seen`.
#include "fuzz_input.hpp"
#include "strata/vision/darknet.hpp"

namespace {

constexpr const char* kCfg = R"([net]
width=8
height=8
channels=3
[convolutional]
batch_normalize=1
filters=4
size=3
pad=1
activation=leaky
[convolutional]
filters=14
size=1
activation=linear
[yolo]
mask=0,1
anchors=1,2,3,4
num=2
classes=2
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const strata::vision::DarknetNetwork net = strata::vision::parse_darknet_cfg(kCfg);
  const std::string& path = strata::fuzz::input_file(data, size, ".weights");
  strata::fuzz::read_or_refuse([&] {
    strata::vision::load_darknet_weights(net, path);
    for (const strata::Tensor& w : net.model->all_weights()) strata::fuzz::use_every_byte(w);
  });
  return 0;
}
