// onnxruntime and the onnx package (PyPI, pinned) from the tests' cached virtual environment:
// the reference the ONNX tests compare Strata with. Empty python when PyPI cannot be reached:
// the tests skip, saying why.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <strata/io/npz.hpp>
#include <strata/strata.hpp>

#include "serve/test_venv.hpp"

namespace strata::testing {

inline const std::string& onnx_python() {
  static const std::string python = test_venv_python("onnx, onnxruntime", "onnx==1.23.2 onnxruntime==1.32.0");
  return python;
}

// A fresh folder for one test's files.
inline std::filesystem::path onnx_temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("strata_onnx_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A fresh folder `name` holding what the generator tests/onnx/`script` writes into it (run in
// the venv; its stderr dropped).
inline std::filesystem::path onnx_generated_files(const std::string& script, const std::string& name) {
  auto dir = onnx_temp_dir(name);
  const std::string command = "'" + onnx_python() + "' '" + STRATA_TESTS_DIR + "/onnx/" + script + "' '" +
                              dir.string() + "' 2>/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return dir;
}

// The outputs onnxruntime computes for the ONNX file at `model`.
inline std::vector<Tensor> onnxruntime_outputs(const std::filesystem::path& model, const std::vector<Tensor>& inputs) {
  const auto dir = model.parent_path();
  io::NamedTensors named;
  for (size_t i = 0; i < inputs.size(); ++i) named.push_back({"input_" + std::to_string(i), inputs[i]});
  io::save_npz((dir / "inputs.npz").string(), named);
  const std::string command = "'" + onnx_python() + "' '" + STRATA_TESTS_DIR + "/onnx/ort_run.py' '" + model.string() +
                              "' '" + (dir / "inputs.npz").string() + "' '" + (dir / "outputs.npz").string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<Tensor> outputs;
  for (auto& [n, t] : io::load_npz((dir / "outputs.npz").string())) outputs.push_back(t);
  return outputs;
}

// |a - b| <= 1e-4 (1 + |b|) everywhere, the tolerance, relative for large values.
inline void expect_close(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const auto x = a.to_vector<float>(), y = b.to_vector<float>();
  double worst = 0, largest = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, std::abs(double(x[i]) - y[i]) / (1 + std::abs(double(y[i]))));
    largest = std::max(largest, std::abs(double(y[i])));
  }
  EXPECT_LE(worst, 1e-4) << what;
  // Outputs far below the tolerance would pass whatever the graph computed.
  EXPECT_GE(largest, 1e-2) << what << ": outputs too small to compare";
}

}  // namespace strata::testing
