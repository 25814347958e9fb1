// tensordiff — summarize(): one tensor's statistics (numpy semantics).
#pragma once
#include <cmath>
#include <limits>

#include "../core/detail/runs.hpp"
#include "../core/visit.hpp"
#include "../kernels/default.hpp"
#include "../kernels/partial.hpp"

TD_NAMESPACE_BEGIN

/// Statistics of one tensor. min/max/mean/sum/l2norm follow numpy: NaN if any
/// element is NaN, ±inf where infinities decide them, NaN for an empty tensor.
/// finite_min/finite_max ignore non-finite elements (NaN if there are none).
struct Summary {
  DType dtype = DType::float32;  ///< of the tensor
  Shape shape;                   ///< of the tensor
  std::uint64_t numel = 0;       ///< element count
  ///@{ numpy's min(), max(), mean(), sum() and the L2 norm, in double precision.
  double min = 0, max = 0, mean = 0, sum = 0, l2norm = 0;
  ///@}
  ///@{ Smallest and largest finite element.
  double finite_min = 0, finite_max = 0;
  ///@}
  ///@{ Non-finite element counts.
  std::uint64_t nan_count = 0, pos_inf_count = 0, neg_inf_count = 0;
  ///@}
  bool has_nan_or_inf = false;  ///< any non-finite element
  /// Finite values that would become ±inf if cast to float16 / bfloat16
  /// (|x| ≥ 65520, resp. ≥ 0x1.fep127 rounded), i.e. the value range overflows.
  bool overflows_float16 = false;
  bool overflows_bfloat16 = false;  ///< as overflows_float16, for bfloat16
  SideStats stats;  ///< the raw accumulator

  /// Elements that are +inf or -inf.
  std::uint64_t inf_count() const noexcept { return pos_inf_count + neg_inf_count; }
};

/// Numpy-style statistics from a SideStats over `numel` elements.
inline Summary make_summary(const SideStats& s, DType dtype, Shape shape, std::uint64_t numel) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double inf = std::numeric_limits<double>::infinity();
  Summary r;
  r.dtype = dtype;
  r.shape = std::move(shape);
  r.numel = numel;
  r.stats = s;
  r.nan_count = s.nan_count;
  r.pos_inf_count = s.pos_inf_count;
  r.neg_inf_count = s.neg_inf_count;
  r.has_nan_or_inf = s.nonfinite_count() > 0;
  const bool any_finite = s.nonfinite_count() < numel;
  r.finite_min = any_finite ? s.finite_min : nan;
  r.finite_max = any_finite ? s.finite_max : nan;
  if (numel == 0 || s.nan_count > 0) {
    r.min = r.max = r.mean = r.sum = r.l2norm = nan;
    if (numel == 0) r.sum = 0, r.l2norm = 0;  // numpy: sum([]) == 0, norm([]) == 0
  } else {
    r.min = s.neg_inf_count ? -inf : any_finite ? s.finite_min : inf;
    r.max = s.pos_inf_count ? inf : any_finite ? s.finite_max : -inf;
    if (s.pos_inf_count && s.neg_inf_count) r.sum = nan;
    else if (s.pos_inf_count) r.sum = inf;
    else if (s.neg_inf_count) r.sum = -inf;
    else r.sum = s.sum;
    r.mean = r.sum / static_cast<double>(numel);
    r.l2norm = s.pos_inf_count || s.neg_inf_count ? inf : std::sqrt(s.sum_sq);
  }
  const double peak = any_finite ? std::fmax(std::fabs(s.finite_min), std::fabs(s.finite_max)) : 0.0;
  r.overflows_float16 = peak >= float16_overflow_threshold;
  r.overflows_bfloat16 = peak >= bfloat16_overflow_threshold;
  return r;
}

/// Statistics of a view (any strides and byte order; complex is rejected).
template <class Kernel = kernels::Default> Summary summarize(const TensorView& v) {
  const std::uint64_t n = v.numel();
  SideStats s;
  visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_run<T>(v, 0, n, [&](const T* p, std::size_t m, std::uint64_t) { Kernel::summarize(p, m, s); });
  }, "summarize()");
  return make_summary(s, v.dtype, v.shape, n);
}

TD_SEPARATE_PASS(Summary summarize<kernels::Default>(const TensorView&))  // compiled once (core/config.hpp)

TD_NAMESPACE_END
