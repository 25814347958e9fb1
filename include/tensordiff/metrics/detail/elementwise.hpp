// tensordiff — the per-element pass shared by the element-wise standards.
//
// One exact walk over two same-shape views (any strides, byte orders and
// dtype pair, through for_each_kernel_block): a standard supplies a judge that
// sees each pair both as its storage values (so integers stay exact and ULP
// code can read bits) and as doubles; the pass counts mismatches, keeps the
// greatest differences among them and the N worst, and accumulates the cosine.
// Nothing is allocated or formatted while elements match.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../../core/pyformat.hpp"
#include "../../core/visit.hpp"
#include "../verdict.hpp"
#include "pairing.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// What a standard decided about one element pair.
struct Judgement {
  bool mismatch = false;
  double abs_diff = 0;
  double rel_diff = 0;
  double allowed = 0;
  double ulp = std::numeric_limits<double>::quiet_NaN();
  double rank = 0;  ///< orders the worst list (larger is worse; NaN is worst of all)
};

/// x is worse than y: NaN above everything, then larger values.
inline bool ranks_above(double x, double y) noexcept {
  if (std::isnan(x)) return !std::isnan(y);
  if (std::isnan(y)) return false;
  return x > y;
}

/// The N worst elements, worst first; among equals the first index stays.
class WorstList {
 public:
  explicit WorstList(std::size_t cap) : cap_(cap) {}

  void offer(double rank, const ElementDiff& d) {
    if (cap_ == 0) return;
    if (items_.size() == cap_) {
      if (!ranks_above(rank, items_.back().first)) return;
      items_.pop_back();
    }
    auto it = std::find_if(items_.begin(), items_.end(), [&](const auto& p) { return ranks_above(rank, p.first); });
    items_.insert(it, {rank, d});
  }

  std::vector<ElementDiff> take() const {
    std::vector<ElementDiff> out;
    out.reserve(items_.size());
    for (const auto& p : items_) out.push_back(p.second);
    return out;
  }

 private:
  std::size_t cap_;
  std::vector<std::pair<double, ElementDiff>> items_;
};

struct ElementwiseResult {
  std::uint64_t mismatched = 0;
  ElementDiff greatest_abs, greatest_rel, greatest_ulp;
  std::vector<ElementDiff> worst;
  double dot = 0, sum_sq_a = 0, sum_sq_e = 0;

  /// Cosine over the finite pairs: 1 when both sides are all zero, NaN when
  /// exactly one is.
  double cosine() const {
    if (sum_sq_a == 0 && sum_sq_e == 0) return 1.0;
    if (sum_sq_a == 0 || sum_sq_e == 0) return std::numeric_limits<double>::quiet_NaN();
    return dot / (std::sqrt(sum_sq_a) * std::sqrt(sum_sq_e));
  }
};

/// Runs `judge(a, e, da, de) -> Judgement` over every pair of two same-shape
/// views; `a`, `e` are kernel storage values (see for_each_kernel_block),
/// `da`, `de` the same values as double.
template <class Judge>
ElementwiseResult run_elementwise(const TensorView& a, const TensorView& e, std::size_t worst_count, Judge&& judge,
                                  const char* what = "check()") {
  ElementwiseResult r;
  WorstList worst(worst_count);
  const std::uint64_t n = a.numel();
  visit_real_dtypes(a.dtype, e.dtype, [&](auto ta, auto te) {
    using TA = typename decltype(ta)::type;
    using TE = typename decltype(te)::type;
    for_each_kernel_block<TA, TE>(a, e, 0, n, [&](const auto* pa, const auto* pe, std::size_t m, std::uint64_t pos) {
      double dot = 0, sa = 0, se = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const double da = to_double(pa[i]), de = to_double(pe[i]);
        if (TD_LIKELY(std::isfinite(da) && std::isfinite(de))) {
          dot += da * de;
          sa += da * da;
          se += de * de;
        }
        const Judgement j = judge(pa[i], pe[i], da, de);
        if (TD_UNLIKELY(j.mismatch)) {
          const ElementDiff d{pos + i, da, de, j.abs_diff, j.rel_diff, j.allowed, j.ulp};
          ++r.mismatched;
          if (!r.greatest_abs.valid() || ranks_above(d.abs_diff, r.greatest_abs.abs_diff)) r.greatest_abs = d;
          if (!r.greatest_rel.valid() || ranks_above(d.rel_diff, r.greatest_rel.rel_diff)) r.greatest_rel = d;
          if (!r.greatest_ulp.valid() || ranks_above(d.ulp_diff, r.greatest_ulp.ulp_diff)) r.greatest_ulp = d;
          worst.offer(j.rank, d);
        }
      }
      r.dot += dot;
      r.sum_sq_a += sa;
      r.sum_sq_e += se;
    });
  }, what);
  r.worst = worst.take();
  return r;
}

// ---- ULP distance ------------------------------------------------------------

