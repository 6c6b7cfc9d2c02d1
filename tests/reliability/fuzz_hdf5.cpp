// Crashes the fuzzers found (docs/reliability.md, "Sanitizers and fuzzing"), each kept in
// fuzz/corpus/<target>/ and replayed here in the release build too.
#include <gtest/gtest.h>

#include <string>

#include "strata/core/error.hpp"
#include "strata/io/keras.hpp"

namespace strata {
namespace {

// A Keras weight file whose dense/bias has single precision's size and fields but a bit
// precision that no native type has: libhdf5's soft conversion asked for 4 GiB to read 2 floats.
TEST(FuzzHdf5, AFloatTypeThatIsNotIeeeIsRefusedBeforeReading) {
  const std::string path =
      std::string(STRATA_TESTS_DIR) + "/../fuzz/corpus/hdf5/crash-oom-38766e5bf4ce3f3cfdb51ccbec0d51c08b8ceba9";
  try {
    io::load_keras_weights(path);
    FAIL() << "expected the odd float type to be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not IEEE half, single or double"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dense"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata
