// tensordiff — Eigen dense objects as tensor arguments of the test matchers.
//
//   #include <tensordiff/testing/eigen.hpp>
//   Eigen::MatrixXf m = ...;
//   EXPECT_TENSOR_CLOSE(m, FromFile("golden/m.npy"));
//
// Matrices and arrays are 2-D [rows, cols] views in their own storage order
// and strides (no copy); compile-time vectors (one row or one column) are
// 1-D. Maps and blocks with direct access are viewed in place; other
// expressions (a + b, m.transpose() * 2) are evaluated once into a plain
// object that the argument keeps alive. Eigen::half and Eigen::bfloat16 are
// read as float16 / bfloat16 (same bits). Link tensordiff::eigen.
#pragma once
#include <Eigen/Core>
#include <memory>
#include <type_traits>

#include "adapt.hpp"

TD_NAMESPACE_BEGIN
namespace testing {
namespace detail {
template <class S> struct eigen_scalar {
  using type = S;
};
template <> struct eigen_scalar<Eigen::half> {
  using type = float16;
};
template <> struct eigen_scalar<Eigen::bfloat16> {
  using type = bfloat16;
};
}  // namespace detail

/// Eigen dense objects (matrices, arrays, maps, blocks, expressions) as tensor arguments; see
/// the header comment for the shapes and when a copy is made.
template <class T>
struct tensor_adapter<T, std::enable_if_t<std::is_base_of_v<Eigen::DenseBase<T>, T>>> {
  /// This adapter exists.
  static constexpr bool specialized = true;

  /// A view of `x` in place when it has direct access (plain objects, maps, blocks); otherwise
  /// `x` is evaluated once into a plain object that the returned TensorArg keeps alive.
  static TensorArg adapt(const T& x) {
    if constexpr ((static_cast<unsigned>(T::Flags) & Eigen::DirectAccessBit) != 0) {
      return view_of(x);
    } else {
      auto keep = std::make_shared<typename T::PlainObject>(x);
      TensorArg a = view_of(*keep);
      a.keep = keep;
      return a;
    }
  }

 private:
  template <class D> static TensorArg view_of(const D& x) {
    using S = typename detail::eigen_scalar<std::remove_cv_t<typename D::Scalar>>::type;
    static_assert(sizeof(S) == sizeof(typename D::Scalar), "Eigen scalar and tensordiff element differ in size");
    const auto* data = reinterpret_cast<const S*>(x.data());
    const auto rows = static_cast<std::int64_t>(x.rows()), cols = static_cast<std::int64_t>(x.cols());
    const auto inner = static_cast<std::int64_t>(x.innerStride()), outer = static_cast<std::int64_t>(x.outerStride());
    if constexpr (D::IsVectorAtCompileTime) {
      return {TensorView::of(data, {rows * cols}, {inner}), nullptr, {}};
    } else if constexpr (static_cast<bool>(D::IsRowMajor)) {
      return {TensorView::of(data, {rows, cols}, {outer, inner}), nullptr, {}};
    } else {
      return {TensorView::of(data, {rows, cols}, {inner, outer}), nullptr, {}};
    }
  }
};

}  // namespace testing
TD_NAMESPACE_END
