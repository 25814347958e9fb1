// tensordiff — a division-free test of `fl64(p / q) < t` for small integer ratios, exact.
//
// Rounding is monotonic, so over the ratios p / q with q ≤ n the test holds up to a largest
// one, L, and fails from the next one, U: neighbours in the Farey sequence of order n. Their
// mediant c / d lies strictly between them, so for every p ≥ 0 and 1 ≤ q ≤ n
//     fl64(p / q) < t  ⟺  p·d < c·q,
// with no ratio on the boundary. Any other number r strictly between L and U cuts as well:
//     fl64(p / q) < t  ⟺  p < r·q  ⟺  p ≤ ⌊r·q⌋
// (r·q is never whole, or that ratio would lie between L and U). Where a fixed-point
// r = m / 2^(16+s) with m < 2^16 fits there (FixedPointCut), ⌊r·q⌋ is one 16-bit multiply-high and
// a shift. The Highway kernel's assert_close pass for 8/16-bit integers counts relative errors
// below msprobe's thresholds this way (kernels/detail/highway-inl.hpp).
#pragma once
#include <cstdint>

#include "../../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// The largest k in [0, k_max] with `holds(k)`, for a predicate that holds at 0 and then up to
/// a point.
template <class Holds> std::uint64_t last_holding(std::uint64_t k_max, Holds holds) {
  std::uint64_t lo = 0, hi = k_max;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// The cut c / d of threshold t ∈ (0, 1] over denominators 1 … n (n ≥ 1): c < d, and
/// d ≤ 2n − 1 for n ≥ 2 (order 1 gives 1/2). Found by a Stern–Brocot descent whose runs of
/// equal steps are binary-searched, with the reference's own division: O(log² n) divisions.
struct RatioCut {
  std::uint64_t c = 1, d = 2;
  std::uint64_t lp = 0, lq = 1, up = 1, uq = 1;  ///< L = lp / lq, U = up / uq
  RatioCut() = default;
  RatioCut(double t, std::uint64_t n) {
    const auto below = [t](std::uint64_t p, std::uint64_t q) { return static_cast<double>(p) / static_cast<double>(q) < t; };
    // L = 0/1 holds (t > 0), U = 1/1 does not (t ≤ 1)
    while (lq + uq <= n) {  // the mediant is of order n: L or U moves towards it
      const std::uint64_t k = last_holding((n - lq) / uq, [&](std::uint64_t s) { return below(lp + s * up, lq + s * uq); });
      lp += k * up, lq += k * uq;
      const std::uint64_t j = last_holding((n - uq) / lq, [&](std::uint64_t s) { return !below(up + s * lp, uq + s * lq); });
      up += j * lp, uq += j * lq;
    }
    c = lp + up;
    d = lq + uq;
  }
};

/// A cut as r = m / 2^(16+shift), m < 2^16, strictly between L and U, with the largest shift ≤
/// max_shift that has one (the finest step); ok = false where none does. Then for every p ≥ 0 and
/// 1 ≤ q ≤ n: fl64(p / q) < t ⟺ p ≤ ⌊⌊q·m / 2^16⌋ / 2^shift⌋. Always ok for n ≤ 255 with shift 0:
/// U − L = 1 / (lq·uq) > 2^-16.
struct FixedPointCut {
  bool ok = false;
  std::uint32_t m = 0;
  int shift = 0;
  FixedPointCut() = default;
  FixedPointCut(const RatioCut& cut, int max_shift) {
    for (int s = max_shift; s >= 0; --s) {
      const std::uint64_t scale = std::uint64_t{1} << (16 + s);
      const std::uint64_t above_l = cut.lp * scale / cut.lq + 1;  // the first step above L
      if (above_l < 65536 && above_l * cut.uq < cut.up * scale) {
        ok = true, m = static_cast<std::uint32_t>(above_l), shift = s;
        return;
      }
    }
  }
};

}  // namespace detail
TD_NAMESPACE_END
