// .npz: Strata's round trips, NumPy's files (savez, savez_compressed) and TensorLayer's
// (save_npz's pickled list, save_npz_dict) read by Strata, and Strata's files read by NumPy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"
#include "support/expect_error.hpp"
#include "fixtures/python_fixtures.hpp"
#include "strata/core/error.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/npz.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io;
using strata::testing::fixture;
using strata::testing::model_list;
using strata::testing::plain_arrays;

namespace {

using strata::testing::expect_same;

using NpzTest = strata::testing::TempDirTest;

void expect_same(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) expect_same(got[i], want[i], "element " + std::to_string(i));
}

TEST_F(NpzTest, RoundTripsEveryDtypeStoredAndCompressed) {
  for (bool compress : {false, true}) {
    save_npz(path("a.npz"), plain_arrays(), compress);
    expect_same(load_npz(path("a.npz")), plain_arrays());
  }
  // Deflate pays on repetitive data.
  const NamedTensors big{{"z", zeros({64, 64})}};
  save_npz(path("s.npz"), big);
  save_npz(path("c.npz"), big, true);
  EXPECT_LT(fs::file_size(path("c.npz")) * 10, fs::file_size(path("s.npz")));
  expect_same(load_npz(path("c.npz")), big);
}

TEST_F(NpzTest, WritesNonContiguousTensorsInLogicalOrder) {
  const Tensor m = from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  save_npz(path("t.npz"), {{"t", m.transpose(0, 1)}});
  EXPECT_EQ(load_npz(path("t.npz"))[0].second.to_vector<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST_F(NpzTest, ListsRoundTripThroughThePickle) {
  save_npz_list(path("l.npz"), model_list());
  expect_same(load_npz_list(path("l.npz")), model_list());
  save_npz_list(path("e.npz"), {});
  EXPECT_TRUE(load_npz_list(path("e.npz")).empty());
  // A plain load refuses the object array and says where lists are read.
  strata::testing::expect_error([&] { load_npz(path("l.npz")); }, {"l.npz", "params", "object array", "load_npz_list"});
  strata::testing::expect_error([&] { load_npz_list(path("l.npz"), "weights"); }, {"no array named 'weights'", "params"});
}

TEST_F(NpzTest, NpyHeaderMatchesNumpysLayout) {
  const std::string npy = encode_npy(from_vector(std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(npy[8]) | (static_cast<unsigned char>(npy[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  EXPECT_EQ(npy.substr(10, dict.size()), dict);
  EXPECT_EQ(npy.size(), 10 + header_len + 12);
  const NpyHeader h = parse_npy_header(npy, "x");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(h.dtype, kInt32);
}

TEST_F(NpzTest, ReadsNumpysSavezAndSavezCompressed) {
  expect_same(load_npz(fixture("plain.npz")), plain_arrays());
  expect_same(load_npz(fixture("compressed.npz")), plain_arrays());
}

TEST_F(NpzTest, ReadsTensorLayersSaveNpzAndSaveNpzDict) {
  expect_same(load_npz_list(fixture("tl_list.npz")), model_list());
  for (const char* key : {"p2", "p3", "p4", "p5"}) {  // every pickle protocol
    SCOPED_TRACE(key);
    expect_same(load_npz_list(fixture("pickles.npz"), key), model_list());
  }
  // NumPy stacks same-shaped lists into one array; its rows are the list.
  expect_same(load_npz_list(fixture("tl_list_same_shape.npz")),
              std::vector<Tensor>{from_vector(std::vector<float>{1, 2}), from_vector(std::vector<float>{3, 4})});
  const NamedTensors dict = load_npz(fixture("tl_dict.npz"));
  ASSERT_EQ(dict.size(), 6u);
  EXPECT_EQ(dict[0].first, "dense_1/W:0");
  EXPECT_EQ(dict[5].first, "bn/moving_var:0");
  for (size_t i = 0; i < dict.size(); ++i) expect_same(dict[i].second, model_list()[i], dict[i].first);
}

// Strata writes; NumPy and h5py read and check the values (make_fixtures.py check).
TEST_F(NpzTest, NumpyAndH5pyReadStratasFiles) {
  STRATA_NEED_PYTHON();
  save_npz(path("strata_plain.npz"), plain_arrays());
  save_npz(path("strata_compressed.npz"), plain_arrays(), true);
  save_npz_list(path("strata_list.npz"), model_list());
  const auto w = model_list();
  save_hdf5_weights(path("strata_tl.h5"),
                    {{"dense_1", {{"dense_1/W:0", w[0]}, {"dense_1/b:0", w[1]}}},
                     {"bn", {{"bn/beta:0", w[2]}, {"bn/gamma:0", w[3]}, {"bn/moving_mean:0", w[4]}, {"bn/moving_var:0", w[5]}}},
                     {"flags", {{"flags/mask", from_vector(std::vector<bool>{true, false, true})}}}});
  EXPECT_EQ(strata::testing::run_fixture_script("check", dir_.string()), 0) << "see make_fixtures.py's message above";
}

}  // namespace
