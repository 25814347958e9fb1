// Eigen dense objects as arguments of the tensordiff gtest assertions:
// matrices in both storage orders, arrays, vectors, maps with strides,
// blocks, expressions and Eigen::half.
#include "tensordiff/testing/eigen.hpp"
#include "tensordiff/testing/gtest.hpp"

#include <gtest/gtest-spi.h>

#include <vector>

using namespace tensordiff;
using tensordiff::testing::TensorEq;
using tensordiff::testing::TensorNear;
using tensordiff::testing::Values;

namespace {
const std::vector<float> row_major_2x3{1, 2, 3, 4, 5, 6};  // [[1, 2, 3], [4, 5, 6]]
}

TEST(EigenArguments, MatricesKeepTheirLogicalLayout) {
  Eigen::MatrixXf col(2, 3);  // column-major storage
  col << 1, 2, 3, 4, 5, 6;
  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row(2, 3);
  row << 1, 2, 3, 4, 5, 6;
  const TensorView expected = Values(row_major_2x3.data(), {2, 3});
  EXPECT_THAT(col, TensorEq(expected));
  EXPECT_THAT(row, TensorEq(expected));
  EXPECT_TENSOR_CLOSE(col, row);
  Eigen::ArrayXXf arr = col.array();
  EXPECT_THAT(arr, TensorEq(expected));
}

TEST(EigenArguments, VectorsAreOneDimensional) {
  Eigen::VectorXf v(3);
  v << 1, 2, 3;
  Eigen::RowVector3f r(1, 2, 3);
  const std::vector<float> e{1, 2, 3};
  EXPECT_THAT(v, TensorEq(e));
  EXPECT_THAT(r, TensorEq(e));
}

TEST(EigenArguments, MapsBlocksAndExpressions) {
  // every second float of a buffer, as a 2x3 column-major map with inner stride 2
  std::vector<float> buf(12, -1.0f);
  const float colmajor[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) buf[2 * i] = colmajor[i];
  Eigen::Map<const Eigen::MatrixXf, 0, Eigen::Stride<4, 2>> strided(buf.data(), 2, 3);
  EXPECT_THAT(strided, TensorEq(Values(row_major_2x3.data(), {2, 3})));
  Eigen::MatrixXf big(4, 4);
  big.setZero();
  big.block(1, 1, 2, 3) << 1, 2, 3, 4, 5, 6;
  EXPECT_THAT(big.block(1, 1, 2, 3), TensorEq(Values(row_major_2x3.data(), {2, 3})));
  Eigen::MatrixXf half = big * 0.5f;
  EXPECT_TENSOR_CLOSE(big.block(1, 1, 2, 3) * 0.5f, half.block(1, 1, 2, 3));  // an expression, evaluated once
  EXPECT_THAT(big.transpose(), TensorEq(Eigen::MatrixXf(big.transpose())));
}

TEST(EigenArguments, HalfScalarsAndFailures) {
  Eigen::Matrix<Eigen::half, 2, 1> h;
  h << Eigen::half(1.0f), Eigen::half(2.0f);
  const std::vector<float16> e{float16(1.0f), float16(2.0f)};
  EXPECT_THAT(h, TensorEq(e));
  Eigen::MatrixXd m(2, 2);
  m << 1, 2, 3, 4;
  Eigen::MatrixXd n = m;
  n(1, 0) = 3.5;
  ::testing::StringMatchResultListener l;
  EXPECT_FALSE(::testing::ExplainMatchResult(TensorNear(n), m, &l));
  // (1, 0) is row 1, column 0 whatever the storage order
  EXPECT_NE(l.str().find("Greatest absolute difference: 0.5 at index (1, 0) (up to 1e-07 allowed)"),
            std::string::npos)
      << l.str();
}
