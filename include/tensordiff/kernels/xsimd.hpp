// tensordiff — the xsimd kernel (opt-in: include this header and name
// kernels::Xsimd, e.g. compare<kernels::Xsimd>(a, b)).
//
// xsimd 8.1.0 (Debian bookworm) has no 16-bit float types at all, so both
// sides are first widened exactly to double in blocks of 512: bf16 by a 16-bit
// shift of the bits, f16 with F16C when the compiler targets it (else the
// exact scalar conversion) — see kernels/detail/widen.hpp. The fused pass then
// runs on xsimd::batch<double> of the compile target (xsimd 8.1.0 cannot
// dispatch at run time from one TU) with the operations of
// detail::accumulate_pair, so maxima, indices and counts are exact and the
// sums differ from the scalar reference only by summation order. Pairs not
// widened exactly (bool, 64-bit integers) use kernels::Scalar.
#pragma once
#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "partial.hpp"
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
      alignas(64) double iota_d[lanes];
      for (std::size_t l = 0; l < lanes; ++l) iota_d[l] = static_cast<double>(l);
      const batch iota = batch::load_aligned(iota_d);
      const batch eps(k.rel_float32 ? static_cast<double>(static_cast<float>(k.zero_bench_eps)) : k.zero_bench_eps);
      const batch t0(k.rel_thresholds[0]), t1(k.rel_thresholds[1]), one(1.0), zero(0.0);
      Partial p;
      std::size_t i = 0;
      for (; i + lanes <= n;) {
        Partial fb;  // per block, so every sum stays short (see highway-inl.hpp)
        const std::size_t m = std::min(block, (n - i) / lanes * lanes);
        detail::widen_to_double(a + i, m, xa);
        detail::widen_to_double(b + i, m, xb);
        batch dot(0.0), ssd(0.0), sad(0.0), srel(0.0), mabs(-1.0), mabs_i(0.0), mrel(-1.0), mrel_i(0.0), c0(0.0),
            c1(0.0);
        batch amin(detail::inf()), amax(-detail::inf()), asum(0.0), asq(0.0);
        batch bmin(detail::inf()), bmax(-detail::inf()), bsum(0.0), bsq(0.0);
        for (std::size_t j = 0; j < m; j += lanes) {
          const batch va = batch::load_aligned(xa + j), vb = batch::load_aligned(xb + j);
          if (!xsimd::all(xsimd::isfinite(va) & xsimd::isfinite(vb))) {  // rare: scalar reference
            for (std::size_t l = 0; l < lanes; ++l) detail::accumulate_pair(fb, a[i + j + l], b[i + j + l], first + i + j + l, k);
            continue;
          }
          const batch idx = iota + batch(static_cast<double>(first + i + j));
          amin = xsimd::min(amin, va), amax = xsimd::max(amax, va), asum += va, asq = xsimd::fma(va, va, asq);
          bmin = xsimd::min(bmin, vb), bmax = xsimd::max(bmax, vb), bsum += vb, bsq = xsimd::fma(vb, vb, bsq);
          const batch diff = va - vb, ad = xsimd::abs(diff);
          dot = xsimd::fma(va, vb, dot);
          ssd = xsimd::fma(diff, diff, ssd);
          sad += ad;
          const auto gt = ad > mabs;
          mabs = xsimd::select(gt, ad, mabs);
          mabs_i = xsimd::select(gt, idx, mabs_i);
          const batch rel = relative_error(va, vb, eps, k.rel_float32);
          srel += rel;
          const auto gr = rel > mrel;
          mrel = xsimd::select(gr, rel, mrel);
          mrel_i = xsimd::select(gr, idx, mrel_i);
          c0 += xsimd::select(rel < t0, one, zero);
          c1 += xsimd::select(rel < t1, one, zero);
        }
        reduce(p, dot, ssd, sad, srel, mabs, mabs_i, mrel, mrel_i, c0, c1);
        reduce_side(p.a, amin, amax, asum, asq);
        reduce_side(p.b, bmin, bmax, bsum, bsq);
        p.merge(fb);
        i += m;
      }
      Partial tail;
      for (; i < n; ++i) detail::accumulate_pair(tail, a[i], b[i], first + i, k);
      p.count = n - tail.count;
      p.merge(tail);
      out.merge(p);
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
      SideStats s;
      std::size_t i = 0;
      for (; i + lanes <= n;) {
        SideStats fb;
        const std::size_t m = std::min(block, (n - i) / lanes * lanes);
        detail::widen_to_double(x + i, m, xa);
        batch mn(detail::inf()), mx(-detail::inf()), sum(0.0), sq(0.0);
        for (std::size_t j = 0; j < m; j += lanes) {
          const batch v = batch::load_aligned(xa + j);
          if (!xsimd::all(xsimd::isfinite(v))) {
            for (std::size_t l = 0; l < lanes; ++l) fb.add(xa[j + l]);
            continue;
          }
          mn = xsimd::min(mn, v), mx = xsimd::max(mx, v), sum += v, sq = xsimd::fma(v, v, sq);
        }
        reduce_side(s, mn, mx, sum, sq);
        s.merge(fb);
        i += m;
      }
      SideStats tail;
      for (; i < n; ++i) tail.add(detail::to_double(x[i]));
      s.merge(tail);
      out.merge(s);
    }
  }

 private:
  static void reduce_side(SideStats& out, const batch& mn, const batch& mx, const batch& sum, const batch& sq) {
    alignas(64) double v[4][lanes];
    mn.store_aligned(v[0]), mx.store_aligned(v[1]), sum.store_aligned(v[2]), sq.store_aligned(v[3]);
    SideStats s;
    for (std::size_t l = 0; l < lanes; ++l) {
      s.finite_min = v[0][l] < s.finite_min ? v[0][l] : s.finite_min;
      s.finite_max = v[1][l] > s.finite_max ? v[1][l] : s.finite_max;
      s.sum += v[2][l];
      s.sum_sq += v[3][l];
    }
    out.merge(s);
  }
  static void reduce(Partial& out, const batch& dot, const batch& ssd, const batch& sad, const batch& srel,
                     const batch& mabs, const batch& mabs_i, const batch& mrel, const batch& mrel_i, const batch& c0,
                     const batch& c1) {
    alignas(64) double v[10][lanes];
    const batch* all[10] = {&dot, &ssd, &sad, &srel, &mabs, &mabs_i, &mrel, &mrel_i, &c0, &c1};
    for (int j = 0; j < 10; ++j) all[j]->store_aligned(v[j]);
    Partial p;
    for (std::size_t l = 0; l < lanes; ++l) {
      p.dot += v[0][l], p.sum_sq_diff += v[1][l], p.sum_abs_diff += v[2][l], p.sum_rel += v[3][l];
      if (v[4][l] >= 0) Partial::take_max(p.max_abs_diff, p.max_abs_index, v[4][l], static_cast<std::uint64_t>(v[5][l]));
      if (v[6][l] >= 0) Partial::take_max(p.max_rel, p.max_rel_index, v[6][l], static_cast<std::uint64_t>(v[7][l]));
      p.rel_below[0] += static_cast<std::uint64_t>(v[8][l]);
      p.rel_below[1] += static_cast<std::uint64_t>(v[9][l]);
    }
    out.merge(p);
  }
};

}  // namespace kernels
TD_NAMESPACE_END
