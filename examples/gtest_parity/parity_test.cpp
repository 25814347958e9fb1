// A user-style parity test: a hand-written C++ layer norm against a golden
// output that numpy computed in float64 (make_golden.py writes both .npy files).
#include <tensordiff/io/registry.hpp>
#include <tensordiff/testing/gtest.hpp>

#include <gtest/gtest-spi.h>

#include <cmath>
#include <string>
#include <vector>

using tensordiff::testing::FromFile;
using tensordiff::testing::TensorNear;
using tensordiff::testing::Values;
namespace standards = tensordiff::standards;

namespace {

const std::string dir = GOLDEN_DIR;

/// Layer norm over the last axis, float32 throughout (the kernel under test).
/// `unbiased` reproduces a classic bug: dividing the variance by n − 1.
std::vector<float> layer_norm(const float* x, int rows, int cols, float eps, bool unbiased = false) {
  std::vector<float> y(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<std::size_t>(r) * cols;
    float mean = 0;
    for (int c = 0; c < cols; ++c) mean += row[c];
    mean /= static_cast<float>(cols);
    float var = 0;
    for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
    var /= static_cast<float>(unbiased ? cols - 1 : cols);
    const float inv = 1.0f / std::sqrt(var + eps);
    for (int c = 0; c < cols; ++c) y[static_cast<std::size_t>(r) * cols + c] = (row[c] - mean) * inv;
  }
  return y;
}

struct Input {
  tensordiff::Tensor x;
  int rows, cols;
};

Input load_input() {
  auto t = tensordiff::io::load_one(dir + "/input.npy").tensor;
  return {t, static_cast<int>(t.shape()[0]), static_cast<int>(t.shape()[1])};
}

}  // namespace

TEST(LayerNormParity, MatchesTheNumpyGolden) {
  const Input in = load_input();
  const std::vector<float> y = layer_norm(in.x.data<float>(), in.rows, in.cols, 1e-5f);
  // float32 vs the float64 golden: torch.testing's float32 tolerances.
  EXPECT_TENSOR_CLOSE(Values(y.data(), {in.rows, in.cols}), FromFile(dir + "/layernorm_golden.npy"));
  // the same check as a gMock matcher, under Polygraphy's rule
  EXPECT_THAT(Values(y.data(), {in.rows, in.cols}),
              TensorNear(FromFile(dir + "/layernorm_golden.npy"), standards::Polygraphy{}));
}

TEST(LayerNormParity, ABrokenKernelFailsWithATorchStyleReport) {
  const Input in = load_input();
  const std::vector<float> y = layer_norm(in.x.data<float>(), in.rows, in.cols, 1e-5f, /*unbiased=*/true);
  // the n − 1 bug scales every output by sqrt(63/64): about 0.8 % off
  EXPECT_NONFATAL_FAILURE(
      EXPECT_TENSOR_CLOSE(Values(y.data(), {in.rows, in.cols}), FromFile(dir + "/layernorm_golden.npy")),
      "Tensor-likes are not close!");
}
