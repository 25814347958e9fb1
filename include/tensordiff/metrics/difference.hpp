// tensordiff — the element-wise difference a − b as a tensor (the CLI's
// --save-diff), computed exactly in double for any dtype pair and layout.
#pragma once
#include "../core/tensor.hpp"
#include "detail/pairing.hpp"

TD_NAMESPACE_BEGIN

/// a − b as a C-contiguous float64 tensor of a's shape. The shapes must be
/// equal (extent-1 dimensions ignored); complex inputs are rejected.
inline Tensor difference(const TensorView& a, const TensorView& b) {
  if (a.squeezed().shape != b.squeezed().shape)
    throw Error(ErrorCategory::mismatch, "cannot subtract tensors of shapes " + shape_to_string(a.shape) + " and " +
                                             shape_to_string(b.shape));
  Tensor out = Tensor::zeros(DType::float64, a.shape);
  double* o = out.mutable_data<double>();
  const TensorView sa = a.squeezed(), sb = b.squeezed();
  detail::for_each_promoted_block<double, double>(sa, sb, 0, sa.numel(),
                                                   [&](const double* x, const double* y, std::size_t n, std::uint64_t pos) {
                                                     for (std::size_t i = 0; i < n; ++i) o[pos + i] = x[i] - y[i];
                                                   });
  return out;
}

TD_NAMESPACE_END
