// tensordiff — the element-wise difference actual − expected as a tensor (the
// CLI's --save-diff), computed exactly in double for any dtype pair and layout.
#pragma once
#include "../core/tensor.hpp"
#include "detail/pairing.hpp"

TD_NAMESPACE_BEGIN

/// actual − expected as a C-contiguous float64 tensor of actual's shape. The
/// shapes must be equal (extent-1 dimensions ignored); complex inputs are rejected.
inline Tensor difference(const TensorView& actual, const TensorView& expected) {
  const detail::SqueezedView squeezed_a(actual, true), squeezed_e(expected, true);
  const TensorView &a = *squeezed_a, &e = *squeezed_e;
  if (a.shape != e.shape)
    throw Error(ErrorCategory::mismatch, "cannot subtract tensors of shapes " + shape_to_string(actual.shape) +
                                             " and " + shape_to_string(expected.shape));
  Tensor out = Tensor::zeros(DType::float64, actual.shape);
  double* o = out.mutable_data<double>();
  detail::for_each_promoted_block<double, double>(a, e, 0, a.numel(),
                                                   [&](const double* x, const double* y, std::size_t n, std::uint64_t pos) {
                                                     for (std::size_t i = 0; i < n; ++i) o[pos + i] = x[i] - y[i];
                                                   });
  return out;
}

TD_NAMESPACE_END
