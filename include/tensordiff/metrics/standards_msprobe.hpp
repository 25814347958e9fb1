// tensordiff — msprobe's rules: compare's "Accuracy Reached or Not" (on a
// Comparison) and the pre-check (acc_check) ladder, thousandth and ULP standards.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "compare.hpp"
#include "detail/elementwise.hpp"
#include "verdict.hpp"

TD_NAMESPACE_BEGIN
namespace standards {

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
  /// Options of the compare() that check(actual, expected) runs (msprobe's defaults).
  CompareOptions compare_options{};

  /// Name and thresholds: "msprobe compare (pass: cosine >= 0.99 or max abs err <= 0.001; ...)".
  std::string describe() const {
    return "msprobe compare (pass: cosine >= " + detail::num(cos_threshold) + " or max abs err <= " +
           detail::num(max_abs_err_threshold) + "; fail: cosine < " + detail::num(cos_max_threshold) +
           " or max abs err > " + detail::num(max_abs_err_max_threshold) + ")";
  }

  /// Applies the rule to a Comparison already computed (e.g. by compare() or a dump compare),
  /// without touching the tensors again.
  Verdict check(const Comparison& c) const {
    Verdict v;
    v.standard = "msprobe";
    v.kind = VerdictKind::aggregate;
    v.description = describe();
    v.shape = c.actual.shape;
    v.numel = c.numel;
    v.integral = is_integral(c.actual.dtype) && is_integral(c.expected.dtype);
    v.cosine = c.cosine.value;
    if (c.max_abs_index != no_index) {
      v.greatest_abs = {c.max_abs_index, c.actual_at_max_abs, c.expected_at_max_abs, c.max_abs_err.value, detail::nan_v, detail::nan_v,
                        detail::nan_v};
      v.greatest_abs.rel_diff = c.expected_at_max_abs == 0 ? detail::inf() : c.max_abs_err.value / std::fabs(c.expected_at_max_abs);
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

  /// compare<Kernel>(actual, expected, compare_options), then the rule. Throws what compare()
  /// throws (Error{unsupported} for complex inputs). Keeps no worst elements (an aggregate rule).
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
  /// Which pre-check standard (see the struct comment): the acc_check ladder, the thousandth
  /// ("双千") ratio, or the ULP standard.
  enum class Method : std::uint8_t { ladder, thousandth, ulp };
  /// The standard applied to floating-point outputs; integer / bool outputs always compare exactly.
  Method method = Method::ladder;
  /// A quantized operator: integer outputs may differ by 1 (max abs err ≤ 1).
  bool quantized = false;

  /// "acc_check ladder", "thousandth" or "ULP" (for describe() and messages).
  static const char* method_name(Method m) noexcept {
    return m == Method::ladder ? "acc_check ladder" : m == Method::thousandth ? "thousandth" : "ULP";
  }
  /// Name and method: "msprobe pre-check (acc_check ladder)", ", quantized" when set.
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

  /// Judges the device output `actual` against the bench `expected` by `method`. A shape
  /// mismatch is an error Verdict; complex dtypes throw Error{unsupported}. The float64 ULP
  /// standard is not_judged (msprobe has no parameters for it).
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
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

}  // namespace standards

TD_SEPARATE_STANDARD(standards::MsprobePrecheck)
TD_NAMESPACE_END
