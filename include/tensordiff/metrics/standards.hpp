// tensordiff — named closeness standards: torch, numpy, isclose, ulp(n),
// polygraphy, msprobe compare and msprobe pre-check.
//
// Each preset is a small value type with
//   Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& = {}) const;
// `expected` is the reference (bench / golden): every rule here is asymmetric
// in the same way as torch.testing and numpy (|a − e| ≤ atol + rtol·|e|).
// Element-wise rules run one exact pass over both views (any strides, byte
// orders and dtype pairs; integers compared as integers, floats widened
// exactly to double); msprobe's compare rule works on a Comparison.
//
//   auto v = standards::Torch{}.check(actual, expected);
//   if (!v) std::cerr << report::format_verdict(v);
//   auto s = standard_from_name("ulp:4");          // the CLI's --standard
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "../core/pyformat.hpp"
#include "compare.hpp"
#include "detail/elementwise.hpp"
#include "verdict.hpp"

TD_NAMESPACE_BEGIN

namespace detail {
inline std::string num(double x) { return pyformat::repr(x); }

/// Common start of every check: shape, numel, integral flag. False when the
/// shapes differ (the verdict is then an error and no pass runs).
inline bool begin_verdict(Verdict& v, const TensorView& a, const TensorView& e) {
  v.shape = a.shape;
  v.numel = a.numel();
  v.integral = is_integral(a.dtype) && is_integral(e.dtype);
  if (a.shape != e.shape) {
    v.level = VerdictLevel::error;
    v.reasons.push_back("The values for attribute 'shape' do not match: " + shape_to_string(a.shape) +
                        " != " + shape_to_string(e.shape) + ".");
    return false;
  }
  return true;
}

inline void take_elementwise(Verdict& v, const ElementwiseResult& r) {
  v.mismatched = r.mismatched;
  v.greatest_abs = r.greatest_abs;
  v.greatest_rel = r.greatest_rel;
  v.greatest_ulp = r.greatest_ulp;
  v.worst = r.worst;
  v.cosine = r.cosine();
}

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

/// The torch / numpy / isclose rule: a matches e when a == e (so inf matches
/// only the same inf, −0 matches +0), when both are NaN and equal_nan, or when
/// |a − e| is finite and ≤ atol + rtol·|e|. Integers compare exactly.
inline Verdict check_asymmetric(const TensorView& a, const TensorView& e, double rtol, double atol, bool equal_nan,
                                Verdict v, const CheckOptions& o) {
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
/// in float64 as torch does after promotion. Unset tolerances take torch's
/// per-dtype defaults; for a mixed pair the larger of each (the less precise
/// dtype's). Setting only one of rtol/atol throws, as torch raises ValueError.
struct Torch {
  std::optional<double> rtol, atol;
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

  std::string describe(DType actual, DType expected) const {
    const auto [r, a] = tolerances(actual, expected);
    return "torch (rtol=" + detail::num(r) + ", atol=" + detail::num(a) + (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    const auto [r, a] = tolerances(actual.dtype, expected.dtype);
    Verdict v;
    v.standard = "torch";
    v.description = describe(actual.dtype, expected.dtype);
    return detail::check_asymmetric(actual, expected, r, a, equal_nan, std::move(v), o);
  }
};

/// numpy.testing.assert_allclose defaults: rtol 1e-7, atol 0, equal_nan on.
/// (numpy evaluates the formula in the arrays' dtype; tensordiff in float64
/// on the exactly widened values, as torch does.)
struct Numpy {
  double rtol = 1e-7;
  double atol = 0;
  bool equal_nan = true;

  std::string describe() const {
    return "numpy.testing.assert_allclose (rtol=" + detail::num(rtol) + ", atol=" + detail::num(atol) +
           ", equal_nan=" + (equal_nan ? "True" : "False") + ")";
  }
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    Verdict v;
    v.standard = "numpy";
    v.description = describe();
    return detail::check_asymmetric(actual, expected, rtol, atol, equal_nan, std::move(v), o);
  }
};

/// numpy.isclose defaults: rtol 1e-5, atol 1e-8, equal_nan off.
struct IsClose {
  double rtol = 1e-5;
  double atol = 1e-8;
  bool equal_nan = false;

  std::string describe() const {
    return "numpy.isclose (rtol=" + detail::num(rtol) + ", atol=" + detail::num(atol) +
           ", equal_nan=" + (equal_nan ? "True" : "False") + ")";
  }
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    Verdict v;
    v.standard = "isclose";
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
  std::uint64_t max_ulps = 4;
  bool equal_nan = false;

  std::string describe() const {
    return "ulp (max " + std::to_string(max_ulps) + " ULP in the less precise dtype" + (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  std::string describe(DType actual, DType expected) const {
    const bool ints = is_integral(actual) && is_integral(expected);
    return "ulp (max " + std::to_string(max_ulps) + " ULP" +
           (ints ? std::string(" (integers: exact difference)")
                 : std::string(" in ") + dtype_name(detail::coarser_float(actual, expected))) +
           (equal_nan ? ", equal_nan=True" : "") + ")";
  }

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
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

/// Polygraphy's CompareFunc.simple statistic.
enum class ErrorStat : std::uint8_t { elemwise, max, mean, median, quantile };

inline const char* to_string(ErrorStat s) noexcept {
  switch (s) {
    case ErrorStat::elemwise: return "elemwise";
    case ErrorStat::max: return "max";
    case ErrorStat::mean: return "mean";
    case ErrorStat::median: return "median";
    case ErrorStat::quantile: return "quantile";
  }
  return "?";
}

/// Polygraphy (CompareFunc.simple): an element fails only where abs > atol
/// AND rel > rtol (passing either tolerance is enough); rel = abs / |e| with
/// e == 0 replaced by 2.22e-16; NaN fails; ±inf equal to the same inf only
/// with infinities_compare_equal (otherwise inf − inf = NaN fails). With a
/// check_error_stat other than elemwise, the statistic of all abs and rel
/// differences is tested the same way (NaN statistic fails).
struct Polygraphy {
  double rtol = 1e-5;
  double atol = 1e-5;
  ErrorStat stat = ErrorStat::elemwise;
  double quantile = 0.99;  ///< for ErrorStat::quantile (numpy 'linear' method)
  bool infinities_compare_equal = false;

  std::string describe() const {
    std::string s = "polygraphy (rtol=" + detail::num(rtol) + ", atol=" + detail::num(atol) +
                    ", check_error_stat=" + to_string(stat);
    if (stat == ErrorStat::quantile) s += ", error_quantile=" + detail::num(quantile);
    if (infinities_compare_equal) s += ", infinities_compare_equal=True";
    return s + ")";
  }

  /// numpy's quantile (method 'linear', its lerp) of `x`; reorders x. NaN if any is NaN.
  static double quantile_of(std::vector<double>& x, double q) {
    if (x.empty()) return detail::nan_v;
    if (std::any_of(x.begin(), x.end(), [](double d) { return std::isnan(d); })) return detail::nan_v;
    std::sort(x.begin(), x.end());
    const double h = static_cast<double>(x.size() - 1) * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, x.size() - 1);
    const double t = h - static_cast<double>(lo), a = x[lo], b = x[hi], diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
  }

  static double statistic(std::vector<double>& x, ErrorStat s, double q) {
    if (x.empty()) return 0.0;
    switch (s) {
      case ErrorStat::max: {
        double m = -detail::inf();
        for (double d : x) {
          if (std::isnan(d)) return d;
          m = std::max(m, d);
        }
        return m;
      }
      case ErrorStat::mean: {
        double sum = 0;
        for (double d : x) sum += d;
        return sum / static_cast<double>(x.size());
      }
      case ErrorStat::median: {
        if (std::any_of(x.begin(), x.end(), [](double d) { return std::isnan(d); })) return detail::nan_v;
        std::sort(x.begin(), x.end());
        const std::size_t n = x.size();
        return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
      }
      case ErrorStat::quantile: return quantile_of(x, q);
      case ErrorStat::elemwise: break;
    }
    return detail::nan_v;
  }

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    Verdict v;
    v.standard = "polygraphy";
    v.description = describe();
    v.kind = stat == ErrorStat::elemwise ? VerdictKind::tolerance : VerdictKind::aggregate;
    v.rtol = rtol;
    v.atol = atol;
    if (!detail::begin_verdict(v, actual, expected)) return v;
    if (!(quantile >= 0 && quantile <= 1))
      throw Error(ErrorCategory::invalid_argument, "polygraphy standard: error_quantile must lie in [0, 1]");
    const bool collect = stat != ErrorStat::elemwise;
    std::vector<double> all_abs, all_rel;
    if (collect) {
      all_abs.reserve(static_cast<std::size_t>(v.numel));
      all_rel.reserve(static_cast<std::size_t>(v.numel));
    }
    constexpr double zero_sub = 2.220446049250313e-16;
    auto judge = [&](auto xa, auto xe, double da, double de) {
      detail::Judgement j;
      if constexpr (detail::is_integral_storage_v<decltype(xa)> && detail::is_integral_storage_v<decltype(xe)>) {
        j.abs_diff = detail::exact_abs_diff(xa, xe);
      } else {
        j.abs_diff = infinities_compare_equal && std::isinf(da) && da == de ? 0.0 : std::fabs(da - de);
      }
      const double denom = de == 0 ? zero_sub : std::fabs(de);
      j.rel_diff = j.abs_diff / denom;
      if (collect) {
        all_abs.push_back(j.abs_diff);
        all_rel.push_back(j.rel_diff);
      }
      j.mismatch = !(j.abs_diff <= atol) && !(j.rel_diff <= rtol);
      if (j.mismatch) {
        j.allowed = std::max(atol, rtol * denom);
        j.rank = j.abs_diff;
      }
      return j;
    };
    detail::take_elementwise(v, detail::run_elementwise(actual, expected, o.worst_count, judge));
    if (!collect) {
      v.level = v.mismatched ? VerdictLevel::error : VerdictLevel::pass;
      return v;
    }
    const double sa = statistic(all_abs, stat, quantile), sr = statistic(all_rel, stat, quantile);
    const bool fail = !(sa <= atol) && !(sr <= rtol);
    v.level = fail ? VerdictLevel::error : VerdictLevel::pass;
    const std::string name = stat == ErrorStat::quantile ? detail::num(quantile) + "-quantile" : to_string(stat);
    v.reasons.push_back(name + " absolute difference " + detail::num(sa) + (sa <= atol ? " <= " : " > ") + "atol " +
                        detail::num(atol) + (fail ? " and " : ", ") + name + " relative difference " + detail::num(sr) +
                        (sr <= rtol ? " <= " : " > ") + "rtol " + detail::num(rtol));
    return v;
  }
};

/// msprobe compare's legacy "Accuracy Reached or Not" (spec §3.2), on the
/// Comparison msprobe's metrics give: shape unmatched → error; N/A (nan/inf
/// positions differ) → error; Cosine or MaxAbsErr not a number
/// ("unsupported": empty, 0-d, length 1) → not judged ("None"); cos < 0.99 and
/// max abs err > 0.001 → error; cos < 0.9 or max abs err > 1 → error; else
/// pass. A "Nan" cosine (zero norm on one side) is NaN, so only the absolute
/// error decides, as in Python. nan/inf: positions must match, then ignored.
struct MsprobeCompare {
  double cos_threshold = 0.99;          ///< COS_THRESHOLD
  double max_abs_err_threshold = 0.001; ///< MAX_ABS_ERR_THRESHOLD
  double cos_max_threshold = 0.9;       ///< COS_MAX_THRESHOLD
  double max_abs_err_max_threshold = 1; ///< MAX_ABS_ERR_MAX_THRESHOLD
  CompareOptions compare_options{};

  std::string describe() const {
    return "msprobe compare (pass: cosine >= " + detail::num(cos_threshold) + " or max abs err <= " +
           detail::num(max_abs_err_threshold) + "; fail: cosine < " + detail::num(cos_max_threshold) +
           " or max abs err > " + detail::num(max_abs_err_max_threshold) + ")";
  }

  Verdict check(const Comparison& c) const {
    Verdict v;
    v.standard = "msprobe";
    v.kind = VerdictKind::aggregate;
    v.description = describe();
    v.shape = c.a.shape;
    v.numel = c.numel;
    v.integral = is_integral(c.a.dtype) && is_integral(c.b.dtype);
    v.cosine = c.cosine.value;
    if (c.max_abs_index != no_index) {
      v.greatest_abs = {c.max_abs_index, c.a_at_max_abs, c.b_at_max_abs, c.max_abs_err.value, detail::nan_v, detail::nan_v,
                        detail::nan_v};
      v.greatest_abs.rel_diff = c.b_at_max_abs == 0 ? detail::inf() : c.max_abs_err.value / std::fabs(c.b_at_max_abs);
    }
    auto set = [&](VerdictLevel l, std::string why) {
      v.level = l;
      v.reasons.push_back(std::move(why));
      return v;
    };
    if (c.validation == Validation::shape_unmatched || c.cosine.status == MetricStatus::shape_unmatched)
      return set(VerdictLevel::error, "Shape of NPU and bench tensor do not match (Accuracy Reached or Not: Unmatched).");
    if (c.cosine.status == MetricStatus::not_available || c.max_abs_err.status == MetricStatus::not_available)
      return set(VerdictLevel::error,
                 "The position of inf or nan in NPU and bench Tensor do not match (Accuracy Reached or Not: No).");
    auto as_float = [](const Metric& m) { return m.status == MetricStatus::ok || m.status == MetricStatus::nan; };
    if (!as_float(c.cosine) || !as_float(c.max_abs_err)) {
      std::string why = "Cosine is '" + std::string(msprobe_spelling(c.cosine.status)) + "', MaxAbsErr is '" +
                        (c.max_abs_err.has_value() ? detail::num(c.max_abs_err.value)
                                                   : std::string(msprobe_spelling(c.max_abs_err.status))) +
                        "' (Accuracy Reached or Not: None)";
      for (const auto& m : c.messages) why += "; " + m;
      return set(VerdictLevel::not_judged, why);
    }
    const double cos = c.cosine.value, mae = c.max_abs_err.value;
    const std::string vals = "cosine " + detail::num(cos) + ", max abs err " + detail::num(mae);
    if (cos < cos_threshold && mae > max_abs_err_threshold)
      return set(VerdictLevel::error, vals + ": cosine < " + detail::num(cos_threshold) + " and max abs err > " +
                                          detail::num(max_abs_err_threshold) + " (Accuracy Reached or Not: No)");
    if (cos < cos_max_threshold || mae > max_abs_err_max_threshold)
      return set(VerdictLevel::error, vals + ": cosine < " + detail::num(cos_max_threshold) + " or max abs err > " +
                                          detail::num(max_abs_err_max_threshold) + " (Accuracy Reached or Not: No)");
    v.reasons.push_back(vals + " (Accuracy Reached or Not: Yes)");
    return v;
  }

  template <class Kernel = kernels::Default>
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& = {}) const {
    return check(compare<Kernel>(actual, expected, compare_options));
  }
};

/// msprobe pre-check (acc_check / api_precision_compare, spec §6), on the
/// device output `actual` against the bench `expected`:
///  - ladder (§6.1, default): integers/bool exact (quantized: max abs err ≤ 1);
///    floats: cosine (clipped) ≤ 0.99 → error; max abs err < 0.001 → pass;
///    f16/bf16: ratio(RE < 0.01) must be > 0.99 (else error), ratio(RE < 0.001)
///    > 0.999 → pass, else warning; f32/f64: ratio(RE < 0.001) ≤ 0.999 → error,
///    ratio(RE < 0.0001) ≤ 0.9999 → warning, else pass.
///    RE = |a − e| / (|e| + eps), eps of the bench dtype (bf16: 2⁻⁸).
///  - thousandth ("双千"): ratio(RE < 0.001) ≥ 0.999.
///  - ulp: ulp_err = |(a − e)·2^(mantissa − eb)|, eb = max(⌊log2|e|⌋, min_eb)
///    (0 at e == 0), per the actual dtype (f16 −14/10, bf16 −126/7, f32
///    −126/23); f32 passes if mean < 64 or proportion(ulp > 32) < 0.05;
///    f16/bf16 if proportion(ulp > 1) < 0.001. float64: not judged.
/// nan/inf: their positions (same NaN / same inf) must match, then they are
/// ignored; a differing position is an error.
struct MsprobePrecheck {
  enum class Method : std::uint8_t { ladder, thousandth, ulp };
  Method method = Method::ladder;
  bool quantized = false;

  static const char* method_name(Method m) noexcept {
    return m == Method::ladder ? "acc_check ladder" : m == Method::thousandth ? "thousandth" : "ULP";
  }
  std::string describe() const {
    return std::string("msprobe pre-check (") + method_name(method) + (quantized ? ", quantized" : "") + ")";
  }

  /// eps of the bench dtype in RE (bf16 uses 2⁻⁸).
  static double bench_eps(DType t) noexcept {
    switch (t) {
      case DType::float16: return 0.0009765625;
      case DType::bfloat16: return 0.00390625;
      case DType::float32: return 1.1920928955078125e-07;
      default: return 2.220446049250313e-16;
    }
  }

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    Verdict v;
    v.standard = "precheck";
    v.kind = VerdictKind::aggregate;
    v.description = describe();
    if (!detail::begin_verdict(v, actual, expected)) return v;
    const DType dt = actual.dtype;
    const bool half = dt == DType::float16 || dt == DType::bfloat16;
    const double eps = bench_eps(expected.dtype);
    const int mbits = detail::mantissa_bits(half || dt == DType::float32 ? dt : DType::float32);
    const double min_eb = dt == DType::float16 ? -14.0 : -126.0;
    const double ulp_threshold = half ? 1.0 : 32.0;
    const bool by_ulp = method == Method::ulp;

    std::uint64_t below_1e2 = 0, below_1e3 = 0, below_1e4 = 0, ulp_over = 0, nonfinite_bad = 0;
    double sum_ulp = 0, max_abs = 0, max_a = 0, max_e = 0;
    auto judge = [&](auto xa, auto xe, double da, double de) {
      detail::Judgement j;
      if constexpr (detail::is_integral_storage_v<decltype(xa)> && detail::is_integral_storage_v<decltype(xe)>) {
        j.abs_diff = detail::exact_abs_diff(xa, xe);
        max_abs = std::max(max_abs, j.abs_diff);
        j.mismatch = quantized ? j.abs_diff > 1 : j.abs_diff != 0;
        j.rel_diff = j.abs_diff / std::fabs(de);
        j.allowed = quantized ? 1 : 0;
        j.rank = j.abs_diff;
        return j;
      } else {
        if (TD_UNLIKELY(!std::isfinite(da) || !std::isfinite(de))) {
          const bool same = (std::isnan(da) && std::isnan(de)) || da == de;
          // a matching nan/inf position is ignored: it counts as a (0, 0) pair
          ++below_1e2, ++below_1e3, ++below_1e4;
          if (same) return j;
          ++nonfinite_bad;
          j.mismatch = true;
          j.abs_diff = j.rel_diff = j.ulp = j.rank = detail::nan_v;
          return j;
        }
        max_a = std::max(max_a, std::fabs(da));
        max_e = std::max(max_e, std::fabs(de));
        j.abs_diff = std::fabs(da - de);
        max_abs = std::max(max_abs, j.abs_diff);
        j.rel_diff = j.abs_diff / (std::fabs(de) + eps);
        below_1e2 += j.rel_diff < 0.01;
        below_1e3 += j.rel_diff < 0.001;
        below_1e4 += j.rel_diff < 0.0001;
        if (by_ulp) {
          const double eb = de == 0 ? 0.0 : std::max(std::floor(std::log2(std::fabs(de))), min_eb);
          j.ulp = std::fabs(std::ldexp(da - de, mbits - static_cast<int>(eb)));
          sum_ulp += j.ulp;
          ulp_over += j.ulp > ulp_threshold;
          j.mismatch = j.ulp > ulp_threshold;
          j.allowed = ulp_threshold;
          j.rank = j.ulp;
        } else {
          j.mismatch = !(j.rel_diff < 0.001);
          j.allowed = 0.001;
          j.rank = j.rel_diff;
        }
        return j;
      }
    };
    const auto r = detail::run_elementwise(actual, expected, o.worst_count, judge);
    detail::take_elementwise(v, r);
    const double n = static_cast<double>(v.numel);
    auto ratio = [&](std::uint64_t k) { return v.numel ? static_cast<double>(k) / n : 1.0; };
    auto set = [&](VerdictLevel l, std::string why) {
      v.level = l;
      v.reasons.push_back(std::move(why));
      return v;
    };

    if (nonfinite_bad)
      return set(VerdictLevel::error,
                 "nan/inf positions differ at " + std::to_string(nonfinite_bad) + " element(s)");
    if (v.integral) {
      v.kind = VerdictKind::tolerance;
      v.equality = !quantized;
      v.atol = quantized ? 1 : 0;
      v.rtol = 0;
      if (v.mismatched)
        return set(VerdictLevel::error, std::string(quantized ? "max abs err " + detail::num(max_abs) + " > 1"
                                                              : "binary compare: error rate " +
                                                                    detail::num(ratio(v.mismatched)) + " != 0"));
      return set(VerdictLevel::pass, quantized ? "max abs err <= 1 (quantized)" : "binary compare: equal");
    }
    const std::string th = "ratio(RE < 0.001) = " + detail::num(ratio(below_1e3));
    if (method == Method::thousandth) {
      return ratio(below_1e3) >= 0.999 ? set(VerdictLevel::pass, th + " >= 0.999")
                                       : set(VerdictLevel::error, th + " < 0.999");
    }
    if (method == Method::ulp) {
      v.kind = VerdictKind::ulp;
      v.max_ulps = ulp_threshold;
      if (dt == DType::float64 || !is_floating(dt))
        return set(VerdictLevel::not_judged, std::string("the ULP standard has no parameters for ") + dtype_name(dt));
      const double over = ratio(ulp_over), mean = v.numel ? sum_ulp / n : 0.0;
      const std::string what = "proportion(ulp > " + detail::num(ulp_threshold) + ") = " + detail::num(over);
      if (half)
        return over < 0.001 ? set(VerdictLevel::pass, what + " < 0.001") : set(VerdictLevel::error, what + " >= 0.001");
      if (mean < 64) return set(VerdictLevel::pass, "mean ulp error " + detail::num(mean) + " < 64");
      return over < 0.05 ? set(VerdictLevel::pass, what + " < 0.05")
                         : set(VerdictLevel::error, "mean ulp error " + detail::num(mean) + " >= 64 and " + what +
                                                        " >= 0.05");
    }
    // ladder (§6.1)
    constexpr double zero_norm = 2.220446049250313e-16;
    const bool zero_a = max_a <= zero_norm, zero_e = max_e <= zero_norm;
    if (zero_a != zero_e)
      return set(VerdictLevel::error, std::string("cosine: ") + (zero_a ? "device" : "bench") + " output is all zero");
    if (v.numel > 1 && !zero_a) {
      const double cos = std::clamp(r.cosine(), -1.0, 1.0);
      if (cos <= 0.99) return set(VerdictLevel::error, "cosine " + detail::num(cos) + " <= 0.99");
    }
    if (max_abs < 0.001) return set(VerdictLevel::pass, "max abs err " + detail::num(max_abs) + " < 0.001");
    const double r2 = ratio(below_1e2), r3 = ratio(below_1e3), r4 = ratio(below_1e4);
    if (half) {
      if (!(r2 > 1 - 0.01))
        return set(VerdictLevel::error, "ratio(RE < 0.01) = " + detail::num(r2) + " <= 0.99");
      return r3 > 1 - 0.001 ? set(VerdictLevel::pass, th + " > 0.999") : set(VerdictLevel::warning, th + " <= 0.999");
    }
    if (!(r3 > 1 - 0.001)) return set(VerdictLevel::error, th + " <= 0.999");
    if (!(r4 > 1 - 0.0001))
      return set(VerdictLevel::warning, "ratio(RE < 0.0001) = " + detail::num(r4) + " <= 0.9999");
    return set(VerdictLevel::pass, "ratio(RE < 0.0001) = " + detail::num(r4) + " > 0.9999");
  }
};

/// Bitwise identity: same dtype, same shape, and every element's storage
/// bytes equal (so NaN matches only the same NaN payload, and −0 ≠ +0).
/// Byte order is normalised first: a big-endian file equals its native copy.
struct Bitwise {
  std::string describe() const { return "bitwise (same dtype, identical bits)"; }

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
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

/// Any preset, chosen at run time (the CLI's --standard).
class Standard {
 public:
  using Variant = std::variant<standards::Torch, standards::Numpy, standards::IsClose, standards::Ulp,
                               standards::Polygraphy, standards::MsprobeCompare, standards::MsprobePrecheck,
                               standards::Bitwise>;

