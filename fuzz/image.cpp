// PNG or JPEG bytes (data::decode_image, libpng and libjpeg-turbo underneath): decoded with the
// file's channels, then, when that works, converted to each channel count a caller may ask for.
#include <span>

#include "fuzz_input.hpp"
#include "strata/data/image_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  bool decoded = false;
  strata::fuzz::read_or_refuse([&] {
    strata::fuzz::use_every_byte(strata::data::decode_image(bytes));
    decoded = true;
  });
  if (!decoded) return 0;
  for (int channels : {1, 3, 4})
    strata::fuzz::read_or_refuse([&] { strata::fuzz::use_every_byte(strata::data::decode_image(bytes, channels)); });
  return 0;
}
