// tensordiff — the element-wise tolerance standards: torch, numpy (and its
// isclose defaults), ulp(n) and bitwise identity.
//
// Each is a small value type with
//   Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& = {}) const;
// `expected` is the reference (bench / golden): every rule here is asymmetric
// in the same way as torch.testing and numpy (|a − e| ≤ atol + rtol·|e|).
// Each runs one exact pass over both views (any strides, byte orders and dtype
// pairs; integers compared as integers, floats widened exactly to double).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "detail/elementwise.hpp"
#include "verdict.hpp"

TD_NAMESPACE_BEGIN

namespace detail {
/// The torch / numpy rule: a matches e when a == e (so inf matches
/// only the same inf, −0 matches +0), when both are NaN and equal_nan, or when
/// |a − e| is finite and ≤ atol + rtol·|e|. Integers compare exactly;
/// `int_rel_float32`: their relative difference is float32(|a − e|) /
/// float32(|e|) rounded to float32, as torch's true division of integer
/// tensors gives (its default float dtype), so messages print torch's digits.
inline Verdict check_asymmetric(const TensorView& a, const TensorView& e, double rtol, double atol, bool equal_nan,
                                Verdict v, const CheckOptions& o, bool int_rel_float32 = false) {
  v.kind = VerdictKind::tolerance;
  v.rtol = rtol;
  v.atol = atol;
  v.equality = rtol == 0 && atol == 0;
  if (!begin_verdict(v, a, e)) return v;
  const bool exact = v.equality;
  auto judge = [&](auto xa, auto xe, double da, double de) {
    Judgement j;
    if constexpr (detail::is_integral_storage_v<decltype(xa)> && detail::is_integral_storage_v<decltype(xe)>) {
      // exact, rounded once to double: zero exactly when the integers are equal
      const double d = exact_abs_diff(xa, xe);
      if (TD_LIKELY(d == 0)) return j;
      j.abs_diff = d;
      j.allowed = atol + rtol * std::fabs(de);
      j.mismatch = exact || !(j.abs_diff <= j.allowed);
      if (int_rel_float32) {
        j.rel_diff = static_cast<double>(static_cast<float>(d) / static_cast<float>(std::fabs(de)));
        j.rank = j.abs_diff;
        return j;
      }
    } else {
      if (TD_LIKELY(da == de)) return j;
      j.allowed = atol + rtol * std::fabs(de);
      if (std::isnan(da) || std::isnan(de)) {
        j.mismatch = !(equal_nan && std::isnan(da) && std::isnan(de));
        j.abs_diff = j.rel_diff = j.rank = nan_v;
        return j;
      }
      j.abs_diff = std::fabs(da - de);
      j.mismatch = !(std::isfinite(j.abs_diff) && j.abs_diff <= j.allowed);
    }
    j.rel_diff = j.abs_diff / std::fabs(de);
    j.rank = j.abs_diff;
    return j;
  };
  take_elementwise(v, run_elementwise(a, e, o.worst_count, judge));
  v.level = v.mismatched ? VerdictLevel::error : VerdictLevel::pass;
  return v;
}
}  // namespace detail

namespace standards {

/// torch.testing.assert_close: |a − e| ≤ atol + rtol·|e| per element, computed
/// in float64 as torch does after promotion (the relative difference of two
/// integer tensors in float32, torch's default dtype). Unset tolerances take torch's
/// per-dtype defaults; for a mixed pair the larger of each (the less precise
/// dtype's). Setting only one of rtol/atol throws, as torch raises ValueError.
struct Torch {
  ///@{
  /// Relative and absolute tolerance; both unset (torch's per-dtype defaults) or both set.
  std::optional<double> rtol, atol;
  ///@}
  /// NaN matches NaN (torch's equal_nan); off by default, as in torch.
  bool equal_nan = false;

  /// torch's `_DTYPE_PRECISIONS`: {rtol, atol}; integers and bool {0, 0}.
  static std::pair<double, double> defaults(DType t) noexcept {
    switch (t) {
      case DType::float16: return {1e-3, 1e-5};
      case DType::bfloat16: return {1.6e-2, 1e-5};
      case DType::float32:
      case DType::complex64: return {1.3e-6, 1e-5};
      case DType::float64:
      case DType::complex128: return {1e-7, 1e-7};
      default: return {0.0, 0.0};
    }
  }