  Standard() = default;  ///< torch with its per-dtype defaults
  template <class S, class = std::enable_if_t<std::is_constructible_v<Variant, S>>>
  Standard(S s) : v_(std::move(s)) {}  // NOLINT: a preset is usable wherever a Standard is

  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return std::visit([&](const auto& s) { return s.check(actual, expected, o); }, v_);
  }

  /// Name and parameters, independent of the dtypes compared.
  std::string describe() const {
    return std::visit([](const auto& s) { return s.describe(); }, v_);
  }

  const Variant& variant() const noexcept { return v_; }

 private:
  Variant v_;
};

/// A preset by name: "torch", "numpy", "isclose", "ulp" / "ulp:N",
/// "polygraphy" / "polygraphy:max|mean|median|quantile[=Q]", "msprobe",
/// "precheck" / "precheck:thousandth|ulp", "bitwise". rtol/atol override the preset's
/// (torch needs both, as torch.testing does); presets without tolerances
/// reject them. Throws Error{invalid_argument} for anything else.
inline Standard standard_from_name(std::string_view spec, std::optional<double> rtol = std::nullopt,
                                   std::optional<double> atol = std::nullopt) {
  const std::size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string arg = colon == std::string_view::npos ? std::string() : std::string(spec.substr(colon + 1));
  auto bad = [&](const std::string& why) -> Error {
    return Error(ErrorCategory::invalid_argument, "standard '" + std::string(spec) + "': " + why);
  };
  auto no_arg = [&] {
    if (colon != std::string_view::npos) throw bad("takes no ':' argument");
  };
  auto no_tol = [&] {
    if (rtol || atol) throw bad("has no rtol/atol to set");
  };
  auto check_tol = [&](std::optional<double> t, const char* what) {
    if (t && !(*t >= 0)) throw bad(std::string(what) + " must be a non-negative number");
  };
  check_tol(rtol, "rtol");
  check_tol(atol, "atol");
  if (name == "torch") {
    no_arg();
    if (rtol.has_value() != atol.has_value()) throw bad("give both rtol and atol, or neither (as torch.testing)");
    return standards::Torch{rtol, atol, false};
  }
  if (name == "numpy" || name == "isclose") {
    no_arg();
    if (name == "numpy") {
      standards::Numpy s;
      if (rtol) s.rtol = *rtol;
      if (atol) s.atol = *atol;
      return s;
    }
    standards::IsClose s;
    if (rtol) s.rtol = *rtol;
    if (atol) s.atol = *atol;
    return s;
  }
  if (name == "ulp") {
    no_tol();
    standards::Ulp s;
    if (!arg.empty()) {
      if (arg.find_first_not_of("0123456789") != std::string::npos || arg.size() > 18)
        throw bad("ULP count must be a non-negative integer");
      s.max_ulps = std::stoull(arg);
    }
    return s;
  }
  if (name == "polygraphy") {
    standards::Polygraphy s;
    if (rtol) s.rtol = *rtol;
    if (atol) s.atol = *atol;
    std::string stat = arg, q;
    if (const std::size_t eq = arg.find('='); eq != std::string::npos) {
      stat = arg.substr(0, eq);
      q = arg.substr(eq + 1);
    }
    if (stat.empty() || stat == "elemwise") s.stat = standards::ErrorStat::elemwise;
    else if (stat == "max") s.stat = standards::ErrorStat::max;
    else if (stat == "mean") s.stat = standards::ErrorStat::mean;
    else if (stat == "median") s.stat = standards::ErrorStat::median;
    else if (stat == "quantile") s.stat = standards::ErrorStat::quantile;
    else throw bad("unknown check_error_stat '" + stat + "' (elemwise, max, mean, median, quantile)");
    if (!q.empty()) {
      if (s.stat != standards::ErrorStat::quantile) throw bad("only quantile takes '=Q'");
      char* end = nullptr;
      s.quantile = std::strtod(q.c_str(), &end);
      if (end != q.c_str() + q.size() || !(s.quantile >= 0 && s.quantile <= 1)) throw bad("quantile must lie in [0, 1]");
    }
    return s;
  }
  if (name == "bitwise") {
    no_arg();
    no_tol();
    return standards::Bitwise{};
  }
  if (name == "msprobe") {
    no_arg();
    no_tol();
    return standards::MsprobeCompare{};
  }
  if (name == "precheck") {
    no_tol();
    standards::MsprobePrecheck s;
    if (arg.empty() || arg == "ladder") s.method = standards::MsprobePrecheck::Method::ladder;
    else if (arg == "thousandth") s.method = standards::MsprobePrecheck::Method::thousandth;
    else if (arg == "ulp") s.method = standards::MsprobePrecheck::Method::ulp;
    else throw bad("unknown pre-check method '" + arg + "' (ladder, thousandth, ulp)");
    return s;
  }
  throw bad("unknown standard (torch, numpy, isclose, ulp[:N], polygraphy[:STAT], msprobe, precheck[:METHOD], bitwise)");
}

TD_NAMESPACE_END
