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
// The vector body is branch-free: a block is first run without looking for
// non-finite values; if its lane sums show one, the block is re-run with a
// per-vector check that hands vectors holding one to the scalar reference
// (non-finite values are rare). Maxima carry no index in the vector body;
// the index is recovered by a scalar rescan of the block when a block beats
// the running maximum. Tails use the scalar reference too.

// Per-target include guard (Highway's toggle convention).
#if defined(TD_KERNELS_HIGHWAY_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TD_KERNELS_HIGHWAY_INL_HPP_
#undef TD_KERNELS_HIGHWAY_INL_HPP_
#else
#define TD_KERNELS_HIGHWAY_INL_HPP_
#endif

#include "hwy_workarounds.hpp"
#include <hwy/highway.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../partial.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensordiff {
inline namespace TD_ABI_NAMESPACE {
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

/// Rounds double lanes to the nearest float (ties to even; overflow to ±inf: Highway's
/// emulated targets clamp to ±FLT_MAX instead, so overflow is selected explicitly).
template <class D> HWY_INLINE hn::Vec<D> RoundToFloat(D d, hn::Vec<D> v) {
  const hn::Rebind<float, D> df;
  const auto r = hn::PromoteTo(d, hn::DemoteTo(df, v));
  const auto overflow = hn::Ge(hn::Abs(v), hn::Set(d, 0x1p128 - 0x1p103));  // rounds past FLT_MAX
  return hn::IfThenElse(overflow, hn::CopySign(hn::Set(d, detail::inf()), v), r);
}

/// The relative-error parameters as vectors.
template <class D> struct RelParams {
  hn::Vec<D> eps, t0, t1;
  bool f32;           ///< the float32 relative error
  bool round_inputs;  ///< f32 and an input type wider than float (16/32-bit floats are exact)
  HWY_INLINE RelParams(D d, const KernelParams& k, bool inputs_are_floats)
      : eps(hn::Set(d, k.rel_float32 ? static_cast<double>(static_cast<float>(k.zero_bench_eps)) : k.zero_bench_eps)),
        t0(hn::Set(d, k.rel_thresholds[0])), t1(hn::Set(d, k.rel_thresholds[1])), f32(k.rel_float32),
        round_inputs(k.rel_float32 && !inputs_are_floats) {}
};

template <class T>
inline constexpr bool is_narrow_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, ::tensordiff::float16> || std::is_same_v<T, ::tensordiff::bfloat16>;

/// Per-lane error terms of detail::accumulate_error for finite lanes; the
/// relative error is detail::relative_error. Its float32 form runs in double
/// lanes rounded to float after every operation: for +, −, ÷ of floats that
/// equals float arithmetic (53 ≥ 2·24 + 2 bits, so the double rounding is
/// innocuous).
template <class D> struct PairTerms {
  hn::Vec<D> diff, ad, rel;
  HWY_INLINE PairTerms(D d, hn::Vec<D> va, hn::Vec<D> vb, const RelParams<D>& r)
      : diff(hn::Sub(va, vb)), ad(hn::Abs(diff)), rel(Rel(d, va, vb, r)) {}
  static HWY_INLINE hn::Vec<D> Rel(D d, hn::Vec<D> va, hn::Vec<D> vb, const RelParams<D>& r) {
    if (r.round_inputs) {
      va = RoundToFloat(d, va);
      vb = RoundToFloat(d, vb);
    }
    const auto zero = hn::Eq(vb, hn::Zero(d));
    auto n = hn::Add(va, r.eps);
    if (r.f32) n = RoundToFloat(d, n);
    n = hn::IfThenElse(zero, n, va);
    const auto den = hn::IfThenElse(zero, r.eps, vb);
    auto num = hn::Sub(n, den);
    if (r.f32) num = RoundToFloat(d, num);
    auto q = hn::Div(num, den);
    if (r.f32) q = RoundToFloat(d, q);
    return hn::Abs(q);
  }
};

/// The accumulators of one block. Maxima are kept per lane without their
/// indices (that took two selects per maximum and an index vector): the index
/// of a block maximum that beats the running one is found afterwards by a
/// scalar rescan of the block (BlockIndexOf), which is rare after the first
/// blocks. Threshold counts are per-lane doubles (exact: ≤ kBlockSteps·4).
template <class D> struct BlockAcc {
  hn::Vec<D> dot, ssd, sad, srel, max_abs, max_rel, below0, below1;
  SideAcc<D> a, b;
  HWY_INLINE explicit BlockAcc(D d)
      : dot(hn::Zero(d)), ssd(hn::Zero(d)), sad(hn::Zero(d)), srel(hn::Zero(d)), max_abs(hn::Set(d, -1.0)),
        max_rel(hn::Set(d, -1.0)), below0(hn::Zero(d)), below1(hn::Zero(d)), a(d), b(d) {}

  HWY_INLINE void Add(D d, hn::Vec<D> va, hn::Vec<D> vb, const RelParams<D>& r) {
    a.Add(va);
    b.Add(vb);
    const PairTerms<D> e(d, va, vb, r);
    dot = hn::MulAdd(va, vb, dot);
    ssd = hn::MulAdd(e.diff, e.diff, ssd);
    sad = hn::Add(sad, e.ad);
    max_abs = hn::Max(max_abs, e.ad);
    srel = hn::Add(srel, e.rel);
    max_rel = hn::Max(max_rel, e.rel);
    const auto one = hn::Set(d, 1.0);
    below0 = hn::Add(below0, hn::IfThenElseZero(hn::Lt(e.rel, r.t0), one));
    below1 = hn::Add(below1, hn::IfThenElseZero(hn::Lt(e.rel, r.t1), one));
  }

  /// Whether every lane summed finite values only. For inputs that widen
  /// exactly and are at most 2^128 in magnitude (all but double), a lane's
  /// Σx is finite exactly when all its elements were; a double block whose
  /// sum overflowed is merely re-run on the checked path.
  HWY_INLINE bool AllFinite(D d) const { return hn::AllTrue(d, hn::And(hn::IsFinite(a.sum), hn::IsFinite(b.sum))); }

  /// Sums, counts and side statistics into `out`; the block maxima (without
  /// indices) into max_abs_out / max_rel_out.
  void Reduce(D d, Partial& out, double& max_abs_out, double& max_rel_out) const {
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(double);
    HWY_ALIGN double v[8][kMax];
    const hn::Vec<D> all[8] = {dot, ssd, sad, srel, max_abs, max_rel, below0, below1};
    for (int j = 0; j < 8; ++j) hn::Store(all[j], d, v[j]);
    Partial p;
    double below[2] = {0, 0};
    for (size_t l = 0; l < hn::Lanes(d); ++l) {
      p.dot += v[0][l];
      p.sum_sq_diff += v[1][l];
      p.sum_abs_diff += v[2][l];
      p.sum_rel += v[3][l];
      max_abs_out = v[4][l] > max_abs_out ? v[4][l] : max_abs_out;
      max_rel_out = v[5][l] > max_rel_out ? v[5][l] : max_rel_out;
      below[0] += v[6][l];
      below[1] += v[7][l];
    }
    p.rel_below[0] = static_cast<std::uint64_t>(below[0]);
    p.rel_below[1] = static_cast<std::uint64_t>(below[1]);
    a.Reduce(d, p.a);
    b.Reduce(d, p.b);
    out.merge(p);
  }
};

/// First position in [begin, end) whose finite pair has |a − b| (or, with
/// kRel, the relative error) equal to `target`: the vector body's own
/// PairTerms, so its maximum is found bit for bit. Non-finite pairs never
/// match (the reference counts them as 0; the scalar fallback's Partial has
/// them, and merge() keeps the smaller index on a tie).
template <bool kRel, class D, class TA, class TB>
HWY_INLINE size_t BlockIndexOf(D d, const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                               double target, const RelParams<D>& r) {
  const auto want = hn::Set(d, target);
  for (size_t j = begin; j < end; j += hn::Lanes(d)) {
    const auto va = LoadAsDouble(d, pa + j), vb = LoadAsDouble(d, pb + j);
    const PairTerms<D> e(d, va, vb, r);
    const auto hit = hn::And(hn::Eq(kRel ? e.rel : e.ad, want), hn::And(hn::IsFinite(va), hn::IsFinite(vb)));
    const intptr_t lane = hn::FindFirstTrue(d, hit);
    if (lane >= 0) return j + static_cast<size_t>(lane);
  }
  return begin;  // unreachable: the target came from one of these lanes
}

/// Fused pass over n contiguous pairs; see detail::accumulate_pair.
///
/// Blocks of kBlockSteps × 4 vectors run branch-free first; a block whose
/// sums show a non-finite element is re-run with a per-vector check that
/// hands vectors holding one to the scalar reference.
template <class TA, class TB>
HWY_NOINLINE void Accumulate(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                             const KernelParams& k, Partial& out) {
  constexpr bool kIntegral = is_integral_storage_v<TA> && is_integral_storage_v<TB>;  // always finite
  const hn::ScalableTag<double> d;
  using D = std::remove_const_t<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const RelParams<D> rp(d, k, is_narrow_float_v<TA> && is_narrow_float_v<TB>);
  Partial p;

  // Each lane (and the scalar fallback) sums at most 4·N·kBlockSteps terms
  // before the block is folded into `p`, which bounds the rounding of the
  // non-negative sums by about (4·N·kBlockSteps + blocks) · 2^-53 relative:
  // < 5e-13 for n ≤ 1e6.
  constexpr size_t kBlockSteps = 128;
  const size_t whole = n / (4 * N) * (4 * N);
  for (size_t begin = 0; begin < whole;) {
    const size_t end = begin + (whole - begin < 4 * N * kBlockSteps ? whole - begin : 4 * N * kBlockSteps);
    // One accumulator set: its 16 vectors plus the constants fit the 32
    // AVX-512 registers; more sets spilled and measured slower — the pass is
    // bound by its uop count, not by the latency of the add/max chains.
    BlockAcc<D> acc(d);
    Partial fallback;  // vectors holding a non-finite lane: scalar reference
    for (size_t j = begin; j < end; j += N)
      acc.Add(d, LoadAsDouble(d, pa + j), LoadAsDouble(d, pb + j), rp);
    if (!kIntegral && HWY_UNLIKELY(!acc.AllFinite(d))) {
      acc = BlockAcc<D>(d);
      for (size_t j = begin; j < end; j += N) {
        const auto va = LoadAsDouble(d, pa + j), vb = LoadAsDouble(d, pb + j);
        if (HWY_UNLIKELY(!hn::AllTrue(d, hn::And(hn::IsFinite(va), hn::IsFinite(vb))))) {
          for (size_t l = 0; l < N; ++l) accumulate_pair(fallback, pa[j + l], pb[j + l], first + j + l, k);
          continue;
        }
        acc.Add(d, va, vb, rp);
      }
    }
    double max_abs = -1, max_rel = -1;
    acc.Reduce(d, p, max_abs, max_rel);
    // Blocks come in index order, so only a strictly larger maximum moves
    // the index; ties with the fallback resolve in merge() (smaller index).
    if (max_abs > p.max_abs_diff) {
      p.max_abs_diff = max_abs;
      p.max_abs_index = first + BlockIndexOf<false>(d, pa, pb, begin, end, max_abs, rp);
    }
    if (max_rel > p.max_rel) {
      p.max_rel = max_rel;
      p.max_rel_index = first + BlockIndexOf<true>(d, pa, pb, begin, end, max_rel, rp);
    }
    p.merge(fallback);
    begin = end;
  }
  // The tail (< 4N pairs): the scalar reference.
  Partial tail;
  for (size_t i = whole; i < n; ++i) accumulate_pair(tail, pa[i], pb[i], first + i, k);
  p.count = n - tail.count;  // vector lanes and their scalar fallbacks
  p.merge(tail);
  out.merge(p);
}

/// SideStats of n contiguous elements; see SideStats::add. Same block scheme
/// as Accumulate: branch-free first, re-run with a per-vector check when the
/// block's sums show a non-finite element.
template <class T> HWY_NOINLINE void Summarize(const T* HWY_RESTRICT px, size_t n, SideStats& out) {
  const hn::ScalableTag<double> d;
  using D = std::remove_const_t<decltype(d)>;
  const size_t N = hn::Lanes(d);
  SideStats s;
  constexpr size_t kBlockSteps = 128;  // see Accumulate
  const size_t whole = n / (4 * N) * (4 * N);
  for (size_t begin = 0; begin < whole;) {
    const size_t end = begin + (whole - begin < 4 * N * kBlockSteps ? whole - begin : 4 * N * kBlockSteps);
    // Two accumulator sets hide the add latency; this pass has few uops.
    SideAcc<D> acc0(d), acc1(d);
    SideStats fallback;
    for (size_t j = begin; j < end; j += 2 * N) {
      acc0.Add(LoadAsDouble(d, px + j));
      acc1.Add(LoadAsDouble(d, px + j + N));
    }
    if (!is_integral_storage_v<T> &&
        HWY_UNLIKELY(!hn::AllTrue(d, hn::And(hn::IsFinite(acc0.sum), hn::IsFinite(acc1.sum))))) {
      acc0 = SideAcc<D>(d);
      acc1 = SideAcc<D>(d);
      for (size_t j = begin; j < end; j += N) {
        const auto v = LoadAsDouble(d, px + j);
        if (HWY_UNLIKELY(!hn::AllTrue(d, hn::IsFinite(v)))) {
          for (size_t l = 0; l < N; ++l) fallback.add(to_double(px[j + l]));
          continue;
        }
        acc0.Add(v);
      }
    }
    acc0.Reduce(d, s);
    acc1.Reduce(d, s);
    s.merge(fallback);
    begin = end;
  }
  SideStats tail;
  for (size_t i = whole; i < n; ++i) tail.add(to_double(px[i]));
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
}  // inline namespace TD_ABI_NAMESPACE
}  // namespace tensordiff
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