/// Bits of a floating dtype's storage, as an ordered key: the distance between
/// two keys is the number of representable values between them (±0 share a
/// key; ±inf sit one step beyond the largest finite value).
inline std::uint64_t ordered_key(std::uint64_t bits, unsigned width) noexcept {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const std::uint64_t mag = bits & (sign - 1);
  return (bits & sign) ? sign - mag : sign + mag;
}

/// Number of explicit mantissa bits (precision − 1).
constexpr int mantissa_bits(DType t) noexcept {
  switch (t) {
    case DType::float16: return 10;
    case DType::bfloat16: return 7;
    case DType::float32: return 23;
    case DType::float64: return 52;
    case DType::float8_e4m3fn: return 3;
    case DType::float8_e5m2: return 2;
    default: return 0;
  }
}

/// The less precise floating dtype of a pair (fewer mantissa bits); an
/// integer side defers to the float side.
inline DType coarser_float(DType a, DType b) noexcept {
  if (!is_floating(a)) return b;
  if (!is_floating(b)) return a;
  return mantissa_bits(a) <= mantissa_bits(b) ? a : b;
}

/// double -> float with IEEE overflow (no UB for values beyond FLT_MAX).
inline float narrow_to_float(double x) noexcept {
  constexpr double flt_max = 3.4028234663852886e38;
  constexpr double to_inf = 3.4028235677973366e38;  // FLT_MAX + half an ulp: rounds to inf (ties to even)
  if (std::fabs(x) > flt_max && std::isfinite(x)) {
    const float big = std::fabs(x) >= to_inf ? std::numeric_limits<float>::infinity() : 3.4028234663852886e38f;
    return x < 0 ? -big : big;
  }
  return static_cast<float>(x);
}

/// ULP distance of two doubles measured in `t` (a floating dtype): both are
/// rounded to `t` (nearest-even) and their ordered keys subtracted. NaN when
/// either is NaN. float64 -> float16 rounds through float32 (a tie exactly
/// half-way between two f16 values after that first rounding can go the other
/// way than direct rounding would).
inline double ulp_distance(double x, double y, DType t) noexcept {
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  std::uint64_t kx = 0, ky = 0;
  switch (t) {
    case DType::float16:
      kx = ordered_key(float16(narrow_to_float(x)).bits, 16);
      ky = ordered_key(float16(narrow_to_float(y)).bits, 16);
      break;
    case DType::bfloat16:
      kx = ordered_key(bfloat16(narrow_to_float(x)).bits, 16);
      ky = ordered_key(bfloat16(narrow_to_float(y)).bits, 16);
      break;
    case DType::float8_e4m3fn:  // beyond ±464 rounds to NaN's pattern, one step past ±448
      kx = ordered_key(float8_e4m3fn(narrow_to_float(x)).bits, 8);
      ky = ordered_key(float8_e4m3fn(narrow_to_float(y)).bits, 8);
      break;
    case DType::float8_e5m2:
      kx = ordered_key(float8_e5m2(narrow_to_float(x)).bits, 8);
      ky = ordered_key(float8_e5m2(narrow_to_float(y)).bits, 8);
      break;
    case DType::float32:
      kx = ordered_key(float_bits(narrow_to_float(x)), 32);
      ky = ordered_key(float_bits(narrow_to_float(y)), 32);
      break;
    default: {
      std::uint64_t bx, by;
      std::memcpy(&bx, &x, 8);
      std::memcpy(&by, &y, 8);
      kx = ordered_key(bx, 64);
      ky = ordered_key(by, 64);
    }
  }
  return static_cast<double>(kx > ky ? kx - ky : ky - kx);
}

/// A number in a verdict's text: Python's repr, as torch.testing prints it.
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

/// check() of an element-wise standard S runs S::check_pass through this function template, so
/// that with TD_SEPARATE_KERNELS each standard's pass (a loop for every dtype pair) is compiled
/// once, in metrics/instantiate.hpp, instead of in every TU that calls check().
template <class S>
Verdict run_standard(const S& s, const TensorView& actual, const TensorView& expected, const CheckOptions& o) {
  return s.check_pass(actual, expected, o);
}

/// TD_SEPARATE_PASS of standard S's pass, written after S at the namespace scope of TD_NAMESPACE_BEGIN.
#define TD_SEPARATE_STANDARD(S) \
  TD_SEPARATE_PASS(Verdict detail::run_standard(const S&, const TensorView&, const TensorView&, const CheckOptions&))

inline void take_elementwise(Verdict& v, const ElementwiseResult& r) {
  v.mismatched = r.mismatched;
  v.greatest_abs = r.greatest_abs;
  v.greatest_rel = r.greatest_rel;
  v.greatest_ulp = r.greatest_ulp;
  v.worst = r.worst;
  v.cosine = r.cosine();
}

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

}  // namespace detail
TD_NAMESPACE_END