  /// The {rtol, atol} used for this dtype pair.
  std::pair<double, double> tolerances(DType actual, DType expected) const {
    if (rtol.has_value() != atol.has_value())
      throw Error(ErrorCategory::invalid_argument,
                  "torch standard: both 'rtol' and 'atol' must be given, or neither (torch.testing raises ValueError)");
    if (rtol) return {*rtol, *atol};
    const auto da = defaults(actual), de = defaults(expected);
    return {std::max(da.first, de.first), std::max(da.second, de.second)};
  }

  /// Without dtypes: the tolerances when set, else "by dtype".
  std::string describe() const {
    if (rtol.has_value() != atol.has_value()) return "torch (invalid: only one of rtol/atol set)";
    if (!rtol) return std::string("torch (rtol/atol: torch.testing defaults of the dtypes") + (equal_nan ? ", equal_nan=True" : "") + ")";
    return "torch (rtol=" + detail::num(*rtol) + ", atol=" + detail::num(*atol) + (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  /// With dtypes: the tolerances this pair is checked with, e.g. "torch (rtol=1.3e-06, atol=1e-05)".
  /// Throws Error{invalid_argument} when only one of rtol / atol is set.
  std::string describe(DType actual, DType expected) const {
    const auto [r, a] = tolerances(actual, expected);
    return "torch (rtol=" + detail::num(r) + ", atol=" + detail::num(a) + (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  /// Judges `actual` against the reference `expected` (same shape; any strides, byte orders
  /// and real dtype pair). A shape mismatch is an error Verdict, not an exception; complex
  /// dtypes throw Error{unsupported}. Keeps the o.worst_count worst mismatching elements.
  /// Throws Error{invalid_argument} when only one of rtol / atol is set.
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
    const auto [r, a] = tolerances(actual.dtype, expected.dtype);
    Verdict v;
    v.standard = "torch";
    v.description = describe(actual.dtype, expected.dtype);
    return detail::check_asymmetric(actual, expected, r, a, equal_nan, std::move(v), o, true);
  }
};

/// numpy's closeness rule: |a − e| ≤ atol + rtol·|e| per element, NaN equal
/// to NaN only with equal_nan (numpy evaluates it in the arrays' dtype,
/// tensordiff in float64 on the exactly widened values, as torch does). One
/// rule, two sets of defaults:
///   Numpy{}           numpy.testing.assert_allclose: rtol 1e-7, atol 0, equal_nan on
///   Numpy::isclose()  numpy.isclose / numpy.allclose: rtol 1e-5, atol 1e-8, equal_nan off
struct Numpy {
  /// Relative tolerance, a multiple of |expected| (assert_allclose's 1e-7 by default).
  double rtol = 1e-7;
  /// Absolute tolerance, in the elements' units (assert_allclose's 0 by default).
  double atol = 0;
  /// NaN matches NaN (assert_allclose's default; isclose's is off).
  bool equal_nan = true;

  /// numpy.isclose's (and numpy.allclose's) defaults.
  static constexpr Numpy isclose() noexcept { return Numpy{1e-5, 1e-8, false}; }

  /// Name and parameters: "numpy (rtol=1e-07, atol=0, equal_nan=True)".
  std::string describe() const {
    return "numpy (rtol=" + detail::num(rtol) + ", atol=" + detail::num(atol) +
           ", equal_nan=" + (equal_nan ? "True" : "False") + ")";
  }
  /// Judges `actual` against the reference `expected` (same shape; any strides, byte orders
  /// and real dtype pair). A shape mismatch is an error Verdict, not an exception; complex
  /// dtypes throw Error{unsupported}. Keeps the o.worst_count worst mismatching elements.
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
    Verdict v;
    v.standard = "numpy";
    v.description = describe();
    return detail::check_asymmetric(actual, expected, rtol, atol, equal_nan, std::move(v), o);
  }
};

/// At most `max_ulps` units in the last place apart, measured in the less
/// precise floating dtype of the pair (both values rounded to it; bf16 and f16
/// included). ±0 are 0 apart; ±inf is one step beyond the largest finite
/// value (as gtest's FloatEq); NaN never matches unless equal_nan. Integer
/// pairs: the exact difference (integers are 1 apart per step).
struct Ulp {
  /// Largest allowed distance, in ULPs of the less precise dtype (4, as gtest's FloatEq).
  std::uint64_t max_ulps = 4;
  /// NaN matches NaN (any payload); off by default.
  bool equal_nan = false;

  /// Name and parameters without dtypes: "ulp (max 4 ULP in the less precise dtype)".
  std::string describe() const {
    return "ulp (max " + std::to_string(max_ulps) + " ULP in the less precise dtype" + (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  /// With dtypes: names the dtype the ULPs are counted in, e.g. "ulp (max 4 ULP in bfloat16)".
  std::string describe(DType actual, DType expected) const {
    const bool ints = is_integral(actual) && is_integral(expected);
    return "ulp (max " + std::to_string(max_ulps) + " ULP" +
           (ints ? std::string(" (integers: exact difference)")
                 : std::string(" in ") + dtype_name(detail::coarser_float(actual, expected))) +
           (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  /// Judges `actual` against the reference `expected` (same shape; any strides, byte orders
  /// and real dtype pair). A shape mismatch is an error Verdict, not an exception; complex
  /// dtypes throw Error{unsupported}. Keeps the o.worst_count worst mismatching elements.
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
    Verdict v;
    v.standard = "ulp";
    v.kind = VerdictKind::ulp;
    v.description = describe(actual.dtype, expected.dtype);
    v.max_ulps = static_cast<double>(max_ulps);
    if (!detail::begin_verdict(v, actual, expected)) return v;
    const DType coarse = detail::coarser_float(actual.dtype, expected.dtype);
    const double limit = static_cast<double>(max_ulps);
    const bool eq_nan = equal_nan;
    auto judge = [&](auto xa, auto xe, double da, double de) {
      detail::Judgement j;
      if constexpr (detail::is_integral_storage_v<decltype(xa)> && detail::is_integral_storage_v<decltype(xe)>) {
        const double d = detail::exact_abs_diff(xa, xe);
        if (TD_LIKELY(d <= limit)) return j;
        j.ulp = j.abs_diff = d;
        j.mismatch = true;
      } else {
        if (std::isnan(da) || std::isnan(de)) {
          if (eq_nan && std::isnan(da) && std::isnan(de)) return j;
          j.mismatch = true;
          j.ulp = j.abs_diff = detail::nan_v;
        } else {
          j.ulp = detail::ulp_distance(da, de, coarse);
          if (TD_LIKELY(j.ulp <= limit)) return j;
          j.mismatch = true;
          j.abs_diff = da == de ? 0.0 : std::fabs(da - de);
        }
      }
      j.rel_diff = j.abs_diff / std::fabs(de);
      j.allowed = limit;
      j.rank = j.ulp;
      return j;
    };
    detail::take_elementwise(v, detail::run_elementwise(actual, expected, o.worst_count, judge));
    v.level = v.mismatched ? VerdictLevel::error : VerdictLevel::pass;
    return v;
  }
};

/// Bitwise identity: same dtype, same shape, and every element's storage
/// bytes equal (so NaN matches only the same NaN payload, and −0 ≠ +0).
/// Byte order is normalised first: a big-endian file equals its native copy.
struct Bitwise {
  /// "bitwise (same dtype, identical bits)".
  std::string describe() const { return "bitwise (same dtype, identical bits)"; }

  /// Judges `actual` against `expected` byte by byte; differing dtypes or shapes are an error
  /// Verdict (not an exception), complex dtypes throw Error{unsupported}. Keeps the
  /// o.worst_count worst mismatching elements.
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
    Verdict v;
    v.standard = "bitwise";
    v.description = describe();
    v.kind = VerdictKind::tolerance;
    v.equality = true;
    v.rtol = v.atol = 0;
    if (!detail::begin_verdict(v, actual, expected)) return v;
    if (actual.dtype != expected.dtype) {
      v.level = VerdictLevel::error;
      v.reasons.push_back(std::string("The values for attribute 'dtype' do not match: ") + dtype_name(actual.dtype) +
                          " != " + dtype_name(expected.dtype) + ".");
      return v;
    }
    auto judge = [&](auto xa, auto xe, double da, double de) {
      detail::Judgement j;
      if constexpr (sizeof(xa) == sizeof(xe)) {
        if (TD_LIKELY(std::memcmp(&xa, &xe, sizeof xa) == 0)) return j;
      }
      j.mismatch = true;
      j.abs_diff = da == de ? 0.0 : std::fabs(da - de);
      j.rel_diff = j.abs_diff / std::fabs(de);
      j.rank = j.abs_diff;
      return j;
    };
    detail::take_elementwise(v, detail::run_elementwise(actual, expected, o.worst_count, judge));
    v.level = v.mismatched ? VerdictLevel::error : VerdictLevel::pass;
    return v;
  }
};

}  // namespace standards

TD_SEPARATE_STANDARD(standards::Torch)
TD_SEPARATE_STANDARD(standards::Numpy)
TD_SEPARATE_STANDARD(standards::Ulp)
TD_SEPARATE_STANDARD(standards::Bitwise)
TD_NAMESPACE_END
