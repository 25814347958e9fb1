// tensordiff — per-target Highway code of the fused compare pass.
//
// Re-included once per target by hwy/foreach_target.h (dynamic dispatch) or
// once for the static target; include kernels/highway.hpp, not this file.
// Users running their own foreach_target may include it from their
// HWY_TARGET_INCLUDE file after kernels/highway.hpp's declarations.
//
// Design (why it is exact): every element pair is widened to double lanes
// (f32/f16/bf16/int8..int32 convert exactly) and then sees the very operations
// of detail::accumulate_pair — a−b, |a−b|, the zero-bench select and one true
// division for the relative error — so per-element values, maxima, indices
// and threshold counts are bit-identical to the scalar reference. Only the
// order of the double sums differs (one accumulator per lane, FMA
// for a·b and (a−b)², exact for 16/32-bit inputs because a product of two
// 24-bit significands fits in 53 bits). Why the 1e-12 bar holds: each lane
// sums at most 4·kBlockSteps = 512 terms, each block (4·N·128 pairs, with its
// scalar fallbacks) is folded into the run's Partial, so a non-negative sum of
// n terms carries at most about (4·N·128 + n/(4·N·128) + 4·N) · 2^-53 relative
// error: ≈ 4.6e-13 for N = 8 and n = 1e6 (compare() further splits tensors
// into 65536-element chunks, merged in order: ≤ (4096 + 16 + chunks)·2^-53).
// Signed sums (Σa·b, Σx) obey the same bound relative to Σ|term|.
// A vector holding any non-finite lane is handed to the scalar reference for
// those N lanes (non-finite values are rare and that keeps the vector body
// branch-free). Tails use the scalar reference too.

