// tensordiff — the xsimd kernel (opt-in: include this header and name
// kernels::Xsimd, e.g. compare<kernels::Xsimd>(a, b)).
//
// xsimd 8.1.0 (Debian bookworm) has no 16-bit float types at all, so both
// sides are first widened exactly to double in blocks of 512: bf16 by a 16-bit
// shift of the bits, f16 with F16C when the compiler targets it (else the
// exact scalar conversion) — see kernels/detail/widen.hpp. The fused pass then
// runs on xsimd::batch<double> of the compile target (xsimd 8.1.0 cannot
// dispatch at run time from one TU) with the operations of
// detail::accumulate_pair, under the block driver all SIMD kernels share
// (detail/block_driver.hpp), so maxima, indices and counts are exact and the
// sums differ from the scalar reference only by summation order. Pairs not
// widened exactly (bool, 64-bit integers) use kernels::Scalar.
#pragma once
#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "partial.hpp"
#include "detail/block_driver.hpp"
#include "detail/widen.hpp"
#include "scalar.hpp"

TD_NAMESPACE_BEGIN
namespace kernels {

/// The xsimd kernel (see the file comment): the fused pass on batches of doubles of the
/// compile target. Same interface as kernels::Scalar.
struct Xsimd {
  /// Kernel name, as reported by Comparison and the CLI's --kernel.
  static constexpr const char* name = "xsimd";
  /// A SIMD register of doubles of the compile target (e.g. 4 with AVX2).
  using batch = xsimd::batch<double>;
  /// Doubles per batch.
  static constexpr std::size_t lanes = batch::size;
  /// Pairs widened to double per block (each lane's partial sums then span at most block / lanes
  /// elements before they are added to the Partial).
  static constexpr std::size_t block = 512;  // multiple of lanes; bounds the per-lane sum length

  /// Folds the n element pairs a[i], b[i] (flat indices first + i) into `out`; `a` is the
  /// actual (NPU) side, `b` the expected (bench) side. TA / TB are kernel storage types.
  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first, const KernelParams& k,
                         Partial& out) {
    if constexpr (!(detail::widens_exactly_v<TA> && detail::widens_exactly_v<TB>)) {
      Scalar::accumulate(a, b, n, first, k, out);
    } else {
      alignas(64) double xa[block], xb[block];
      const batch eps(detail::relative_error_eps(k));
      const batch t0(k.rel_thresholds[0]), t1(k.rel_thresholds[1]), one(1.0), zero(0.0);
      auto run = [&](auto checked, std::size_t begin, std::size_t end, Partial& p, detail::BlockMaxima& m,
                     Partial& fallback) {
        const std::size_t len = end - begin;
        detail::widen_to_double(a + begin, len, xa);
        detail::widen_to_double(b + begin, len, xb);
        batch dot(0.0), ssd(0.0), sad(0.0), srel(0.0), mabs(-1.0), mrel(-1.0), c0(0.0), c1(0.0);
        batch amin(detail::inf()), amax(-detail::inf()), asum(0.0), asq(0.0);
        batch bmin(detail::inf()), bmax(-detail::inf()), bsum(0.0), bsq(0.0);
        for (std::size_t j = 0; j < len; j += lanes) {
          const batch va = batch::load_aligned(xa + j), vb = batch::load_aligned(xb + j);
          if constexpr (decltype(checked)::value) {
            if (!xsimd::all(xsimd::isfinite(va) & xsimd::isfinite(vb))) {  // rare: scalar reference
              const std::size_t at = begin + j;
              for (std::size_t l = 0; l < lanes; ++l) detail::accumulate_pair(fallback, a[at + l], b[at + l], first + at + l, k);
              continue;
            }
          }
          amin = xsimd::min(amin, va), amax = xsimd::max(amax, va), asum += va, asq = xsimd::fma(va, va, asq);
          bmin = xsimd::min(bmin, vb), bmax = xsimd::max(bmax, vb), bsum += vb, bsq = xsimd::fma(vb, vb, bsq);
          const batch diff = va - vb, ad = xsimd::abs(diff);
          dot = xsimd::fma(va, vb, dot);
          ssd = xsimd::fma(diff, diff, ssd);
          sad += ad;
          mabs = xsimd::max(mabs, ad);
          const batch rel = relative_error(va, vb, eps, k.rel_float32);
          srel += rel;
          mrel = xsimd::max(mrel, rel);
          c0 += xsimd::select(rel < t0, one, zero);
          c1 += xsimd::select(rel < t1, one, zero);
        }
        // Σx of each side is finite exactly when its elements were (or it overflowed: re-run).
        if (!decltype(checked)::value && !xsimd::all(xsimd::isfinite(asum) & xsimd::isfinite(bsum))) return false;
        Partial q;
        q.dot = lane_sum(dot), q.sum_sq_diff = lane_sum(ssd), q.sum_abs_diff = lane_sum(sad), q.sum_rel = lane_sum(srel);
        q.rel_below[0] = static_cast<std::uint64_t>(lane_sum(c0));  // exact: small integers
        q.rel_below[1] = static_cast<std::uint64_t>(lane_sum(c1));
        q.a = side(amin, amax, asum, asq);
        q.b = side(bmin, bmax, bsum, bsq);
        m.abs = lane_max(mabs);
        m.rel = lane_max(mrel);
        p.merge(q);
        return true;
      };
      detail::drive_blocks(a, b, n, lanes, block, first, k, out, run);
    }
  }

