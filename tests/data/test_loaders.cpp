// read_csv and read_cifar10/100 on small files written here, and the ways they can be wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "support/temp_dir.hpp"
#include "strata/data/cifar.hpp"
#include "strata/data/csv.hpp"

using namespace strata;
using namespace strata::data;

namespace {

class Loaders : public strata::testing::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
};

// The message of the strata::Error that fn throws ("" when it throws none).
template <class F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A CIFAR record: label bytes, then pixel (y, x) of channel c = (y * 32 + x + 7 * c) % 256.
std::string cifar_record(std::vector<unsigned char> labels) {
  std::string r(labels.begin(), labels.end());
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 1024; ++p) r += static_cast<char>((p + 7 * c) % 256);
  return r;
}

}  // namespace

TEST_F(Loaders, CsvTypedColumns) {
  const std::string p = write("iris.csv",
                              "id,sepal length,\"petal, width\",species\r\n"
                              "1,5.1,0.2,setosa\r\n"
                              "2, 7.0 ,1.4,versicolor\n"
                              "\n"
                              "3,-1e2,,setosa\n");
  CsvTable t = read_csv(p, {.label_column = "species", .ignore_columns = {"id"}});
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"sepal length", "petal, width"}));
  EXPECT_EQ(t.features.dtype(), kFloat32);
  ASSERT_EQ(t.features.shape(), Shape({3, 2}));
  std::vector<float> f = t.features.to_vector<float>();
  EXPECT_FLOAT_EQ(f[0], 5.1f);
  EXPECT_FLOAT_EQ(f[2], 7.0f);
  EXPECT_FLOAT_EQ(f[4], -100.0f);
  EXPECT_TRUE(std::isnan(f[5]));
  EXPECT_EQ(t.labels.dtype(), kInt64);
  EXPECT_EQ(t.classes, (std::vector<std::string>{"setosa", "versicolor"}));
  EXPECT_EQ(t.labels.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0}));

  Dataset ds = t.dataset();
  EXPECT_EQ(ds.size(), 3);
  EXPECT_EQ(ds.get(1)[1].item<int64_t>(), 1);

  CsvTable numeric = read_csv(write("n.csv", "a;label\n1;3\n2;-1\n"), {.delimiter = ';', .label_column = "label"});
  EXPECT_TRUE(numeric.classes.empty());
  EXPECT_EQ(numeric.labels.to_vector<int64_t>(), (std::vector<int64_t>{3, -1}));
  EXPECT_FALSE(read_csv(write("u.csv", "a,b\n1,2\n")).labels.defined());
}

TEST_F(Loaders, CsvErrorsNameFileLineAndColumn) {
  const std::string bad_number = write("bad.csv", "x,y\n1,2\n3,abc\n");
  std::string e = error_of([&] { read_csv(bad_number); });
  EXPECT_NE(e.find(bad_number + ":3"), std::string::npos) << e;
  EXPECT_NE(e.find("column 'y'"), std::string::npos) << e;
  EXPECT_NE(e.find("'abc'"), std::string::npos) << e;

  const std::string ragged = write("ragged.csv", "x,y\n1,2,3\n");
  e = error_of([&] { read_csv(ragged); });
  EXPECT_NE(e.find(ragged + ":2: 3 fields, expected 2"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { read_csv(ragged, {.label_column = "z"}); }).find("no column named 'z'"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(write("empty.csv", "")); }).find("empty file"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(path("missing.csv")); }).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(write("q.csv", "x\n\"1\n")); }).find("unterminated"), std::string::npos);
}

TEST_F(Loaders, Cifar10RecordsToHwc) {
  const std::string p = write("data_batch_1.bin", cifar_record({3}) + cifar_record({9}));
  CifarBatch b = read_cifar10(p);
  ASSERT_EQ(b.images.shape(), Shape({2, 32, 32, 3}));
  EXPECT_EQ(b.images.dtype(), kUInt8);
  EXPECT_EQ(b.labels.to_vector<uint8_t>(), (std::vector<uint8_t>{3, 9}));
  EXPECT_FALSE(b.coarse_labels.defined());
  const std::vector<uint8_t> px = b.images.to_vector<uint8_t>();
  for (int y : {0, 5, 31})
    for (int x : {0, 17, 31})
      for (int c = 0; c < 3; ++c) {
        const int64_t at = ((32 * 32 * 3) + (y * 32 + x) * 3 + c);  // image 1
        EXPECT_EQ(px[at], (y * 32 + x + 7 * c) % 256) << "y=" << y << " x=" << x << " c=" << c;
      }

  CifarBatch fine = read_cifar100(write("train.bin", cifar_record({19, 99})));
  EXPECT_EQ(fine.labels.to_vector<uint8_t>(), (std::vector<uint8_t>{99}));
  EXPECT_EQ(fine.coarse_labels.to_vector<uint8_t>(), (std::vector<uint8_t>{19}));
}

TEST_F(Loaders, CifarBadFiles) {
  const std::string truncated = write("t.bin", cifar_record({1}).substr(0, 3000));
  std::string e = error_of([&] { read_cifar10(truncated); });
  EXPECT_NE(e.find(truncated), std::string::npos) << e;
  EXPECT_NE(e.find("not a whole number of 3073-byte records"), std::string::npos) << e;
  const std::string bad_label = write("l.bin", cifar_record({0}) + cifar_record({10}));
  e = error_of([&] { read_cifar10(bad_label); });
  EXPECT_NE(e.find("record 1 has label 10, expected 0..9"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { read_cifar100(write("c.bin", cifar_record({20, 5}))); }).find("coarse label 20"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_cifar10(path("nowhere")); }).find("cannot open"), std::string::npos);
}
