// tensordiff — Polygraphy's comparison (CompareFunc.simple): per element, or on
// a statistic (max, mean, median, quantile) of all differences.
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
namespace standards {

/// Polygraphy's CompareFunc.simple statistic (check_error_stat): `elemwise` judges every element
/// on its own; `max`, `mean`, `median` and `quantile` judge that statistic of all the absolute
/// and of all the relative differences.
enum class ErrorStat : std::uint8_t { elemwise, max, mean, median, quantile };

/// Polygraphy's spelling of the statistic: "elemwise", "max", "mean", "median", "quantile".
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
  /// Relative tolerance (Polygraphy's default 1e-5): rel = |a − e| / |e| must be ≤ it...
  double rtol = 1e-5;
  /// ...or the absolute difference |a − e| ≤ atol (default 1e-5), in the elements' units.
  double atol = 1e-5;
  /// check_error_stat: elemwise judges each element; the others judge one statistic of all of them.
  ErrorStat stat = ErrorStat::elemwise;
  double quantile = 0.99;  ///< for ErrorStat::quantile (numpy 'linear' method)
  /// An inf equals the same inf (difference 0); off, as in Polygraphy, where inf − inf = NaN fails.
  bool infinities_compare_equal = false;

  /// Throws Error{invalid_argument} for an option out of range (check() calls
  /// it before looking at the tensors).
  void validate() const {
    if (!(quantile >= 0 && quantile <= 1))
      throw Error(ErrorCategory::invalid_argument,
                  "polygraphy standard: error_quantile must lie in [0, 1], not " + detail::num(quantile));
  }

  /// Name and Polygraphy's option names: "polygraphy (rtol=1e-05, atol=1e-05, check_error_stat=elemwise)".
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

  /// The statistic `s` of the differences `x` (quantile `q` for ErrorStat::quantile), as numpy
  /// computes it: NaN when any difference is NaN, 0 for no elements; may reorder `x`.
  /// ErrorStat::elemwise is no statistic and gives NaN.
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

  /// Judges `actual` against the reference `expected`. Throws Error{invalid_argument} for a
  /// quantile outside [0, 1] and Error{unsupported} for complex dtypes; a shape mismatch is an
  /// error Verdict. A statistic other than elemwise keeps every difference in memory (16 bytes
  /// per element).
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return detail::run_standard(*this, actual, expected, o);
  }

 private:
  template <class S>
  friend Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&);
  Verdict check_pass(const TensorView& actual, const TensorView& expected, const CheckOptions& o) const {
    validate();
    Verdict v;
    v.standard = "polygraphy";
    v.description = describe();
    v.kind = stat == ErrorStat::elemwise ? VerdictKind::tolerance : VerdictKind::aggregate;
    v.rtol = rtol;
    v.atol = atol;
    if (!detail::begin_verdict(v, actual, expected)) return v;
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

}  // namespace standards

TD_SEPARATE_STANDARD(standards::Polygraphy)
TD_NAMESPACE_END