  /// Nearest float of double lanes (ties to even, ±inf beyond FLT_MAX), in double arithmetic:
  /// adding and removing s = 1.5·2^(e+29), where 2^e ≤ |x| < 2^(e+1) (e ≥ −126, float's
  /// subnormals), rounds x at float's ulp 2^(e−23); s/ulp is even, so ties go to even as in
  /// float. xsimd 8.1.0 has no double→float batch conversion.
  static batch round_to_float(const batch& x) {
    const batch exponent = x & bits(0x7FF0000000000000ull);  // 2^e (0 for zero)
    const batch s = xsimd::max(exponent, batch(0x1p-126)) * batch(0x1.8p29);
    const batch r = ((x + s) - s) | (x & bits(0x8000000000000000ull));  // keeps the sign of zeros
    const auto overflow = xsimd::abs(x) >= batch(0x1p128 - 0x1p103);  // rounds past FLT_MAX
    return xsimd::select(overflow, xsimd::select(x > batch(0.0), batch(detail::inf()), batch(-detail::inf())), r);
  }

  /// detail::relative_error on finite lanes; its float32 form rounds after every operation
  /// (for +, −, ÷ of floats that equals float arithmetic: 53 ≥ 2·24 + 2 bits).
  static batch relative_error(batch va, batch vb, const batch& eps, bool f32) {
    if (f32) {
      va = round_to_float(va);
      vb = round_to_float(vb);
    }
    const auto zb = vb == batch(0.0);
    batch nz = va + eps;
    if (f32) nz = round_to_float(nz);
    const batch n = xsimd::select(zb, nz, va), den = xsimd::select(zb, eps, vb);
    batch num = n - den;
    if (f32) num = round_to_float(num);
    batch q = num / den;
    if (f32) q = round_to_float(q);
    return xsimd::abs(q);
  }

  /// A batch of the double whose bit pattern is `u`.
  static batch bits(std::uint64_t u) {
    double v;
    std::memcpy(&v, &u, sizeof v);
    return batch(v);
  }

  /// Folds n elements of one side into `out`.
  template <class T> static void summarize(const T* x, std::size_t n, SideStats& out) {
    if constexpr (!detail::widens_exactly_v<T>) {
      Scalar::summarize(x, n, out);
    } else {
      alignas(64) double xa[block];
      detail::drive_side_blocks(x, n, lanes, block, out, [&](auto checked, std::size_t begin, std::size_t end, SideStats& s,
                                                            SideStats& fallback) {
        detail::widen_to_double(x + begin, end - begin, xa);
        batch mn(detail::inf()), mx(-detail::inf()), sum(0.0), sq(0.0);
        for (std::size_t j = 0; j < end - begin; j += lanes) {
          const batch v = batch::load_aligned(xa + j);
          if constexpr (decltype(checked)::value) {
            if (!xsimd::all(xsimd::isfinite(v))) {
              for (std::size_t l = 0; l < lanes; ++l) fallback.add(xa[j + l]);
              continue;
            }
          }
          mn = xsimd::min(mn, v), mx = xsimd::max(mx, v), sum += v, sq = xsimd::fma(v, v, sq);
        }
        if (!decltype(checked)::value && !xsimd::all(xsimd::isfinite(sum))) return false;
        s.merge(side(mn, mx, sum, sq));
        return true;
      });
    }
  }

 private:
  /// The lanes of v folded left to right with f.
  template <class F> static double fold_lanes(const batch& v, F f) {
    alignas(64) double t[lanes];
    v.store_aligned(t);
    double r = t[0];
    for (std::size_t l = 1; l < lanes; ++l) r = f(r, t[l]);
    return r;
  }
  static double lane_sum(const batch& v) {
    return fold_lanes(v, [](double x, double y) { return x + y; });
  }
  static double lane_max(const batch& v) {
    return fold_lanes(v, [](double x, double y) { return y > x ? y : x; });
  }
  /// One side's accumulators as SideStats.
  static SideStats side(const batch& mn, const batch& mx, const batch& sum, const batch& sq) {
    SideStats s;
    s.finite_min = fold_lanes(mn, [](double x, double y) { return y < x ? y : x; });
    s.finite_max = lane_max(mx);
    s.sum = lane_sum(sum);
    s.sum_sq = lane_sum(sq);
    return s;
  }
};

}  // namespace kernels
TD_NAMESPACE_END