// Per-target include guard (Highway's toggle convention).
#if defined(TD_KERNELS_HIGHWAY_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TD_KERNELS_HIGHWAY_INL_HPP_
#undef TD_KERNELS_HIGHWAY_INL_HPP_
#else
#define TD_KERNELS_HIGHWAY_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../metrics/partial.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensordiff {
inline namespace v0 {
namespace detail {
namespace hwy_kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Storage type as Highway sees it (same bits).
template <class T> struct HwyLane {
  using type = T;
};
template <> struct HwyLane<::tensordiff::float16> {
  using type = hwy::float16_t;
};
template <> struct HwyLane<::tensordiff::bfloat16> {
  using type = hwy::bfloat16_t;
};

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
inline constexpr bool kNativeF16 = true;  // F16C
#else
inline constexpr bool kNativeF16 = false;
#endif

/// Loads Lanes(d) elements of T and widens them exactly to double.
template <class T, class D> HWY_INLINE hn::Vec<D> LoadAsDouble(D d, const T* p) {
  using L = typename HwyLane<T>::type;
  const L* q = reinterpret_cast<const L*>(p);
  if constexpr (std::is_same_v<T, double>) {
    return hn::LoadU(d, q);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>) {
    const hn::Rebind<T, D> dn;
    return hn::PromoteTo(d, hn::LoadU(dn, q));
  } else if constexpr (std::is_same_v<T, ::tensordiff::float16> && !kNativeF16) {
    // Highway 1.0.3's emulated f16 -> f32 (targets without F16C) mis-converts
    // some values (the kernel tests caught it on SSE4/SSSE3/SCALAR), so those
    // targets widen through tensordiff's own exact scalar conversion.
    const hn::Rebind<float, D> df;
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(double)];
    for (size_t l = 0; l < hn::Lanes(d); ++l) buf[l] = detail::f16_bits_to_f32(p[l].bits);
    return hn::PromoteTo(d, hn::Load(df, buf));
  } else if constexpr (std::is_same_v<T, ::tensordiff::float16> || std::is_same_v<T, ::tensordiff::bfloat16>) {
    const hn::Rebind<float, D> df;
    const hn::Rebind<L, D> dh;
    return hn::PromoteTo(d, hn::PromoteTo(df, hn::LoadU(dh, q)));
  } else {  // 8/16-bit integers: via int32
    const hn::Rebind<std::int32_t, D> di;
    const hn::Rebind<T, D> dn;
    return hn::PromoteTo(d, hn::PromoteTo(di, hn::LoadU(dn, q)));
  }
}

template <class D> struct SideAcc {
  hn::Vec<D> mn, mx, sum, sq;
  HWY_INLINE explicit SideAcc(D d)
      : mn(hn::Set(d, detail::inf())), mx(hn::Set(d, -detail::inf())), sum(hn::Zero(d)), sq(hn::Zero(d)) {}
  HWY_INLINE void Add(hn::Vec<D> x) {
    mn = hn::Min(mn, x);
    mx = hn::Max(mx, x);
    sum = hn::Add(sum, x);
    sq = hn::MulAdd(x, x, sq);
  }
  void Reduce(D d, SideStats& out) const {
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(double);
    HWY_ALIGN double v[4][kMax];
    hn::Store(mn, d, v[0]);
    hn::Store(mx, d, v[1]);
    hn::Store(sum, d, v[2]);
    hn::Store(sq, d, v[3]);
    SideStats s;
    for (size_t l = 0; l < hn::Lanes(d); ++l) {
      s.finite_min = v[0][l] < s.finite_min ? v[0][l] : s.finite_min;
      s.finite_max = v[1][l] > s.finite_max ? v[1][l] : s.finite_max;
      s.sum += v[2][l];
      s.sum_sq += v[3][l];
    }
    out.merge(s);
  }
};

/// One independent set of pair accumulators (the kernel keeps 4).
template <class D> struct PairAcc {
  hn::Vec<D> dot, ssd, sad, srel, max_abs, max_abs_i, max_rel, max_rel_i;
  std::uint64_t below0 = 0, below1 = 0;  // mask popcounts: no vector register
  SideAcc<D> a, b;
  HWY_INLINE explicit PairAcc(D d)
      : dot(hn::Zero(d)), ssd(hn::Zero(d)), sad(hn::Zero(d)), srel(hn::Zero(d)), max_abs(hn::Set(d, -1.0)),
        max_abs_i(hn::Zero(d)), max_rel(hn::Set(d, -1.0)), max_rel_i(hn::Zero(d)), a(d), b(d) {}

  /// The error metrics of detail::accumulate_error for finite lanes.
  /// `idx` holds each lane's flat index as double (exact below 2^53).
  HWY_INLINE void Add(D d, hn::Vec<D> va, hn::Vec<D> vb, hn::Vec<D> idx, hn::Vec<D> eps, hn::Vec<D> t0,
                      hn::Vec<D> t1) {
    a.Add(va);
    b.Add(vb);
    const auto diff = hn::Sub(va, vb);
    const auto ad = hn::Abs(diff);
    dot = hn::MulAdd(va, vb, dot);
    ssd = hn::MulAdd(diff, diff, ssd);
    sad = hn::Add(sad, ad);
    const auto gt = hn::Gt(ad, max_abs);  // strict: first occurrence per lane
    max_abs = hn::IfThenElse(gt, ad, max_abs);
    max_abs_i = hn::IfThenElse(gt, idx, max_abs_i);
    const auto zero_b = hn::Eq(vb, hn::Zero(d));
    const auto rel = hn::Div(hn::IfThenElse(zero_b, hn::Abs(va), ad), hn::IfThenElse(zero_b, eps, hn::Abs(vb)));
    srel = hn::Add(srel, rel);
    const auto gr = hn::Gt(rel, max_rel);
    max_rel = hn::IfThenElse(gr, rel, max_rel);
    max_rel_i = hn::IfThenElse(gr, idx, max_rel_i);
    below0 += hn::CountTrue(d, hn::Lt(rel, t0));
    below1 += hn::CountTrue(d, hn::Lt(rel, t1));
  }

  void Reduce(D d, Partial& out) const {
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(double);
    HWY_ALIGN double v[8][kMax];
    const hn::Vec<D> all[8] = {dot, ssd, sad, srel, max_abs, max_abs_i, max_rel, max_rel_i};
    for (int j = 0; j < 8; ++j) hn::Store(all[j], d, v[j]);
    Partial p;
    for (size_t l = 0; l < hn::Lanes(d); ++l) {
      p.dot += v[0][l];
      p.sum_sq_diff += v[1][l];
      p.sum_abs_diff += v[2][l];
      p.sum_rel += v[3][l];
      if (v[4][l] >= 0) Partial::take_max(p.max_abs_diff, p.max_abs_index, v[4][l], static_cast<std::uint64_t>(v[5][l]));
      if (v[6][l] >= 0) Partial::take_max(p.max_rel, p.max_rel_index, v[6][l], static_cast<std::uint64_t>(v[7][l]));
    }
    p.rel_below[0] = below0;
    p.rel_below[1] = below1;
    a.Reduce(d, p.a);
    b.Reduce(d, p.b);
    out.merge(p);
  }
};

/// One vector of pairs at offset j into `acc`; a vector holding a non-finite
/// lane goes to the scalar reference instead.
template <class D, class TA, class TB>
HWY_INLINE void PairStep(D d, PairAcc<D>& acc, const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t j,
                         std::uint64_t first, const KernelParams& k, hn::Vec<D> eps, hn::Vec<D> t0, hn::Vec<D> t1,
                         hn::Vec<D> iota, Partial& fallback) {
  constexpr bool kIntegral = is_integral_storage_v<TA> && is_integral_storage_v<TB>;  // always finite
  const auto va = LoadAsDouble(d, pa + j);
  const auto vb = LoadAsDouble(d, pb + j);
  if constexpr (!kIntegral) {
    if (HWY_UNLIKELY(!hn::AllTrue(d, hn::And(hn::IsFinite(va), hn::IsFinite(vb))))) {
      for (size_t l = 0; l < hn::Lanes(d); ++l) accumulate_pair(fallback, pa[j + l], pb[j + l], first + j + l, k);
      return;
    }
  }
  const auto idx = hn::Add(iota, hn::Set(d, static_cast<double>(first + j)));
  acc.Add(d, va, vb, idx, eps, t0, t1);
}

/// Fused pass over n contiguous pairs; see detail::accumulate_pair.
template <class TA, class TB>
HWY_NOINLINE void Accumulate(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                             const KernelParams& k, Partial& out) {
  const hn::ScalableTag<double> d;
  using D = std::remove_const_t<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const auto eps = hn::Set(d, k.zero_bench_eps);
  const auto t0 = hn::Set(d, k.rel_thresholds[0]);
  const auto t1 = hn::Set(d, k.rel_thresholds[1]);
  const auto iota = hn::Iota(d, 0.0);
  Partial p;

  // Blocks of kBlockSteps × 4 vectors: each lane (and the scalar fallback)
  // sums at most 4·N·kBlockSteps terms before the block is folded into `p`,
  // which bounds the rounding of the non-negative sums by about
  // (4·N·kBlockSteps + blocks) · 2^-53 relative: < 5e-13 for n ≤ 1e6.
  constexpr size_t kBlockSteps = 128;
  size_t i = 0;
  while (i + 4 * N <= n) {
    // One accumulator set: its ~19 vectors plus the constants fit the 32
    // AVX-512 registers, whereas 4 independent sets (to hide add latency)
    // spilled on every step and measured 1.1–1.5× slower — the pass is bound
    // by its uop count, not by the latency of the add/max chains.
    PairAcc<D> acc(d);
    Partial fallback;  // vectors holding a non-finite lane: scalar reference
    for (size_t s = 0; s < kBlockSteps && i + 4 * N <= n; ++s, i += 4 * N) {
      PairStep(d, acc, pa, pb, i, first, k, eps, t0, t1, iota, fallback);
      PairStep(d, acc, pa, pb, i + N, first, k, eps, t0, t1, iota, fallback);
      PairStep(d, acc, pa, pb, i + 2 * N, first, k, eps, t0, t1, iota, fallback);
      PairStep(d, acc, pa, pb, i + 3 * N, first, k, eps, t0, t1, iota, fallback);
    }
    acc.Reduce(d, p);
    p.merge(fallback);
  }
  // Remaining whole vectors and the tail: the scalar reference (< 4N pairs).
  Partial tail;
  for (; i < n; ++i) accumulate_pair(tail, pa[i], pb[i], first + i, k);
  p.count = n - tail.count;  // vector lanes and their scalar fallbacks
  p.merge(tail);
  out.merge(p);
}

/// SideStats of n contiguous elements; see SideStats::add.
template <class T> HWY_NOINLINE void Summarize(const T* HWY_RESTRICT px, size_t n, SideStats& out) {
  const hn::ScalableTag<double> d;
  using D = std::remove_const_t<decltype(d)>;
  const size_t N = hn::Lanes(d);
  SideStats s;
  constexpr size_t kBlockSteps = 128;  // see Accumulate
  size_t i = 0;
  while (i + 4 * N <= n) {
    SideAcc<D> acc0(d), acc1(d), acc2(d), acc3(d);
    SideStats fallback;
    auto step = [&](SideAcc<D>& acc, size_t j) HWY_ATTR {
      const auto v = LoadAsDouble(d, px + j);
      if constexpr (!is_integral_storage_v<T>) {
        if (HWY_UNLIKELY(!hn::AllTrue(d, hn::IsFinite(v)))) {
          for (size_t l = 0; l < N; ++l) fallback.add(to_double(px[j + l]));
          return;
        }
      }
      acc.Add(v);
    };
    for (size_t b = 0; b < kBlockSteps && i + 4 * N <= n; ++b, i += 4 * N) {
      step(acc0, i);
      step(acc1, i + N);
      step(acc2, i + 2 * N);
      step(acc3, i + 3 * N);
    }
    acc0.Reduce(d, s);
    acc1.Reduce(d, s);
    acc2.Reduce(d, s);
    acc3.Reduce(d, s);
    s.merge(fallback);
  }
  SideStats tail;
  for (; i < n; ++i) tail.add(to_double(px[i]));
  s.merge(tail);
  out.merge(s);
}

/// Read-bandwidth baseline for the benchmarks: sums n 64-bit words with 4
/// accumulators (one load and one add per vector, nothing else).
HWY_NOINLINE inline std::uint64_t ReadWords(const std::uint64_t* HWY_RESTRICT p, size_t n) {
  const hn::ScalableTag<std::uint64_t> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, p + i));
    s1 = hn::Add(s1, hn::LoadU(d, p + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, p + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, p + i + 3 * N));
  }
  std::uint64_t r = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) r += p[i];
  return r;
}

}  // namespace HWY_NAMESPACE
}  // namespace hwy_kernels
}  // namespace detail
}  // namespace v0
}  // namespace tensordiff
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
