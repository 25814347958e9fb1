// tensordiff — per-target Highway code of the fused compare pass.
//
// Re-included once per target by hwy/foreach_target.h (dynamic dispatch) or
// once for the static target; include kernels/highway.hpp, not this file.
// Users running their own foreach_target may include it from their
// HWY_TARGET_INCLUDE file after kernels/highway.hpp's declarations.
//
// Three passes. Pairs of 16/32-bit floats with the float32 relative error (the
// default) take the float-lane pass (AccumulateFloat, below: the relative error
// in float lanes, sums widened to double). Same-type 8/16-bit integer pairs whose
// metric set has no relative error (cosine + max abs, statistics) take the
// integer-lane pass (AccumulateInt: exact integer arithmetic in 16-bit lanes).
// Every other pair (float64, integers, the float64 relative-error option) takes
// the double-lane pass described here. All three run under the block driver
// every SIMD kernel shares (block_driver.hpp: blocks, the NaN / inf re-run, one
// index rescan per maximum, the scalar tail).
//
// Design of the double-lane pass (why it is exact): every element pair is widened to double lanes
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
// into 2^18-element chunks, merged in order: ≤ (4096 + 64 + chunks)·2^-53).
// Signed sums (Σa·b, Σx) obey the same bound relative to Σ|term|.
// The vector body is branch-free: a block is first run without looking for
// non-finite values; if its lane sums show one, the driver re-runs it with a
// per-vector check. Maxima carry no index in the vector body; the driver has
// BlockIndexOf rescan the block that holds the maximum.
//
// Both passes keep their accumulators in local vectors passed by value or
// reference, never as struct members or array elements: SVE / RVV vectors are
// sizeless. tests/cross/aarch64.sh builds the kernel tests for AArch64 and runs
// them on every Arm target (NEON, SVE, SVE2, SVE_256, SVE2_128) under qemu.

// Per-target include guard (Highway's toggle convention).
#if defined(TD_KERNELS_HIGHWAY_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TD_KERNELS_HIGHWAY_INL_HPP_
#undef TD_KERNELS_HIGHWAY_INL_HPP_
#else
#define TD_KERNELS_HIGHWAY_INL_HPP_
#endif

#include "hwy_workarounds.hpp"
#include <hwy/highway.h>
#include <hwy/cache_control.h>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../partial.hpp"
#include "block_driver.hpp"
#include "ratio_cut.hpp"
#include "software_prefetch.hpp"

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

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    (HWY_ARCH_ARM_A64 && (HWY_TARGET & (HWY_NEON | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)))
inline constexpr bool kNativeF16 = true;  // F16C; AArch64's fcvt
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

/// Rounds double lanes to the nearest float (ties to even; overflow to ±inf: Highway's
/// emulated targets clamp to ±FLT_MAX instead, so overflow is selected explicitly).
template <class D> HWY_INLINE hn::Vec<D> RoundToFloat(D d, hn::Vec<D> v) {
  const hn::Rebind<float, D> df;
  const auto r = hn::PromoteTo(d, hn::DemoteTo(df, v));
  const auto overflow = hn::Ge(hn::Abs(v), hn::Set(d, 0x1p128 - 0x1p103));  // rounds past FLT_MAX
  return hn::IfThenElse(overflow, hn::CopySign(hn::Set(d, detail::inf()), v), r);
}

template <class T>
inline constexpr bool is_narrow_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, ::tensordiff::float16> || std::is_same_v<T, ::tensordiff::bfloat16>;

/// The relative error's parameters for the double-lane pass. Scalars, not vectors: SVE / RVV
/// vectors are sizeless and cannot be members; each block makes its own vectors.
struct RelParams {
  double eps;         ///< zero_bench_eps in the relative error's type
  bool f32;           ///< the float32 relative error
  bool round_inputs;  ///< f32 and an input type wider than float (16/32-bit floats are exact)
  RelParams(const KernelParams& k, bool inputs_are_floats)
      : eps(relative_error_eps(k)), f32(k.rel_float32), round_inputs(k.rel_float32 && !inputs_are_floats) {}
};

/// detail::relative_error of double lanes (finite lanes); `eps` is Set(d, r.eps). Its float32
/// form rounds to float after every operation: for +, −, ÷ of floats that equals float
/// arithmetic (53 ≥ 2·24 + 2 bits, so the double rounding is innocuous). kFloat64: the caller
/// knows r.f32 is false, so its loop has no run-time test.
template <bool kFloat64 = false, class D>
HWY_INLINE hn::Vec<D> RelErrorD(D d, hn::Vec<D> va, hn::Vec<D> vb, hn::Vec<D> eps, const RelParams& r) {
  const bool f32 = !kFloat64 && r.f32;
  if (!kFloat64 && r.round_inputs) {
    va = RoundToFloat(d, va);
    vb = RoundToFloat(d, vb);
  }
  const auto zero = hn::Eq(vb, hn::Zero(d));
  auto n = hn::Add(va, eps);
  if (f32) n = RoundToFloat(d, n);
  n = hn::IfThenElse(zero, n, va);
  const auto den = hn::IfThenElse(zero, eps, vb);
  auto num = hn::Sub(n, den);
  if (f32) num = RoundToFloat(d, num);
  auto q = hn::Div(num, den);
  if (f32) q = RoundToFloat(d, q);
  return hn::Abs(q);
}

// ---------------------------------------------------------------------------
// The float-lane pass: pairs of 16/32-bit floats with msprobe's float32
// relative error (rel_float32). Why it is exact:
// - the relative error is computed in float lanes with the reference's very
//   float operations (select, +eps, −, ÷, |·|), so every quotient, its
//   maximum and the threshold tests `q < t` are bit-identical; a double
//   threshold t is compared as the smallest float ≥ t (q < t ⟺ q < that, q
//   being a float);
// - min / max of each side run in float lanes (exact: widening is monotonic);
// - the sums widen straight from memory to double lanes (exact for every
//   16/32-bit float), Σa·b and Σ(a−b)² by FMA: a product of two ≤ 24-bit
//   significands is exact in double; |a−b| and its maximum are the double
//   values of the reference;
// - Σ rel widens each float quotient to double (exact) and adds.
// The accumulators are local vectors passed by value (SVE/RVV vectors are
// sizeless: no struct members, no arrays). Blocks of kFloatSteps vectors run
// branch-free; a block whose finiteness probe shows a NaN / inf is re-run with a
// per-vector check that hands such vectors to the scalar reference.
// `kParts` selects the parts of the pass the metric set needs (detail::pass_parts;
// a few variants are compiled, see Accumulate).
// ---------------------------------------------------------------------------

template <class T>
inline constexpr bool kFloatLane = std::is_same_v<T, float> || std::is_same_v<T, ::tensordiff::float16> ||
                                   std::is_same_v<T, ::tensordiff::bfloat16>;

/// Loads Lanes(df) elements of T as float lanes, exactly, with the cheapest instruction: float as
/// is, bf16 by a 16-bit shift (its bits are a float's upper half), f16 by F16C where present.
template <class T, class DF> HWY_INLINE hn::Vec<DF> LoadAsFloat(DF df, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, float>) {
    return hn::LoadU(df, p);
  } else if constexpr (std::is_same_v<T, ::tensordiff::bfloat16>) {
    const hn::RebindToUnsigned<DF> du;
    const hn::Rebind<std::uint16_t, DF> d16;
    const auto bits = hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(p)));
    return hn::BitCast(df, hn::ShiftLeft<16>(bits));
  } else if constexpr (kNativeF16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  } else {  // see LoadAsDouble: Highway 1.0.3's emulated f16 conversion is not exact
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
    for (size_t l = 0; l < hn::Lanes(df); ++l) buf[l] = detail::f16_bits_to_f32(p[l].bits);
    return hn::Load(df, buf);
  }
}

/// Lanes [h, h + Lanes(d)) of the float vector `f` as double (h is 0 or Lanes(d)).
template <class D, class VF> HWY_INLINE hn::Vec<D> PromoteHalf(D d, VF f, size_t h) {
#if HWY_TARGET == HWY_SCALAR  // one lane: nothing to split
  (void)h;
  return hn::PromoteTo(d, f);
#else
  const hn::Rebind<float, D> dh;
  return h == 0 ? hn::PromoteTo(d, hn::LowerHalf(dh, f)) : hn::PromoteTo(d, hn::UpperHalf(dh, f));
#endif
}

/// Lanes [h, h + Lanes(d)) of the float vector `f` loaded from `p`, as double. float32 is
/// widened straight from memory (one conversion with a memory operand, no shuffle); 16-bit
/// inputs reuse the float lanes already in registers (half a shuffle per vector instead of a
/// second zero-extend/shift/convert chain from memory). Both are exact.
template <class T, class D, class VF>
HWY_INLINE hn::Vec<D> HalfAsDouble(D d, VF f, const T* HWY_RESTRICT p, size_t h) {
  if constexpr (std::is_same_v<T, float>) {
    (void)f;
    return LoadAsDouble(d, p + h);
  } else {
    return PromoteHalf(d, f, h);
  }
}

/// The smallest float ≥ t: for a float q, q < t ⟺ q < ThresholdAsFloat(t).
inline float ThresholdAsFloat(double t) {
  float f = static_cast<float>(t);
  if (static_cast<double>(f) < t) f = std::nextafter(f, HUGE_VALF);
  return f;
}

/// detail::relative_error (float32 form) of float lanes: bit-identical to the scalar reference.
template <class DF>
HWY_INLINE hn::Vec<DF> RelErrorF(DF df, hn::Vec<DF> fa, hn::Vec<DF> fb, hn::Vec<DF> eps) {
  const auto zero = hn::Eq(fb, hn::Zero(df));
  const auto n = hn::IfThenElse(zero, hn::Add(fa, eps), fa);
  const auto den = hn::IfThenElse(zero, eps, fb);
  return hn::Abs(hn::Div(hn::Sub(n, den), den));
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3  // every AVX-512 target
#define TD_HWY_DIRECTED_SUB 1
/// a − b rounded toward +inf (kUp) or −inf: AVX-512 encodes the rounding mode in the instruction.
template <bool kUp, class V> HWY_INLINE V SubDirected(V a, V b) {
  constexpr int kMode = (kUp ? _MM_FROUND_TO_POS_INF : _MM_FROUND_TO_NEG_INF) | _MM_FROUND_NO_EXC;
  return V{_mm512_sub_round_ps(a.raw, b.raw, kMode)};
}
#else
#define TD_HWY_DIRECTED_SUB 0  // no per-instruction rounding: the Fast2Sum residuals (FloatBlock)
#endif

/// fl32(a − b) with its exactness test: `rounded` stays ±0 while every difference it saw was
/// exact (see FloatBlock). Vectors by reference: SVE-safe.
template <class VF> HWY_INLINE VF DiffInFloat(VF fa, VF fb, VF& rounded) {
#if TD_HWY_DIRECTED_SUB  // rounded down and up: equal iff exact
  const VF diff = SubDirected<true>(fa, fb);
  rounded = hn::Or(rounded, hn::Xor(SubDirected<false>(fa, fb), diff));  // ±0 where a − b = 0 (down: −0)
#else  // Fast2Sum residuals
  const VF diff = hn::Sub(fa, fb);
  rounded = hn::Or3(rounded, hn::Sub(hn::Add(diff, fb), fa), hn::Add(hn::Sub(diff, fa), fb));
#endif
  return diff;
}
#undef TD_HWY_DIRECTED_SUB  // per target: this file is included once per target

/// Lanes where both x and y are finite (neither NaN nor ±inf).
template <class V> HWY_INLINE auto BothFinite(V x, V y) { return hn::And(hn::IsFinite(x), hn::IsFinite(y)); }

/// Sum of the lanes of a double vector, in lane order.
template <class D> HWY_INLINE double LaneSum(D d, hn::Vec<D> v) {
  HWY_ALIGN double t[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(v, d, t);
  double s = 0;
  for (size_t l = 0; l < hn::Lanes(d); ++l) s += t[l];
  return s;
}
/// Largest (kMax) or smallest lane of a vector, as double.
template <bool kMax, class D> HWY_INLINE double LaneExtreme(D d, hn::Vec<D> v) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T t[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, t);
  double m = static_cast<double>(t[0]);
  for (size_t l = 1; l < hn::Lanes(d); ++l) {
    const double x = static_cast<double>(t[l]);
    m = kMax ? (x > m ? x : m) : (x < m ? x : m);
  }
  return m;
}

/// First position in [begin, end) (a whole number of vectors of d) whose vector mask hit(j) has
/// a true lane, or `end`. Four vectors per branch: with a branch per vector (mask to register,
/// test, jump) the rescans cost about as much as the pass itself on a tensor of one block (README,
/// "Thirty-first session").
template <class D, class Hit> HWY_INLINE size_t FirstHit(D d, size_t begin, size_t end, Hit&& hit) {
  const size_t L = hn::Lanes(d);
  size_t j = begin;
  for (; j + 4 * L <= end; j += 4 * L) {
    if (!hn::AllFalse(d, hn::Or(hn::Or(hit(j), hit(j + L)), hn::Or(hit(j + 2 * L), hit(j + 3 * L))))) break;
  }
  for (; j < end; j += L) {
    const intptr_t lane = hn::FindFirstTrue(d, hit(j));
    if (lane >= 0) return j + static_cast<size_t>(lane);
  }
  return end;
}

/// FirstHit (`end`: none) of the lanes where value(j, x, y) (which sets x, y to the vectors of the
/// pair's two sides) equals `target` and the pair may hold that maximum. A pair with a NaN / inf input has an |a − b|
/// and a relative error of inf or NaN, never a finite value, so a finite target skips the
/// finiteness test; an infinite one keeps it (finite pairs reach inf too: a − b of two doubles, a
/// float quotient).
template <class D, class Value> HWY_INLINE size_t FirstEqual(D d, size_t begin, size_t end, double target, Value&& value) {
  const auto want = hn::Set(d, static_cast<hn::TFromD<D>>(target));
  const auto scan = [&](auto finite_target) {
    return FirstHit(d, begin, end, [&](size_t j) {
      hn::Vec<D> x, y;
      const auto eq = hn::Eq(value(j, x, y), want);
      if constexpr (decltype(finite_target)::value) return eq;
      else return hn::And(eq, BothFinite(x, y));
    });
  };
  return std::isfinite(target) ? scan(std::true_type{}) : scan(std::false_type{});
}

/// First position in [begin, end) (a whole number of float vectors) whose finite pair has the
/// relative error `target`, with FloatBlock's own operations (so its maximum is found bit for bit).
template <class TA, class TB>
HWY_INLINE size_t FloatRelIndexOf(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                                  double target, float eps) {
  const hn::ScalableTag<float> df;
  const auto veps = hn::Set(df, eps);
  const size_t i = FirstEqual(df, begin, end, target, [&](size_t j, hn::Vec<decltype(df)>& fa, hn::Vec<decltype(df)>& fb) {
    fa = LoadAsFloat(df, pa + j), fb = LoadAsFloat(df, pb + j);
    return RelErrorF(df, fa, fb, veps);
  });
  return i < end ? i : begin;  // not found is unreachable: the target came from one of these lanes
}

/// BlockIndexOf's scan, `end` where no pair matches.
template <bool kRel, class TA, class TB>
HWY_INLINE size_t DoubleLaneScan(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                                 double target, const RelParams& r) {
  const hn::ScalableTag<double> d;
  const auto eps = hn::Set(d, r.eps);
  return FirstEqual(d, begin, end, target, [&](size_t j, hn::Vec<decltype(d)>& va, hn::Vec<decltype(d)>& vb) {
    va = LoadAsDouble(d, pa + j), vb = LoadAsDouble(d, pb + j);
    if constexpr (kRel) return RelErrorD(d, va, vb, eps, r);
    else return hn::Abs(hn::Sub(va, vb));
  });
}

/// First position in [begin, end) whose finite pair has |a − b| (or, with kRel, the relative
/// error) equal to `target`: DoubleBlock's own operations, so its maximum is found bit for bit.
/// Non-finite pairs never match (the reference counts them as 0; the scalar fallback's Partial
/// has them, and merge() keeps the smaller index on a tie).
template <bool kRel, class TA, class TB>
HWY_INLINE size_t BlockIndexOf(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                               double target, const RelParams& r) {
  const size_t i = DoubleLaneScan<kRel>(pa, pb, begin, end, target, r);
  return i < end ? i : begin;  // not found is unreachable: the target came from one of these pairs
}

/// BlockIndexOf<false> for the float-lane pass (pairs of f32 / bf16 / f16): a float-lane scan
/// picks the candidates first. With e the exact a − b and F = fl32(target) = fl32(|fl64(e)|),
/// |fl32(e)| is F or a neighbour of F (rounding is monotone, and between |e| and fl64(|e|),
/// half a double ulp apart, lies at most one float rounding boundary), so only float vectors
/// with a lane in [pred F, succ F] are checked in double lanes (twice the lanes, no widening).
template <class TA, class TB>
HWY_INLINE size_t FloatPairAbsIndexOf(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                                      double target, const RelParams& r) {
  const hn::ScalableTag<float> df;
  const size_t NF = hn::Lanes(df);
  const float f = static_cast<float>(target);
  const auto lo = hn::Set(df, std::nextafter(f, -HUGE_VALF)), hi = hn::Set(df, std::nextafter(f, HUGE_VALF));
  for (size_t j = begin; j < end; j += NF) {
    j = FirstHit(df, j, end, [&](size_t i) {
      const auto ad = hn::Abs(hn::Sub(LoadAsFloat(df, pa + i), LoadAsFloat(df, pb + i)));
      return hn::And(hn::Ge(ad, lo), hn::Le(ad, hi));
    });
    if (j >= end) break;
    j = begin + (j - begin) / NF * NF;  // the candidate's float vector, checked exactly
    const size_t i = DoubleLaneScan<false>(pa, pb, j, j + NF, target, r);
    if (i < j + NF) return i;
  }
  return begin;  // unreachable: the target came from one of these pairs
}

/// BlockIndexOf<false> of a block that FloatBlock ran with kAbsInFloat: float lanes while every
/// difference so far was exact (then |fl32(a − b)| is the reference's |a − b|, and a non-finite
/// pair gives inf / NaN, never the finite target), the double scan from the first vector with a
/// rounded difference on (or for a target no float holds: the block's maximum came from
/// BlockAbsMax). Twice as many lanes as the double scan: the rescan of the winning block was
/// ~3 % of assert_close's 16-bit pass in cache.
template <class TA, class TB>
HWY_INLINE size_t FloatAbsIndexOf(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                                  double target, const RelParams& r) {
  const hn::ScalableTag<float> df;
  size_t j = begin;
  if (target <= FLT_MAX && static_cast<double>(static_cast<float>(target)) == target) {
    const auto want = hn::Set(df, static_cast<float>(target)), zero = hn::Zero(df);
    auto rounded = zero;
    for (; j < end; j += hn::Lanes(df)) {
      const auto fa = LoadAsFloat(df, pa + j), fb = LoadAsFloat(df, pb + j);
      const auto hit = hn::Eq(hn::Abs(DiffInFloat(fa, fb, rounded)), want);
      if (!hn::AllTrue(df, hn::Eq(rounded, zero))) break;
      const intptr_t lane = hn::FindFirstTrue(df, hit);
      if (lane >= 0) return j + static_cast<size_t>(lane);
    }
  }
  return FloatPairAbsIndexOf(pa, pb, j, end, target, r);
}

/// The parts of the float-lane pass (bits of its kParts): detail::PassParts as one number.
enum : unsigned {
  kPartRelMax = 1,    ///< max relative error and both threshold counts
  kPartRelSum = 2,    ///< Σ relative error
  kPartAbsMax = 4,    ///< max |a − b|
  kPartDiffSums = 8,  ///< Σ(a − b)², Σ|a − b|
  kPartDot = 16,      ///< Σa·b, Σa², Σb²
  kPartSides = 32,    ///< Σa, Σa², min, max of each side
  kPartAll = 63
};
inline constexpr unsigned part_bits(const PassParts& p) {
  return (p.rel_max ? kPartRelMax : 0u) | (p.rel_sum ? kPartRelSum : 0u) | (p.abs_max ? kPartAbsMax : 0u) |
         (p.diff_sums ? kPartDiffSums : 0u) | (p.dot ? kPartDot : 0u) | (p.sides ? kPartSides : 0u);
}

template <class T>
inline constexpr bool kHalfFloat = std::is_same_v<T, ::tensordiff::float16> || std::is_same_v<T, ::tensordiff::bfloat16>;
/// Whether FloatBlock keeps max |a − b| in float lanes (its kAbsInFloat: the set has no double sum).
template <unsigned kParts, class TA, class TB>
inline constexpr bool kAbsInFloatPass = (kParts & kPartAbsMax) && !(kParts & (kPartDiffSums | kPartDot | kPartSides)) &&
                                        kHalfFloat<TA> && kHalfFloat<TB>;

/// BlockAbsMax's result: the largest |a − b| of the finite pairs, and whether every pair was finite.
struct AbsMaxScan {
  double max;
  bool all_finite;
};

/// Largest |a − b| (double, as the reference rounds it) of the finite pairs in [begin, end): the
/// float-lane pass's exact fallback for blocks whose float differences rounded (or, on the
/// branch-free run, whose residuals showed a NaN / inf: all_finite tells which).
template <class TA, class TB>
HWY_INLINE AbsMaxScan BlockAbsMax(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end) {
  const hn::ScalableTag<double> d;
  auto mx = hn::Set(d, -1.0);
  bool all_finite = true;
  for (size_t j = begin; j < end; j += hn::Lanes(d)) {
    const auto va = LoadAsDouble(d, pa + j), vb = LoadAsDouble(d, pb + j);
    const auto finite = BothFinite(va, vb);
    all_finite = all_finite && hn::AllTrue(d, finite);
    mx = hn::Max(mx, hn::IfThenElse(finite, hn::Abs(hn::Sub(va, vb)), hn::Set(d, -1.0)));
  }
  return {LaneExtreme<true>(d, mx), all_finite};
}

/// Folds v into a running minimum and maximum (vectors by reference: SVE-safe).
template <class V> HWY_INLINE void MinMax(V v, V& mn, V& mx) {
  mn = hn::Min(mn, v);
  mx = hn::Max(mx, v);
}

/// bf16 pairs load two float vectors from one 64-byte load per side: 2·Lanes(df) bf16 at p
/// as 32-bit words, vector u = 0 the elements at even positions (word << 16), u = 1 those at
/// odd positions (word & 0xFFFF0000: already a float's upper half). One instruction a vector
/// instead of a zero-extension and a shift. The sums, maxima and counts do not depend on which
/// lane holds which pair (the maxima's indices come from the rescan, in memory order), and both
/// sides are permuted alike, so pairs stay pairs; on a big-endian target u swaps, no more.
template <class TA, class TB>
inline constexpr bool kBf16Pair =
    std::is_same_v<TA, ::tensordiff::bfloat16> && std::is_same_v<TB, ::tensordiff::bfloat16>;
/// Float vectors per step of the float-lane pass (a bf16 pair loads two at once).
template <class TA, class TB> inline constexpr size_t kFloatSub = kBf16Pair<TA, TB> ? 2 : 1;

template <class DF> HWY_INLINE hn::Vec<DF> LoadBf16Half(DF df, const ::tensordiff::bfloat16* HWY_RESTRICT p, size_t u) {
  const hn::RebindToUnsigned<DF> du;
  const auto words = hn::LoadU(du, reinterpret_cast<const std::uint32_t*>(p));
  return hn::BitCast(df, u == 0 ? hn::ShiftLeft<16>(words) : hn::And(words, hn::Set(du, 0xFFFF0000u)));
}

/// Vector u of the vectors at p + w: in memory order, or (kInterleave) LoadBf16Half's halves.
template <bool kInterleave, class DF, class T>
HWY_INLINE hn::Vec<DF> LoadSub(DF df, const T* HWY_RESTRICT p, size_t w, size_t u) {
  if constexpr (kInterleave) return LoadBf16Half(df, p + w, u);
  else return LoadAsFloat(df, p + w + u * hn::Lanes(df));
}

/// The float-lane pass's sums, counts and side extremes across its blocks, lane by lane in
/// memory (SVE / RVV vectors cannot be members; arrays of scalars can): a block adds its lane
/// subtotals with one vector operation each instead of reducing each accumulator to a scalar
/// and merging a Partial (that cost ~10 % of the pass in cache), and FloatCarryPartial reduces
/// them once, in lane order. A lane still sums each block's subtotal, so the sums round as the
/// per-block fold did (see AccumulateFloat).
struct FloatCarry {
  static constexpr size_t kD = HWY_MAX_BYTES / sizeof(double), kF = HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN double dot[kD], sa[kD], sqa[kD], sb[kD], sqb[kD], ssd[kD], sad[kD], srel[kD];
  HWY_ALIGN float mna[kF], mxa[kF], mnb[kF], mxb[kF];
  std::uint64_t below0 = 0, below1 = 0;
  FloatCarry() {  // plain loops, not `= {}`: a strided view calls the pass once per short run
    for (size_t l = 0; l < kD; ++l) dot[l] = sa[l] = sqa[l] = sb[l] = sqb[l] = ssd[l] = sad[l] = srel[l] = 0;
    for (size_t l = 0; l < kF; ++l) mna[l] = mnb[l] = HUGE_VALF, mxa[l] = mxb[l] = -HUGE_VALF;
  }
};

/// carry[lane] += v (vectors by value: SVE-safe).
template <class D> HWY_INLINE void CarryAdd(D d, double* HWY_RESTRICT carry, hn::Vec<D> v) {
  hn::Store(hn::Add(hn::Load(d, carry), v), d, carry);
}
/// carry's lanes take the smaller of themselves and mn's, the larger of themselves and mx's.
template <class DF>
HWY_INLINE void CarryMinMax(DF df, float* HWY_RESTRICT mn_carry, float* HWY_RESTRICT mx_carry, hn::Vec<DF> mn,
                            hn::Vec<DF> mx) {
  hn::Store(hn::Min(hn::Load(df, mn_carry), mn), df, mn_carry);
  hn::Store(hn::Max(hn::Load(df, mx_carry), mx), df, mx_carry);
}

/// At position w of the block [begin, end), prefetches the same position kBlocks blocks ahead on
/// both sides (a block counted as at most 8 KiB of `a`: a further distance, the double-lane pass's
/// 16 KiB blocks of f64, left its statistics ~15 % slower from memory on Zen 3), once per 64 bytes
/// of `a`. The addresses are formed as integers: past the end of the data they are never
/// dereferenced, and a prefetch does not fault.
template <size_t kBlocks = 1, class TA, class TB>
HWY_INLINE void PrefetchNextBlock(const TA* pa, const TB* pb, size_t begin, size_t end, size_t w) {
  if (((w - begin) * sizeof(TA)) % 64 != 0) return;
  const size_t ahead = w + kBlocks * HWY_MIN(end - begin, 8192 / sizeof(TA));
  hwy::Prefetch(reinterpret_cast<const TA*>(reinterpret_cast<uintptr_t>(pa) + ahead * sizeof(TA)));
  hwy::Prefetch(reinterpret_cast<const TB*>(reinterpret_cast<uintptr_t>(pb) + ahead * sizeof(TB)));
}

/// x86 before AVX-512: 16 vector registers, and masks are vectors (no mask registers).
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
inline constexpr bool kX86BeforeAvx512 = true;
#else
inline constexpr bool kX86BeforeAvx512 = false;
#endif

/// Whether FloatBlock walks a block more than once when a set has both float-lane parts and double
/// sums: float-lane parts first, then the double sums (a bf16 pair's two vectors a step in a walk
/// each). x86 before AVX-512 has 16 vector registers, too few for the full set's ~22 accumulators
/// and constants: GCC 12 kept some double sums on the stack, each update a load, add and store
/// chained to the next (AMD EPYC Zen 3, AVX2: the f16 loop took ~22 cycles per 8 pairs). The
/// double-sum walks re-read the block from L1 (kFloatSteps); the float-lane walk before them
/// prefetches the blocks ahead (kFloatAheadBlocks), so the memory does not idle while they compute
/// (without a prefetch f32 lost a quarter from memory; from the first double-sum walk, as until the
/// twenty-fourth session, the full sets ran 3–7 % fewer G/s on Zen 2, within the read baseline's
/// noise). A lane sums the same terms as in one walk (bf16: its even pairs, then its odd ones),
/// within the same bound. The same targets prefetch the blocks ahead in the one walk of the lean
/// sets: for two f32 sides the hardware prefetcher alone left them at ~0.4× of the read bandwidth
/// (Zen 3); for 16-bit sides it lost 10–15 % on Zen 3 (an older kernel) but gained 7–30 % on Zen 2
/// (twenty-fourth session). Defining TD_HWY_ONE_WALK turns both off (the A/B builds). Measured on
/// Zen 3 and Zen 2: README, "x86 without AVX-512" and after.
#if defined(TD_HWY_ONE_WALK)
inline constexpr bool kMultiWalk = false;
#else
inline constexpr bool kMultiWalk = kX86BeforeAvx512;
#endif

/// Whether a block of the passes prefetches the next one (PrefetchNextBlock): always on kMultiWalk
/// targets (see above), on x86's AVX-512 targets where detail::avx512_prefetch() says so (Intel:
/// one busy core keeps too few misses in flight; software_prefetch.hpp), never elsewhere. Read
/// once a block, not a step: a local bool the loop's branch predicts.
HWY_INLINE bool PrefetchBlocks() {
  if constexpr (kMultiWalk) return true;
#if HWY_ARCH_X86
  if constexpr (!kX86BeforeAvx512) return avx512_prefetch().on;
#endif
  return false;
}

/// Vector steps per block of the float-lane pass (AccumulateFloat): 256, or on kMultiWalk targets
/// as many as fill 4 KiB of the wider side (at most 256). The double-sum walks re-read the block
/// from L1 while the next blocks stream in: with 8 KiB a side (f32 on AVX2), the block, its
/// quotients and the prefetched data overflowed the 32 KiB L1 and f32's full set ran ~8 % slower
/// from memory (Zen 2; README, twenty-sixth session).
template <class TA, class TB>
inline constexpr size_t kFloatSteps =
    kMultiWalk ? HWY_MIN(256, 4096 / (HWY_MAX_BYTES / sizeof(float) * HWY_MAX(sizeof(TA), sizeof(TB)))) : 256;
/// Blocks the float-lane pass prefetches ahead on kMultiWalk targets (blocks of ≤ 4 KiB there):
/// 3 (12 KiB of f32) ran f32's full set ~2 % faster from memory than 2, ~10 % faster than one
/// 8 KiB block (Zen 2); 16-bit pairs level.
inline constexpr size_t kFloatAheadBlocks = 3;

/// One step of max |a − b| in float lanes with its exactness test (FloatBlock's kAbsInFloat):
/// the maximum is kept as unsigned bits (an integer max orders non-negative floats as floats do
/// and keeps a NaN, whose bits lie above +inf's, where a float max would drop it). Vectors by
/// reference: SVE-safe.
template <class VF, class VU> HWY_INLINE void AbsMaxInFloat(VF fa, VF fb, VU& mabs_bits, VF& rounded) {
  const hn::DFromV<VU> du;
  mabs_bits = hn::Max(mabs_bits, hn::BitCast(du, hn::Abs(DiffInFloat(fa, fb, rounded))));
}

/// One block [begin, end) of the float-lane pass (drive_blocks' `run`): sums, counts and side
/// extremes into the carry `c`, the block maxima into `m`; only the parts in kParts are computed.
///
/// max |a − b| alone of two 16-bit floats (assert_close's set: no double sum) stays in float
/// lanes: a − b of two 8- or 11-bit significands is exact in float unless their exponents lie
/// far apart, and then the double pass decides. Exactness test (Fast2Sum, whichever operand is
/// larger in magnitude): s = fl(a − b) is exact iff fl(fl(s + b) − a) and fl(fl(s − a) + b)
/// are both +0; if s rounded, the one for the larger operand computes the rounding error
/// exactly, which is non-zero (gradual underflow keeps non-zero differences non-zero); an
/// overflowed s gives inf / NaN. A block where any pair rounded takes BlockAbsMax instead.
/// A NaN / inf input also makes a residual NaN, so the residuals are that set's finiteness
/// probe: a block with a non-zero residual is re-run checked if BlockAbsMax finds such a pair.
/// AVX-512 rounds per instruction, so there the test is a − b rounded down and up (SubDirected:
/// equal iff exact; 3 operations instead of 5, the set's loop runs ~20 % faster in cache). That
/// test misses a NaN input (both roundings give the same NaN), but max |a − b| keeps it
/// (AbsMaxInFloat), so a non-finite maximum is the probe too.
template <unsigned kParts, bool kChecked, class TA, class TB>
HWY_INLINE bool FloatBlock(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                          std::uint64_t first, const KernelParams& k, float eps_f, float t0_f, float t1_f,
                          FloatCarry& c, BlockMaxima& m, Partial& fallback) {
  constexpr bool kRelMax = kParts & kPartRelMax, kRelSum = kParts & kPartRelSum, kAbsMax = kParts & kPartAbsMax;
  constexpr bool kDiffSums = kParts & kPartDiffSums, kDot = kParts & kPartDot, kSides = kParts & kPartSides;
  constexpr bool kSquares = kDot || kSides, kRel = kRelMax || kRelSum;
  constexpr bool kAbsInFloat = kAbsInFloatPass<kParts, TA, TB>;
  constexpr bool kDiff = (kAbsMax && !kAbsInFloat) || kDiffSums;  // in double lanes
  // The finiteness probe: a double sum that turns NaN / inf exactly when an input was (Σx, Σx²
  // or Σ(a − b)² of floats: each term ≤ 2^256, ≤ 2·kFloatSteps terms a lane); else the exactness
  // test's residuals (NaN once an input is NaN / inf, see below); else a float FMA.
  constexpr bool kFloatProbe = !kSquares && !kDiffSums && !kAbsInFloat;
  const hn::ScalableTag<double> d;
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(d), NF = hn::Lanes(df);
  constexpr bool kInterleave = kBf16Pair<TA, TB> && !kChecked;  // the checked path keeps memory order
  constexpr size_t kSub = kFloatSub<TA, TB>;
  auto dot = hn::Zero(d), sa = hn::Zero(d), sqa = hn::Zero(d), sb = hn::Zero(d), sqb = hn::Zero(d);
  auto ssd = hn::Zero(d), sad = hn::Zero(d), mabs = hn::Set(d, -1.0), srel = hn::Zero(d);
  // Sets without a relative error (cosine + max abs, statistics) are bound by their sums'
  // dependency chains, not by throughput: there the upper double half of each float vector adds
  // into a second set of accumulators (kTwoChains; +22–30 % for f32 in cache on Zen 5, README).
  // Not on x86 before AVX-512 (16 registers: a second set spills) nor for the full set, whose
  // sums stay as they were (it is bound by its operation count).
  constexpr bool kTwoChains = !kRel && !kX86BeforeAvx512;
  auto dot1 = dot, sa1 = sa, sqa1 = sqa, sb1 = sb, sqb1 = sqb, ssd1 = ssd, sad1 = sad, mabs1 = mabs;
  auto mna = hn::Set(df, HUGE_VALF), mxa = hn::Set(df, -HUGE_VALF), mnb = mna, mxb = mxa;
  auto mrel = hn::Set(df, -1.0f), probe = hn::Zero(df);
  auto rounded = hn::Zero(df);
  const hn::RebindToUnsigned<decltype(df)> du;
  auto mabs_bits = hn::Zero(du);  // max |a − b| in float lanes, as bits (AbsMaxInFloat)
  const auto eps = hn::Set(df, eps_f), t0 = hn::Set(df, t0_f), t1 = hn::Set(df, t1_f);
  const auto zf = hn::Zero(df);
  std::uint64_t below0 = 0, below1 = 0;  // popcounts: a masked vector add each cost ~10 % of the pass
  constexpr bool kSplit = kMultiWalk && !kChecked && (kSquares || kDiffSums) && kRel;
  // Split walks: the float-lane walk stores each quotient, a double-sum walk widens it from
  // memory into Σ rel (no lane extract; the conversions run where the adders have room).
  // Zen 2, full set in cache: f32 +9–10 %, bf16 / f16 +5–8 % (README, twenty-fifth session).
  constexpr bool kRelSumLater = kSplit && kRelSum;
  HWY_ALIGN float quotients[kRelSumLater ? HWY_MAX_BYTES / sizeof(float) * kFloatSteps<TA, TB> : 1];
  // the walk with the float-lane parts prefetches ahead: the one walk, or kSplit's first (blocks
  // of ≤ 4 KiB there, kFloatAheadBlocks ahead; elsewhere one 8 KiB stretch: 24 KiB cost ~5 % in
  // cache on Ice Lake-SP, 8 KiB nothing)
  const bool prefetch = !kChecked && PrefetchBlocks();
  constexpr size_t kAhead = kMultiWalk ? kFloatAheadBlocks : 1;
  // The double sums of lanes [h, h + N) of the float vectors fa, fb at j, into the first
  // accumulator set or (kUpper) the second; Σ rel (kRelSumLater: never with kTwoChains) has one.
  auto half_sums = [&](auto upper, auto fa, auto fb, size_t j, size_t h) {
    constexpr bool kUpper = decltype(upper)::value;
    auto& dot_ = kUpper ? dot1 : dot;
    auto& sa_ = kUpper ? sa1 : sa;
    auto& sqa_ = kUpper ? sqa1 : sqa;
    auto& sb_ = kUpper ? sb1 : sb;
    auto& sqb_ = kUpper ? sqb1 : sqb;
    auto& ssd_ = kUpper ? ssd1 : ssd;
    auto& sad_ = kUpper ? sad1 : sad;
    auto& mabs_ = kUpper ? mabs1 : mabs;
    const auto xa = HalfAsDouble(d, fa, pa + j, h), xb = HalfAsDouble(d, fb, pb + j, h);
    if constexpr (kSides) {
      sa_ = hn::Add(sa_, xa);
      sb_ = hn::Add(sb_, xb);
    }
    if constexpr (kSquares) {
      sqa_ = hn::MulAdd(xa, xa, sqa_);
      sqb_ = hn::MulAdd(xb, xb, sqb_);
    }
    if constexpr (kDot) dot_ = hn::MulAdd(xa, xb, dot_);
    if constexpr (kDiff) {
      const auto diff = hn::Sub(xa, xb);
      const auto ad = hn::Abs(diff);
      if constexpr (kDiffSums) {
        ssd_ = hn::MulAdd(diff, diff, ssd_);
        sad_ = hn::Add(sad_, ad);
      }
      if constexpr (kAbsMax) mabs_ = hn::Max(mabs_, ad);
    }
    if constexpr (kRelSumLater) srel = hn::Add(srel, LoadAsDouble(d, quotients + (j - begin) + h));
  };
  // One walk of the block over the float-lane parts (kF) and / or the double sums (kD), of the
  // vectors u in [kU0, kU1) of each step.
  auto walk = [&](auto float_parts, auto double_sums, auto u0, auto u1) {
    constexpr bool kF = decltype(float_parts)::value, kD = decltype(double_sums)::value;
    constexpr size_t kU0 = decltype(u0)::value, kU1 = decltype(u1)::value;
    for (size_t w = begin; w < end; w += kSub * NF) {
      for (size_t u = kU0; u < kU1; ++u) {
        const size_t j = w + u * NF;
        const auto fa = LoadSub<kInterleave>(df, pa, w, u), fb = LoadSub<kInterleave>(df, pb, w, u);
        if constexpr (kF) {
          if (u == 0 && prefetch) PrefetchNextBlock<kAhead>(pa, pb, begin, end, w);
        }
        if constexpr (kF && kChecked) {
          if (HWY_UNLIKELY(!hn::AllTrue(df, BothFinite(fa, fb)))) {
            for (size_t l = 0; l < NF; ++l) accumulate_pair(fallback, pa[j + l], pb[j + l], first + j + l, k);
            continue;
          }
        } else if constexpr (kF && kFloatProbe) {
          probe = hn::MulAdd(fa, zf, hn::MulAdd(fb, zf, probe));  // NaN once an input is NaN / inf
        }
        if constexpr (kF && kSides) {
          MinMax(fa, mna, mxa);
          MinMax(fb, mnb, mxb);
        }
        if constexpr (kF && kAbsInFloat) AbsMaxInFloat(fa, fb, mabs_bits, rounded);
        if constexpr (kF && kRel) {
          const auto q = RelErrorF(df, fa, fb, eps);
          if constexpr (kRelMax) {
            mrel = hn::Max(mrel, q);
            below0 += hn::CountTrue(df, hn::Lt(q, t0));
            below1 += hn::CountTrue(df, hn::Lt(q, t1));
          }
          if constexpr (kRelSumLater) {
            hn::Store(q, df, quotients + (j - begin));
          } else if constexpr (kRelSum) {
            for (size_t h = 0; h < NF; h += N) srel = hn::Add(srel, PromoteHalf(d, q, h));
          }
        }
        if constexpr (kD && (kSquares || kDiff)) {
          half_sums(std::false_type{}, fa, fb, j, 0);
          if (NF > N) half_sums(std::bool_constant<kTwoChains>{}, fa, fb, j, N);
        }
      }
    }
  };
  using Yes = std::true_type;
  using No = std::false_type;
  using U0 = std::integral_constant<size_t, 0>;
  using USub = std::integral_constant<size_t, kSub>;
  if constexpr (kSplit) {
    walk(Yes{}, No{}, U0{}, USub{});
    // a bf16 pair's two vectors a step each get a walk of their own: both in one overflowed
    // the registers again (a lane sums its even pairs first, then its odd ones)
    walk(No{}, Yes{}, U0{}, std::integral_constant<size_t, 1>{});
    if constexpr (kSub == 2) walk(No{}, Yes{}, std::integral_constant<size_t, 1>{}, USub{});
  } else {
    walk(Yes{}, Yes{}, U0{}, USub{});
  }
  if constexpr (kTwoChains) {
    dot = hn::Add(dot, dot1), sa = hn::Add(sa, sa1), sqa = hn::Add(sqa, sqa1), sb = hn::Add(sb, sb1);
    sqb = hn::Add(sqb, sqb1), ssd = hn::Add(ssd, ssd1), sad = hn::Add(sad, sad1), mabs = hn::Max(mabs, mabs1);
  }
  if constexpr (kAbsInFloat) {
    const auto mabs_f = hn::BitCast(df, mabs_bits);
    // Eq, not a bit test: the directed path's only exact pair with down ≠ up is (−0, +0)
    const bool exact = hn::AllTrue(df, hn::Eq(rounded, zf)) && hn::AllTrue(df, hn::IsFinite(mabs_f));
    if (HWY_LIKELY(exact)) {
      m.abs = LaneExtreme<true>(df, mabs_f);
    } else {  // a difference rounded or an input is NaN / inf: one exact scan tells which
      const AbsMaxScan scan = BlockAbsMax(pa, pb, begin, end);
      if (!kChecked && !scan.all_finite) return false;  // the checked re-run sets m.abs again
      m.abs = scan.max;
    }
  } else if constexpr (!kChecked) {
    bool finite;
    if constexpr (kSquares) finite = hn::AllTrue(d, BothFinite(sqa, sqb));
    else if constexpr (kDiffSums) finite = hn::AllTrue(d, hn::IsFinite(ssd));
    else finite = hn::AllTrue(df, hn::IsFinite(probe));
    if (HWY_UNLIKELY(!finite)) return false;
  }
  if constexpr (kSquares) {
    CarryAdd(d, c.sqa, sqa);
    CarryAdd(d, c.sqb, sqb);
  }
  if constexpr (kDot) CarryAdd(d, c.dot, dot);
  if constexpr (kSides) {
    CarryAdd(d, c.sa, sa);
    CarryAdd(d, c.sb, sb);
    CarryMinMax(df, c.mna, c.mxa, mna, mxa);
    CarryMinMax(df, c.mnb, c.mxb, mnb, mxb);
  }
  if constexpr (kDiffSums) {
    CarryAdd(d, c.ssd, ssd);
    CarryAdd(d, c.sad, sad);
  }
  if constexpr (kAbsMax && !kAbsInFloat) {
    if (!hn::AllFalse(d, hn::Gt(mabs, hn::Set(d, m.abs_floor)))) m.abs = LaneExtreme<true>(d, mabs);
  }
  if constexpr (kRelSum) CarryAdd(d, c.srel, srel);
  if constexpr (kRelMax) {
    // The floor is -1 or a float's value (an earlier block's maximum): exact as a float.
    if (!hn::AllFalse(df, hn::Gt(mrel, hn::Set(df, static_cast<float>(m.rel_floor))))) {
      m.rel = LaneExtreme<true>(df, mrel);
    }
    c.below0 += below0;
    c.below1 += below1;
  }
  return true;
}

/// The carry of the float-lane pass as a Partial (the parts in kParts), lanes in order.
template <unsigned kParts> HWY_INLINE Partial FloatCarryPartial(const FloatCarry& c) {
  const hn::ScalableTag<double> d;
  const hn::ScalableTag<float> df;
  Partial q;
  if constexpr ((kParts & (kPartDot | kPartSides)) != 0) {
    q.a.sum_sq = LaneSum(d, hn::Load(d, c.sqa));
    q.b.sum_sq = LaneSum(d, hn::Load(d, c.sqb));
  }
  if constexpr ((kParts & kPartDot) != 0) q.dot = LaneSum(d, hn::Load(d, c.dot));
  if constexpr ((kParts & kPartSides) != 0) {
    q.a.sum = LaneSum(d, hn::Load(d, c.sa));
    q.b.sum = LaneSum(d, hn::Load(d, c.sb));
    q.a.finite_min = LaneExtreme<false>(df, hn::Load(df, c.mna));
    q.a.finite_max = LaneExtreme<true>(df, hn::Load(df, c.mxa));
    q.b.finite_min = LaneExtreme<false>(df, hn::Load(df, c.mnb));
    q.b.finite_max = LaneExtreme<true>(df, hn::Load(df, c.mxb));
  }
  if constexpr ((kParts & kPartDiffSums) != 0) {
    q.sum_sq_diff = LaneSum(d, hn::Load(d, c.ssd));
    q.sum_abs_diff = LaneSum(d, hn::Load(d, c.sad));
  }
  if constexpr ((kParts & kPartRelSum) != 0) q.sum_rel = LaneSum(d, hn::Load(d, c.srel));
  q.rel_below[0] = c.below0;
  q.rel_below[1] = c.below1;
  return q;
}

/// The float-lane pass over n contiguous pairs (see above), driven by drive_blocks.
template <unsigned kParts, class TA, class TB>
HWY_INLINE void AccumulateFloat(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                                const KernelParams& k, Partial& out) {
  const size_t NF = hn::Lanes(hn::ScalableTag<float>());
  const float eps = static_cast<float>(k.zero_bench_eps);
  const float t0 = ThresholdAsFloat(k.rel_thresholds[0]), t1 = ThresholdAsFloat(k.rel_thresholds[1]);
  const RelParams rp(k, true);
  // Each double lane sums ≤ 2·kFloatSteps terms in a block, then adds that subtotal to its
  // carry lane: ≤ (2·kFloatSteps + blocks + lanes) · 2^-53 relative rounding, < 2e-13 for
  // n ≤ 2^20 (the 1e-12 bar; compare() hands the kernel chunks of 2^18 pairs).
  FloatCarry carry;
  drive_blocks(
      pa, pb, n, kFloatSub<TA, TB> * NF, NF * kFloatSteps<TA, TB>, first, k, out,
      [&](auto checked, size_t begin, size_t end, Partial&, BlockMaxima& m, Partial& fallback) {
        return FloatBlock<kParts, decltype(checked)::value>(pa, pb, begin, end, first, k, eps, t0, t1, carry, m,
                                                            fallback);
      },
      [&](auto target, size_t begin, size_t end, double value) {
        if constexpr (decltype(target)::value) return FloatRelIndexOf(pa, pb, begin, end, value, eps);
        else if constexpr (kAbsInFloatPass<kParts, TA, TB>) return FloatAbsIndexOf(pa, pb, begin, end, value, rp);
        else return FloatPairAbsIndexOf(pa, pb, begin, end, value, rp);
      });
  out.merge(FloatCarryPartial<kParts>(carry));
}

/// Benchmark-only ablation of the float-lane pass over n same-type pairs (the tail beyond a
/// whole step is ignored): stage 0 loads both sides as the kernel does (LoadSub); 1 adds the double
/// sums (widening loads, Σa, Σb, Σa², Σb², Σa·b, Σ(a−b)², Σ|a−b|); 2 adds the maxima (min / max
/// of each side, max |a−b|); 3 adds the relative error (division, its maximum, both threshold
/// counts, Σ rel). The full pass (stage 4: blocks, NaN / inf handling, indices) is Accumulate.
/// Two probes: stage 5 is stage 3 with the division replaced by a multiplication (what the
/// divider costs); stage 6 is the floor of assert_close's set, all in float lanes (the relative
/// error, its maximum, both threshold counts and max |a−b| in float — not exact for 16-bit
/// inputs, which need more, so an upper bound on that set's speed; stage 8 adds the kernel's
/// exactness test of max |a − b| to it, AbsMaxInFloat, so 8 − 6 is what that test costs);
/// stage 7 is stage 1 with Σa², Σb², Σa·b summed from float products widened to double instead of FMAs on the widened
/// inputs (issue #12's "16-bit products are exact in float": exact for f16, for bf16 only
/// without overflow / underflow, which this stage does not check — a lower bound on its cost).
/// Returns a number that depends on every accumulator, so nothing is optimised away.
template <int kStage, class T>
HWY_NOINLINE double AblationPass(const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t n) {
  const hn::ScalableTag<double> d;
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(d), NF = hn::Lanes(df);
  auto loads = hn::Zero(df), mna = hn::Set(df, HUGE_VALF), mxa = hn::Set(df, -HUGE_VALF), mnb = mna, mxb = mxa;
  auto mrel = hn::Set(df, -1.0f);
  std::uint64_t below0 = 0, below1 = 0;
  auto dot = hn::Zero(d), sa = dot, sqa = dot, sb = dot, sqb = dot, ssd = dot, sad = dot, srel = dot;
  auto mabs = hn::Set(d, -1.0);
  auto mabs_f = hn::Set(df, -1.0f), rounded = hn::Zero(df);
  const hn::RebindToUnsigned<decltype(df)> du;
  auto mabs_bits = hn::Zero(du);
  const auto eps = hn::Set(df, 0x1p-23f), t0 = hn::Set(df, 1e-3f), t1 = hn::Set(df, 5e-3f);
  constexpr bool kSums = (kStage >= 1 && kStage <= 5) || kStage == 7, kMaxima = kStage >= 2 && kStage <= 5;
  constexpr bool kRel = (kStage >= 3 && kStage <= 6) || kStage == 8, kFloatProducts = kStage == 7;
  constexpr size_t kSub = kFloatSub<T, T>;
  for (size_t w = 0; w + kSub * NF <= n; w += kSub * NF) {
    for (size_t u = 0; u < kSub; ++u) {
      const size_t j = w + u * NF;
      const auto fa = LoadSub<kBf16Pair<T, T>>(df, pa, w, u), fb = LoadSub<kBf16Pair<T, T>>(df, pb, w, u);
      if constexpr (kStage == 0) loads = hn::Xor(loads, hn::Xor(fa, fb));  // 1-cycle chain: loads bound
      if constexpr (kMaxima) {
        MinMax(fa, mna, mxa);
        MinMax(fb, mnb, mxb);
      }
      if constexpr (kRel) {
        auto q = RelErrorF(df, fa, fb, eps);
        if constexpr (kStage == 5) {  // RelErrorF with × for ÷
          const auto zero = hn::Eq(fb, hn::Zero(df));
          const auto den = hn::IfThenElse(zero, eps, fb);
          q = hn::Abs(hn::Mul(hn::Sub(hn::IfThenElse(zero, hn::Add(fa, eps), fa), den), den));
        }
        mrel = hn::Max(mrel, q);
        below0 += hn::CountTrue(df, hn::Lt(q, t0));
        below1 += hn::CountTrue(df, hn::Lt(q, t1));
        if constexpr (kStage == 6) {
          mabs_f = hn::Max(mabs_f, hn::Abs(hn::Sub(fa, fb)));
        } else if constexpr (kStage == 8) {
          AbsMaxInFloat(fa, fb, mabs_bits, rounded);
        } else {
          for (size_t h = 0; h < NF; h += N) srel = hn::Add(srel, PromoteHalf(d, q, h));
        }
      }
      if constexpr (kFloatProducts) {
        const auto paa = hn::Mul(fa, fa), pbb = hn::Mul(fb, fb), pab = hn::Mul(fa, fb);
        for (size_t h = 0; h < NF; h += N) {
          sqa = hn::Add(sqa, PromoteHalf(d, paa, h));
          sqb = hn::Add(sqb, PromoteHalf(d, pbb, h));
          dot = hn::Add(dot, PromoteHalf(d, pab, h));
        }
      }
      if constexpr (kSums) {
        for (size_t h = 0; h < NF; h += N) {
          const auto xa = HalfAsDouble(d, fa, pa + j, h), xb = HalfAsDouble(d, fb, pb + j, h);
          sa = hn::Add(sa, xa);
          sb = hn::Add(sb, xb);
          if constexpr (!kFloatProducts) {
            sqa = hn::MulAdd(xa, xa, sqa);
            sqb = hn::MulAdd(xb, xb, sqb);
            dot = hn::MulAdd(xa, xb, dot);
          }
          const auto diff = hn::Sub(xa, xb);
          ssd = hn::MulAdd(diff, diff, ssd);
          const auto ad = hn::Abs(diff);
          sad = hn::Add(sad, ad);
          if constexpr (kMaxima) mabs = hn::Max(mabs, ad);
        }
      }
    }
  }
  const auto fsum = hn::Add(hn::Add(hn::Add(loads, hn::Add(mna, mxa)), hn::Add(mnb, mxb)),
                            hn::Add(hn::Add(mrel, mabs_f), hn::Add(rounded, hn::BitCast(df, mabs_bits))));
  const auto dsum = hn::Add(hn::Add(hn::Add(dot, sa), hn::Add(sqa, sb)),
                            hn::Add(hn::Add(sqb, ssd), hn::Add(sad, hn::Add(srel, mabs))));
  return LaneSum(d, dsum) + LaneExtreme<true>(df, fsum) + static_cast<double>(below0 + below1);
}

/// Adds the finite lanes v to one side's accumulators (vectors by reference: SVE-safe).
template <class V> HWY_INLINE void SideAdd(V v, V& mn, V& mx, V& sum, V& sq) {
  MinMax(v, mn, mx);
  sum = hn::Add(sum, v);
  sq = hn::MulAdd(v, v, sq);
}

/// One side's accumulators (SideAdd) folded into SideStats, lanes in order.
template <class D>
HWY_INLINE SideStats SideLanes(D d, hn::Vec<D> mn, hn::Vec<D> mx, hn::Vec<D> sum, hn::Vec<D> sq) {
  SideStats t;
  t.finite_min = LaneExtreme<false>(d, mn);
  t.finite_max = LaneExtreme<true>(d, mx);
  t.sum = LaneSum(d, sum);
  t.sum_sq = LaneSum(d, sq);
  return t;
}

/// One block [begin, end) of the double-lane pass (drive_blocks' `run`): sums, counts and side
/// statistics into `p`, the block maxima into `m`. Every pair sees the operations of
/// detail::accumulate_pair in double lanes, those of the parts in `kParts` (see FloatBlock).
/// The accumulators are local vectors (SVE / RVV vectors cannot be struct members or array
/// elements): the full set's 14 plus the constants fit the 32 AVX-512 registers; more sets
/// spilled and measured slower — the pass is bound by its uop count, not by the latency of the
/// add / max chains. Threshold counts are scalar popcounts of the comparison masks (a masked
/// vector add per count cost more on Zen 4); x86 before AVX-512, whose masks are vectors, subtracts
/// the masks from integer lanes instead (one uop a count, not three). kFloat64Rel: the relative
/// error is float64 (known at compile time).
template <unsigned kParts, bool kChecked, bool kFloat64Rel, class TA, class TB>
HWY_INLINE bool DoubleBlock(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t begin, size_t end,
                            std::uint64_t first, const KernelParams& k, const RelParams& r, Partial& p,
                            BlockMaxima& m, Partial& fallback) {
  constexpr bool kIntegral = is_integral_storage_v<TA> && is_integral_storage_v<TB>;  // always finite
  constexpr bool kSides = kParts & kPartSides, kDot = kParts & kPartDot, kDiffSums = kParts & kPartDiffSums;
  constexpr bool kAbsMax = kParts & kPartAbsMax, kRelMax = kParts & kPartRelMax, kRelSum = kParts & kPartRelSum;
  // The branch-free run's finiteness probe is a lane sum that is finite when every term was: Σx
  // of the sides, else Σa² and Σb², else Σ|a − b| (summed for the probe if the set has no sum).
  constexpr bool kProbeAbs = !kIntegral && !kSides && !kDot;
  // x86 before AVX-512 (kMultiWalk): the hardware prefetcher alone left the lean sets short.
  const bool prefetch = !kChecked && PrefetchBlocks();
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  auto dot = hn::Zero(d), ssd = hn::Zero(d), sad = hn::Zero(d), srel = hn::Zero(d);
  auto mabs = hn::Set(d, -1.0), mrel = hn::Set(d, -1.0);
  std::uint64_t below0 = 0, below1 = 0;
  const hn::RebindToSigned<decltype(d)> di;
  auto nbelow0 = hn::Zero(di), nbelow1 = hn::Zero(di);  // kX86BeforeAvx512: −(mask) summed per lane
  auto mna = hn::Set(d, detail::inf()), mxa = hn::Set(d, -detail::inf()), sa = hn::Zero(d), sqa = hn::Zero(d);
  auto mnb = mna, mxb = mxa, sb = hn::Zero(d), sqb = hn::Zero(d);
  const auto eps = hn::Set(d, r.eps), t0 = hn::Set(d, k.rel_thresholds[0]), t1 = hn::Set(d, k.rel_thresholds[1]);
  for (size_t j = begin; j < end; j += N) {
    const auto va = LoadAsDouble(d, pa + j), vb = LoadAsDouble(d, pb + j);
    if constexpr (kChecked) {
      if (HWY_UNLIKELY(!hn::AllTrue(d, BothFinite(va, vb)))) {
        for (size_t l = 0; l < N; ++l) accumulate_pair(fallback, pa[j + l], pb[j + l], first + j + l, k);
        continue;
      }
    }
    if (prefetch) PrefetchNextBlock(pa, pb, begin, end, j);
    if constexpr (kSides) {
      SideAdd(va, mna, mxa, sa, sqa);
      SideAdd(vb, mnb, mxb, sb, sqb);
    } else if constexpr (kDot) {
      sqa = hn::MulAdd(va, va, sqa);
      sqb = hn::MulAdd(vb, vb, sqb);
    }
    if constexpr (kDot) dot = hn::MulAdd(va, vb, dot);
    if constexpr (kDiffSums || kAbsMax || kProbeAbs) {
      const auto diff = hn::Sub(va, vb);
      if constexpr (kDiffSums) ssd = hn::MulAdd(diff, diff, ssd);
      const auto ad = hn::Abs(diff);
      if constexpr (kDiffSums || kProbeAbs) sad = hn::Add(sad, ad);
      if constexpr (kAbsMax) mabs = hn::Max(mabs, ad);
    }
    if constexpr (kRelMax || kRelSum) {
      const auto rel = RelErrorD<kFloat64Rel>(d, va, vb, eps, r);
      if constexpr (kRelSum) srel = hn::Add(srel, rel);
      if constexpr (kRelMax) {
        mrel = hn::Max(mrel, rel);
        if constexpr (kX86BeforeAvx512) {
          nbelow0 = hn::Sub(nbelow0, hn::BitCast(di, hn::VecFromMask(d, hn::Lt(rel, t0))));
          nbelow1 = hn::Sub(nbelow1, hn::BitCast(di, hn::VecFromMask(d, hn::Lt(rel, t1))));
        } else {
          below0 += hn::CountTrue(d, hn::Lt(rel, t0));
          below1 += hn::CountTrue(d, hn::Lt(rel, t1));
        }
      }
    }
  }
  // For inputs that widen exactly and are at most 2^128 in magnitude (all but double), the probe
  // is finite exactly when every pair was; a double block whose probe overflowed is merely re-run
  // on the checked path.
  if constexpr (!kChecked && !kIntegral) {
    const auto finite = kSides ? BothFinite(sa, sb) : kDot ? BothFinite(sqa, sqb) : hn::IsFinite(sad);
    if (HWY_UNLIKELY(!hn::AllTrue(d, finite))) return false;
  }
  Partial q;
  if constexpr (kDot) q.dot = LaneSum(d, dot);
  if constexpr (kDiffSums) {
    q.sum_sq_diff = LaneSum(d, ssd);
    q.sum_abs_diff = LaneSum(d, sad);
  }
  if constexpr (kRelSum) q.sum_rel = LaneSum(d, srel);
  if constexpr (kRelMax) {
    q.rel_below[0] = below0 + static_cast<std::uint64_t>(hn::GetLane(hn::SumOfLanes(di, nbelow0)));
    q.rel_below[1] = below1 + static_cast<std::uint64_t>(hn::GetLane(hn::SumOfLanes(di, nbelow1)));
    m.rel = LaneExtreme<true>(d, mrel);
  }
  if constexpr (kSides) {
    q.a = SideLanes(d, mna, mxa, sa, sqa);
    q.b = SideLanes(d, mnb, mxb, sb, sqb);
  } else if constexpr (kDot) {
    q.a.sum_sq = LaneSum(d, sqa);
    q.b.sum_sq = LaneSum(d, sqb);
  }
  if constexpr (kAbsMax) m.abs = LaneExtreme<true>(d, mabs);
  p.merge(q);
  return true;
}

/// One block [begin, end) of Summarize into `s` (drive_side_blocks' `run`).
/// The branch-free run keeps two accumulator sets to hide the add latency (few uops here).
template <bool kChecked, class T>
HWY_INLINE bool SummarizeBlock(const T* HWY_RESTRICT px, size_t begin, size_t end, SideStats& s,
                               SideStats& fallback) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  auto mn0 = hn::Set(d, detail::inf()), mx0 = hn::Set(d, -detail::inf()), s0 = hn::Zero(d), q0 = hn::Zero(d);
  auto mn1 = mn0, mx1 = mx0, s1 = s0, q1 = q0;
  if constexpr (kChecked) {
    for (size_t j = begin; j < end; j += N) {
      const auto v = LoadAsDouble(d, px + j);
      if (HWY_UNLIKELY(!hn::AllTrue(d, hn::IsFinite(v)))) {
        for (size_t l = 0; l < N; ++l) fallback.add(to_double(px[j + l]));
        continue;
      }
      SideAdd(v, mn0, mx0, s0, q0);
    }
  } else {
    for (size_t j = begin; j < end; j += 2 * N) {
      SideAdd(LoadAsDouble(d, px + j), mn0, mx0, s0, q0);
      SideAdd(LoadAsDouble(d, px + j + N), mn1, mx1, s1, q1);
    }
    if (!is_integral_storage_v<T> && HWY_UNLIKELY(!hn::AllTrue(d, BothFinite(s0, s1))))
      return false;
  }
  s.merge(SideLanes(d, mn0, mx0, s0, q0));
  s.merge(SideLanes(d, mn1, mx1, s1, q1));
  return true;
}

/// The double-lane pass over n contiguous pairs, driven by drive_blocks in blocks of
/// kBlockSteps × 4 vectors; `kParts` as in FloatBlock.
template <unsigned kParts, bool kFloat64Rel, class TA, class TB>
HWY_INLINE void AccumulateDouble(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                                 const KernelParams& k, Partial& out) {
  const size_t N = hn::Lanes(hn::ScalableTag<double>());
  const RelParams rp(k, is_narrow_float_v<TA> && is_narrow_float_v<TB>);
  // Each lane (and the scalar fallback) sums at most 4·N·kBlockSteps terms before the block is
  // folded, which bounds the rounding of the non-negative sums by about
  // (4·N·kBlockSteps + blocks) · 2^-53 relative: < 5e-13 for n ≤ 1e6.
  constexpr size_t kBlockSteps = 128;
  // kMultiWalk targets (16 vector registers) walk a block of the full set twice, sides and
  // Σa·b first, then the errors: the full set's 14 accumulators and 3 constants spill there.
  // Each field comes from one walk, so the result is the one walk's, bit for bit.
  constexpr unsigned kFirst = kPartSides | kPartDot, kSecond = kParts & ~kFirst;
  constexpr bool kSplit = kMultiWalk && (kParts & kFirst) == kFirst && kSecond != 0;
  drive_blocks(
      pa, pb, n, 4 * N, 4 * N * kBlockSteps, first, k, out,
      [&](auto checked, size_t begin, size_t end, Partial& p, BlockMaxima& m, Partial& fallback) {
        if constexpr (kSplit && !decltype(checked)::value) {
          Partial q;  // merged only once both walks saw finite data (else the block is re-run checked)
          if (!DoubleBlock<kFirst, false, kFloat64Rel>(pa, pb, begin, end, first, k, rp, q, m, fallback) ||
              !DoubleBlock<kSecond, false, kFloat64Rel>(pa, pb, begin, end, first, k, rp, q, m, fallback))
            return false;
          p.merge(q);
          return true;
        }
        return DoubleBlock<kParts, decltype(checked)::value, kFloat64Rel>(pa, pb, begin, end, first, k, rp, p, m, fallback);
      },
      [&](auto target, size_t begin, size_t end, double value) {
        return BlockIndexOf<decltype(target)::value>(pa, pb, begin, end, value, rp);
      });
}

// ---------------------------------------------------------------------------
// The integer-lane pass: same-type pairs of 8/16-bit integers (int8, uint8, int16) whose metric
// set needs no relative error or difference sums (cosine + max abs, statistics). Integer
// arithmetic in 16-bit lanes — twice to four times the pairs of a double vector — exact by
// construction:
// - min / max of each side in int16 lanes (8-bit inputs widen to int16 exactly);
// - max |a − b| as max(a, b) − min(a, b) in uint16 lanes: the true difference is 0 .. 65535, so
//   the wrapping int16 subtraction leaves it exactly as an unsigned number;
// - Σx by pairwise sums x0 + x1 (int32 lanes, |·| ≤ 2^16) added in int32 lanes;
// - Σx², Σa·b by the widening multiply-add (x86's vpmaddwd; Arm's multiply-accumulate long, whose
//   two accumulators are added here): each int32 lane gets v, the sum of two products. Of 8-bit
//   inputs v < 2^17, added in int32 lanes. Of int16 inputs v lies in [−2^31 + 2^16, 2^31] (only
//   2·(−32768)² = 2^31 wraps, to INT32_MIN): such lanes add v modulo 2^32 in one int32 lane and
//   u >> 16 in another, u = v read as unsigned (Σx²: 0 .. 2^31) or biased by 2^31 − 2^16 (Σa·b:
//   0 .. 2^32 − 2^16). A block's Σu is then 65536·Σ(u >> 16) + L with 0 ≤ L = Σ(u & 0xFFFF) <
//   2^32, and L is Σu − 65536·Σ(u >> 16) modulo 2^32: ProductTotal recovers every lane's exact
//   sum from the two (three operations a product pair, not a widening to 64 bits).
// A block has kIntBlockSteps steps, so no int32 lane overflows where it must not (each adds < 2^17
// a step, or 65535 in the high lanes); its lane totals are added in int64 (exact: |total| < 2^48)
// and converted to double once. The sums are therefore the exact integer sums of each block,
// rounded once, added block by block (the reference's double sums stay within the bound of the
// file comment). On x86 before AVX-512 the pass prefetches the next block, as the others do there
// (without it int16 cosine + max abs read 0.45× of the memory bandwidth, 0.75× in cache).
// ---------------------------------------------------------------------------

template <class T>
inline constexpr bool kIntLane = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> ||
                                 std::is_same_v<T, std::int16_t>;
/// Whether a same-type pair of T runs the integer-lane pass for the parts kParts.
template <class T, unsigned kParts>
inline constexpr bool kIntLanePass = kIntLane<T> && (kParts & (kPartRelMax | kPartRelSum | kPartDiffSums)) == 0;
inline constexpr size_t kIntBlockSteps = 256;

/// Loads Lanes(d16) elements of an 8/16-bit integer type as int16 lanes (exact).
template <class T, class D16> HWY_INLINE hn::Vec<D16> LoadAsInt16(D16 d16, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, std::int16_t>) {
    return hn::LoadU(d16, p);
  } else {
    const hn::Rebind<T, D16> dn;
    return hn::PromoteTo(d16, hn::LoadU(dn, p));
  }
}

/// Sums of two products x·y of int16 lanes in each int32 lane (2·(−32768)² wraps to INT32_MIN).
template <class D32, class V16> HWY_INLINE hn::Vec<D32> ProductPairs(D32 d32, V16 x, V16 y) {
  auto second = hn::Zero(d32);
  const auto first = hn::ReorderWidenMulAccumulate(d32, x, y, hn::Zero(d32), second);
  return hn::Add(first, second);
}

/// The bias that maps int16 product pairs [−2^31 + 2^16, 2^31] onto uint32 [0, 2^32 − 2^16].
inline constexpr std::uint32_t kProductPairBias = 0x7FFF0000u;

/// Adds product pairs v to int32 lanes (see above): `sum` adds v (modulo 2^32), and for int16
/// inputs (kWide) `high` adds u >> 16, u = v as unsigned, kSigned: biased. Vectors by reference:
/// SVE-safe.
template <bool kWide, bool kSigned, class D32>
HWY_INLINE void AddProductPairs(D32 d32, hn::Vec<D32> v, hn::Vec<D32>& sum, hn::Vec<D32>& high) {
  sum = hn::Add(sum, v);
  if constexpr (kWide) {
    const hn::RebindToUnsigned<D32> du;
    auto u = hn::BitCast(du, v);
    if constexpr (kSigned) u = hn::Add(u, hn::Set(du, kProductPairBias));
    high = hn::Add(high, hn::BitCast(d32, hn::ShiftRight<16>(u)));
  }
}

/// Adds the squares of v's int16 lanes, in pairs, to `sum` / `high` (AddProductPairs).
template <bool kWide, class D32, class V16>
HWY_INLINE void AddSquarePairs(D32 d32, V16 v, hn::Vec<D32>& sum, hn::Vec<D32>& high) {
  AddProductPairs<kWide, false>(d32, ProductPairs(d32, v, v), sum, high);
}

/// Sum of the integer lanes of v in int64 (exact).
template <class D> HWY_INLINE std::int64_t LaneTotal(D d, hn::Vec<D> v) {
  HWY_ALIGN hn::TFromD<D> t[HWY_MAX_BYTES / sizeof(hn::TFromD<D>)];
  hn::Store(v, d, t);
  std::int64_t s = 0;
  for (size_t l = 0; l < hn::Lanes(d); ++l) s += t[l];
  return s;
}

/// The exact sum of the product pairs AddProductPairs added over `steps` steps, as double (one
/// rounding; exact below 2^53).
template <bool kWide, bool kSigned, class D32>
HWY_INLINE double ProductTotal(D32 d32, hn::Vec<D32> sum, hn::Vec<D32> high, size_t steps) {
  if constexpr (!kWide) {
    (void)high, (void)steps;
    return static_cast<double>(LaneTotal(d32, sum));
  } else {
    const hn::RebindToUnsigned<D32> du;
    HWY_ALIGN std::uint32_t s[HWY_MAX_BYTES / sizeof(std::uint32_t)], h[HWY_MAX_BYTES / sizeof(std::uint32_t)];
    hn::Store(hn::BitCast(du, sum), du, s);
    hn::Store(hn::BitCast(du, high), du, h);
    const std::int64_t bias = kSigned ? static_cast<std::int64_t>(steps) * kProductPairBias : 0;
    std::int64_t total = 0;
    for (size_t l = 0; l < hn::Lanes(d32); ++l) {
      const std::uint32_t low = s[l] + static_cast<std::uint32_t>(bias) - (h[l] << 16);  // modulo 2^32
      total += static_cast<std::int64_t>(h[l]) * 65536 + low;
    }
    return static_cast<double>(total - bias * static_cast<std::int64_t>(hn::Lanes(d32)));
  }
}

/// One side's integer-lane accumulators (min, max, Σx, Σx² over `steps` steps) as SideStats.
template <bool kWide, class D16, class D32>
HWY_INLINE SideStats IntSideLanes(D16 d16, D32 d32, hn::Vec<D16> mn, hn::Vec<D16> mx, hn::Vec<D32> sum,
                                  hn::Vec<D32> sq, hn::Vec<D32> sq_high, size_t steps) {
  SideStats t;
  t.finite_min = LaneExtreme<false>(d16, mn);
  t.finite_max = LaneExtreme<true>(d16, mx);
  t.sum = static_cast<double>(LaneTotal(d32, sum));
  t.sum_sq = ProductTotal<kWide, false>(d32, sq, sq_high, steps);
  return t;
}

/// One block [begin, end) of the integer-lane pass (drive_blocks' `run`): the parts in kParts
/// (kIntLanePass) into `p`, max |a − b| into `m`. Not inlined: inside the dispatched Accumulate
/// GCC 12 kept a minimum on the stack (a store and load a step: int8 statistics ran at 8 G/s in
/// cache, 18 G/s as a function of its own).
template <unsigned kParts, class T>
HWY_NOINLINE void IntBlock(const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t begin, size_t end, Partial& p,
                          BlockMaxima& m) {
  constexpr bool kSides = kParts & kPartSides, kDot = kParts & kPartDot, kAbsMax = kParts & kPartAbsMax;
  constexpr bool kWide = sizeof(T) == 2;
  // x86 before AVX-512 (16 vector registers): the sides' ten accumulators spilled (min / max kept
  // on the stack), so Σx² walks the block a second time.
  constexpr bool kTwoWalks = kMultiWalk && kSides && kWide;
  const hn::ScalableTag<std::int16_t> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  const hn::Repartition<std::int32_t, decltype(d16)> d32;
  const size_t N = hn::Lanes(d16);
  const auto ones = hn::Set(d16, 1);
  auto mna = hn::Set(d16, INT16_MAX), mxa = hn::Set(d16, INT16_MIN), mnb = mna, mxb = mxa;
  auto sa = hn::Zero(d32), sb = hn::Zero(d32);
  auto mabs = hn::Zero(du16);
  auto sqa = hn::Zero(d32), sqa_high = sqa, sqb = sqa, sqb_high = sqa, dot = sqa, dot_high = sqa;
  const bool prefetch = PrefetchBlocks();
  for (size_t j = begin; j < end; j += N) {
    const auto va = LoadAsInt16(d16, pa + j), vb = LoadAsInt16(d16, pb + j);
    if (prefetch) PrefetchNextBlock(pa, pb, begin, end, j);
    if constexpr (kSides) {
      MinMax(va, mna, mxa);
      MinMax(vb, mnb, mxb);
      sa = hn::Add(sa, ProductPairs(d32, va, ones));
      sb = hn::Add(sb, ProductPairs(d32, vb, ones));
    }
    if constexpr ((kSides || kDot) && !kTwoWalks) {
      AddSquarePairs<kWide>(d32, va, sqa, sqa_high);
      AddSquarePairs<kWide>(d32, vb, sqb, sqb_high);
    }
    if constexpr (kDot) AddProductPairs<kWide, true>(d32, ProductPairs(d32, va, vb), dot, dot_high);
    if constexpr (kAbsMax) mabs = hn::Max(mabs, hn::BitCast(du16, hn::Sub(hn::Max(va, vb), hn::Min(va, vb))));
  }
  if constexpr (kTwoWalks) {  // Σx² again from L1
    for (size_t j = begin; j < end; j += N) {
      const auto va = LoadAsInt16(d16, pa + j), vb = LoadAsInt16(d16, pb + j);
      AddSquarePairs<kWide>(d32, va, sqa, sqa_high);
      AddSquarePairs<kWide>(d32, vb, sqb, sqb_high);
    }
  }
  const size_t steps = (end - begin) / N;
  Partial q;
  if constexpr (kSides) {
    q.a = IntSideLanes<kWide>(d16, d32, mna, mxa, sa, sqa, sqa_high, steps);
    q.b = IntSideLanes<kWide>(d16, d32, mnb, mxb, sb, sqb, sqb_high, steps);
  } else if constexpr (kDot) {
    q.a.sum_sq = ProductTotal<kWide, false>(d32, sqa, sqa_high, steps);
    q.b.sum_sq = ProductTotal<kWide, false>(d32, sqb, sqb_high, steps);
  }
  if constexpr (kDot) q.dot = ProductTotal<kWide, true>(d32, dot, dot_high, steps);
  if constexpr (kAbsMax) m.abs = LaneExtreme<true>(du16, mabs);
  p.merge(q);
}

/// The integer-lane pass over n contiguous pairs, driven by drive_blocks.
template <unsigned kParts, class T>
HWY_INLINE void AccumulateInt(const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                              const KernelParams& k, Partial& out) {
  const size_t N = hn::Lanes(hn::ScalableTag<std::int16_t>());
  const RelParams rp(k, false);
  drive_blocks(
      pa, pb, n, N, N * kIntBlockSteps, first, k, out,
      [&](auto, size_t begin, size_t end, Partial& p, BlockMaxima& m, Partial&) {
        IntBlock<kParts>(pa, pb, begin, end, p, m);
        return true;  // integers are finite: never re-run checked
      },
      [&](auto target, size_t begin, size_t end, double value) {
        return BlockIndexOf<decltype(target)::value>(pa, pb, begin, end, value, rp);
      });
}

// ---------------------------------------------------------------------------
// assert_close's set (max |a − b|, the relative error's maximum and both threshold counts) of
// same-type 8/16-bit integer pairs, in 16-bit lanes (16 pairs an AVX2 vector, not the double-lane
// pass's 4), exact against the float64 rule with neither a double, a float nor a division per pair.
// With D = |a − b| ≤ 65535 and B' = max(|b|, 1) ≤ 32768, both exact in uint16 lanes:
// - the relative error where b ≠ 0 is fl64(D / B') (a − b is exact in double), non-decreasing in
//   the rational D / B', and two such rationals compare as D·B'' vs D''·B' (both below 2^31, each
//   formed from its two 16-bit halves): each lane keeps its largest rational, a block rounds its
//   best once;
// - where b = 0 it is relative_error(a, 0), non-decreasing in a for a ≥ 0 and in −a for a ≤ 0, so
//   the lanes keep the largest and smallest such a; IntRelParams admits only an eps for which every
//   a ≠ 0 there lies above 65535 (above any b ≠ 0 ratio) and at or above both thresholds, and
//   a = 0 gives 0: those lanes then count as the ratio D / 1;
// - a count `fl64(D / B') < t` is D ≤ ⌊B'·m / 2^(16+s)⌋ for the threshold's fixed-point cut
//   (ratio_cut.hpp: a multiply-high, a shift and a comparison; always there for 8-bit data,
//   Bmax ≤ 255, and for int16 under msprobe's thresholds), else D·d < c·B' for its ratio cut c / d
//   (d ≤ 2·Bmax − 1 ≤ 65535), both found once per call with the reference's own division: exact,
//   with no band left to the reference (ratios exactly on a threshold, 1/1000 for 0.001, frequent
//   in quantized data, cost nothing extra);
// - for 8-bit data D·B' < 2^16: the ratios compare by one 16-bit product a side.
// Where both thresholds lie at or below fl64(1 / Bmax), the smallest non-zero ratio (int8 and
// msprobe's 0.001 / 0.005: 1/128), a pair counts iff D = 0 and int8 runs a cheaper block
// (IntRel8Block: D·B' ≤ 255·128 < 2^15, one 16-bit product a side, no cut).
// ---------------------------------------------------------------------------

inline constexpr unsigned kPartsAssertClose = kPartRelMax | kPartAbsMax;
inline constexpr size_t kIntRelBlockSteps = 512;  // counts ≤ 512 a uint16 lane

/// IntRel16Block's constants for one KernelParams, or ok = false where its assumptions fail (the
/// float32 rule, a threshold outside (0, 1], an eps that leaves b = 0 pairs near the ratios): the
/// double-lane pass runs instead.
struct IntRelParams {
  bool ok = false;
  RatioCut cut[2];  ///< c, d < 2^16 (b_max ≤ 32768)
  FixedPointCut fixed[2];  ///< shift 0 where b_max ≤ 255
  bool fixed_ok = false;  ///< both fixed-point cuts exist
  bool zero_only = true;  ///< both counts are those of D = 0 (see above)
  IntRelParams(const KernelParams& k, std::uint32_t b_max) {
    if (k.rel_float32 || !(relative_error(0.0, 0.0, k) == 0.0) || b_max > 32768) return;
    const double zero_bench_min = std::fmin(relative_error(1.0, 0.0, k), relative_error(-1.0, 0.0, k));
    if (!(zero_bench_min > 65535.0)) return;
    for (int j = 0; j < 2; ++j) {
      const double t = k.rel_thresholds[j];
      if (!(t > 0.0 && t <= 1.0 && zero_bench_min >= t)) return;
      zero_only = zero_only && 1.0 / b_max >= t;
      cut[j] = RatioCut(t, b_max);
      fixed[j] = FixedPointCut(cut[j], b_max <= 255 ? 0 : 15);
    }
    // D is clamped to 32767 for the kernel's signed comparison: every cut must lie below it
    const auto below_clamp = [b_max](const FixedPointCut& f) { return ((b_max * f.m) >> (16 + f.shift)) < 0x7FFF; };
    fixed_ok = fixed[0].ok && fixed[1].ok && below_clamp(fixed[0]) && below_clamp(fixed[1]);
    ok = true;
  }
};

/// x·y < z·w for uint16 lanes (products formed from their 16-bit halves), where x·y's high half
/// is below 0xFFFF: x·y < z·w ⟺ hi(x·y) + [lo(x·y) ≥ lo(z·w)] ≤ hi(z·w).
template <class V> HWY_INLINE hn::Mask<hn::DFromV<V>> ProductLess(V x, V y, V z, V w) {
  const hn::DFromV<V> du;
  const V xl = hn::Mul(x, y), zl = hn::Mul(z, w);
  const V carry = hn::VecFromMask(du, hn::Eq(hn::Max(xl, zl), xl));  // all ones (−1) where lo(x·y) ≥ lo(z·w)
  return hn::Eq(hn::SaturatedSub(hn::Sub(hn::MulHigh(x, y), carry), hn::MulHigh(z, w)), hn::Zero(du));
}

/// How a lane's rational D / B' is compared with its best so far: products below 2^15 (one signed
/// comparison), below 2^16 (unsigned), or formed from 16-bit halves (ProductLess).
enum class RatioProducts { kBelow15, kBelow16, kHalves };

/// Each lane keeps the larger of D / B' and best_d / best_b (ties keep the best: the block's
/// maximum is its value, its index is rescanned).
template <RatioProducts kHow, class VU> HWY_INLINE void KeepLargerRatio(VU d, VU b, VU& best_d, VU& best_b) {
  const hn::DFromV<VU> du;
  if constexpr (kHow == RatioProducts::kHalves) {
    const auto wins = ProductLess(best_d, b, d, best_b);  // hi(best_d·B') < 2^15
    best_d = hn::IfThenElse(wins, d, best_d);
    best_b = hn::IfThenElse(wins, b, best_b);
  } else if constexpr (kHow == RatioProducts::kBelow16) {
    const auto keep = hn::Eq(hn::SaturatedSub(hn::Mul(d, best_b), hn::Mul(best_d, b)), hn::Zero(du));
    best_d = hn::IfThenElse(keep, best_d, d);
    best_b = hn::IfThenElse(keep, best_b, b);
  } else {
    const hn::RebindToSigned<decltype(du)> ds;
    const auto wins = hn::RebindMask(du, hn::Gt(hn::BitCast(ds, hn::Mul(d, best_b)), hn::BitCast(ds, hn::Mul(best_d, b))));
    best_d = hn::IfThenElse(wins, d, best_d);
    best_b = hn::IfThenElse(wins, b, best_b);
  }
}

/// Calls vector(va, vb, best_d, best_b) for the two vectors of each step of [begin, end), the first
/// with one best-ratio chain and the second with the other (the chains are merged by the caller).
template <class D16, class T, class VU, class F>
HWY_INLINE void ForEachVectorPair(D16 d16, const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t begin, size_t end,
                                  VU& best_d, VU& best_b, VU& best_d2, VU& best_b2, F&& vector) {
  const size_t N = hn::Lanes(d16);
  const bool prefetch = PrefetchBlocks();
  for (size_t j = begin; j < end; j += 2 * N) {
    const auto va = LoadAsInt16(d16, pa + j), vb = LoadAsInt16(d16, pb + j);  // a first: see IntRelStep
    const auto va2 = LoadAsInt16(d16, pa + j + N), vb2 = LoadAsInt16(d16, pb + j + N);
    if (prefetch) {  // as IntBlock; a step of int16 on AVX-512 spans two lines
      PrefetchNextBlock(pa, pb, begin, end, j);
      PrefetchNextBlock(pa, pb, begin, end, j + N);
    }
    vector(va, vb, best_d, best_b);
    vector(va2, vb2, best_d2, best_b2);
  }
}

/// IntRel16Block's / IntRel8Block's maxima from their lanes: max |a − b|, and the relative error's
/// (the b = 0 pairs' where one has a ≠ 0, else the largest rational's, rounded once).
template <class DS, class DU>
HWY_INLINE void IntRelMaxima(DS ds, hn::Vec<DS> zmax, hn::Vec<DS> zmin, DU du, hn::Vec<DU> mabs, hn::Vec<DU> best_d,
                             hn::Vec<DU> best_b, const KernelParams& k, BlockMaxima& m) {
  m.abs = LaneExtreme<true>(du, mabs);
  const double za_max = LaneExtreme<true>(ds, zmax), za_min = LaneExtreme<false>(ds, zmin);
  if (za_max > 0 || za_min < 0) {  // a b = 0 pair with a ≠ 0: above every other ratio
    m.rel = std::fmax(za_max > 0 ? relative_error(za_max, 0.0, k) : -1.0, za_min < 0 ? relative_error(za_min, 0.0, k) : -1.0);
    return;
  }
  HWY_ALIGN std::uint16_t ld[HWY_MAX_BYTES / 2], lb[HWY_MAX_BYTES / 2];
  hn::Store(best_d, du, ld);
  hn::Store(best_b, du, lb);
  std::int64_t bd = 0, bb = 1;
  for (size_t l = 0; l < hn::Lanes(du); ++l) {
    if (static_cast<std::int64_t>(ld[l]) * bb > bd * lb[l]) bd = ld[l], bb = lb[l];
  }
  m.rel = static_cast<double>(bd) / static_cast<double>(bb);
}

/// The per-vector work IntRel16Block and IntRel8Block share, on int16 lanes: D = |a − b| as uint16
/// (returned; max(a, b) − min(a, b) wraps to the true difference) into max |a − b|, the a of b = 0
/// pairs into their largest / smallest, and B' = max(|b|, 1) as uint16 (|−32768| is 0x8000) into
/// `b`. Callers load a before b into locals: with the loads as arguments GCC emitted b's first,
/// and from memory that ran 25–30 % slower on Zen 3 (same instructions otherwise; in cache no
/// difference). kUnsigned (uint8 data, a, b ≥ 0): no |b| and no smallest a (it stays 0).
template <bool kUnsigned, class V, class VU = hn::Vec<hn::RebindToUnsigned<hn::DFromV<V>>>>
HWY_INLINE VU IntRelStep(V va, V vb, VU& mabs, V& zmax, V& zmin, VU& b) {
  const hn::DFromV<V> ds;
  const hn::RebindToUnsigned<decltype(ds)> du;
  const VU d = hn::BitCast(du, hn::Sub(hn::Max(va, vb), hn::Min(va, vb)));
  mabs = hn::Max(mabs, d);
  const V za = hn::IfThenElseZero(hn::Eq(vb, hn::Zero(ds)), va);  // a where b = 0
  zmax = hn::Max(zmax, za);
  if constexpr (!kUnsigned) zmin = hn::Min(zmin, za);
  b = hn::Max(hn::BitCast(du, kUnsigned ? vb : hn::Abs(vb)), hn::Set(du, 1));
  return d;
}

/// One block of int8 pairs whose counts are those of D = 0 (IntRelParams::zero_only); otherwise
/// as IntRel16Block, the ratio's products in one 16-bit half (D·B' < 2^15).
HWY_NOINLINE inline void IntRel8Block(const std::int8_t* HWY_RESTRICT pa, const std::int8_t* HWY_RESTRICT pb, size_t begin,
                                      size_t end, const KernelParams& k, Partial& p, BlockMaxima& m) {
  const hn::ScalableTag<std::int16_t> d16;
  const hn::RebindToUnsigned<decltype(d16)> du;
  const auto zero = hn::Zero(d16);
  const auto uzero = hn::Zero(du);
  auto zmax = zero, zmin = zero;
  auto mabs = uzero, equal = uzero;
  auto best_d = uzero, best_b = hn::Set(du, 1), best_d2 = best_d, best_b2 = best_b;  // see IntRel16Block
  const auto vector = [&](auto va, auto vb, auto& bd, auto& bb) {
    auto b = uzero;
    const auto d = IntRelStep<false>(va, vb, mabs, zmax, zmin, b);
    KeepLargerRatio<RatioProducts::kBelow15>(d, b, bd, bb);
    equal = hn::Sub(equal, hn::VecFromMask(du, hn::Eq(d, uzero)));
  };
  ForEachVectorPair(d16, pa, pb, begin, end, best_d, best_b, best_d2, best_b2, vector);
  KeepLargerRatio<RatioProducts::kBelow15>(best_d2, best_b2, best_d, best_b);
  IntRelMaxima(d16, zmax, zmin, du, mabs, best_d, best_b, k, m);
  const auto equal_pairs = static_cast<std::uint64_t>(LaneTotal(du, equal));  // ≤ kIntRelBlockSteps a lane
  p.rel_below[0] += equal_pairs;
  p.rel_below[1] += equal_pairs;
}

/// The lanes' count of D ≤ ⌊B'·m / 2^(16+s)⌋ turned round: `above` gains one where D exceeds it
/// (D ≤ 32767, so one signed comparison; kShift false: s = 0).
template <bool kShift, class VU>
HWY_INLINE void CountAboveFixedCut(VU d, VU b, VU m, int shift, VU& above) {
  const hn::DFromV<VU> du;
  const hn::RebindToSigned<decltype(du)> ds;
  VU cut = hn::MulHigh(b, m);
  if constexpr (kShift) cut = hn::ShiftRightSame(cut, shift);
  above = hn::Sub(above, hn::VecFromMask(du, hn::RebindMask(du, hn::Gt(hn::BitCast(ds, d), hn::BitCast(ds, cut)))));
}

/// One block [begin, end) of assert_close's set for 8/16-bit integers (see above): both counts
/// into `p`, the maxima into `m`; kFixedCut: the counts by IntRelParams::fixed, else by its cut.
template <class T, bool kFixedCut>
HWY_NOINLINE void IntRel16Block(const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t begin, size_t end,
                                const KernelParams& k, const IntRelParams& r, Partial& p, BlockMaxima& m) {
  constexpr bool kNarrow = sizeof(T) == 1;  // D ≤ 255, B' ≤ 255: D·B'' < 2^16, fixed cuts unshifted
  const hn::ScalableTag<std::int16_t> d16;
  const hn::RebindToUnsigned<decltype(d16)> du;
  const auto zero = hn::Zero(d16);
  const auto uzero = hn::Zero(du);
  const auto c0 = hn::Set(du, static_cast<std::uint16_t>(kFixedCut ? r.fixed[0].m : r.cut[0].c));
  const auto c1 = hn::Set(du, static_cast<std::uint16_t>(kFixedCut ? r.fixed[1].m : r.cut[1].c));
  const auto d0 = hn::Set(du, static_cast<std::uint16_t>(r.cut[0].d)), d1 = hn::Set(du, static_cast<std::uint16_t>(r.cut[1].d));
  const int shift0 = r.fixed[0].shift, shift1 = r.fixed[1].shift;
  constexpr auto kHow = kNarrow ? RatioProducts::kBelow16 : RatioProducts::kHalves;
  auto zmax = zero, zmin = zero;
  auto mabs = uzero, tally0 = uzero, tally1 = uzero;
  // Two vectors a step, each with its own best ratio: keeping it is a chain of ~6 (8-bit) or ~9
  // (int16) cycles a vector, which bound the loop on Zen 2 (see README, twenty-third session).
  auto best_d = uzero, best_b = hn::Set(du, 1), best_d2 = best_d, best_b2 = best_b;
  const auto vector = [&](auto va, auto vb, auto& bd, auto& bb) {
    auto b = uzero;
    const auto d = IntRelStep<std::is_unsigned_v<T>>(va, vb, mabs, zmax, zmin, b);
    KeepLargerRatio<kHow>(d, b, bd, bb);
    if constexpr (kFixedCut) {  // tallies: the lanes above each cut
      const auto dc = kNarrow ? d : hn::Min(d, hn::Set(du, 0x7FFF));  // the cuts are below 2^15
      CountAboveFixedCut<!kNarrow>(dc, b, c0, shift0, tally0);
      CountAboveFixedCut<!kNarrow>(dc, b, c1, shift1, tally1);
    } else {  // tallies: the lanes below each cut
      tally0 = hn::Sub(tally0, hn::VecFromMask(du, ProductLess(d, d0, c0, b)));  // hi(D·d) ≤ 0xFFFE
      tally1 = hn::Sub(tally1, hn::VecFromMask(du, ProductLess(d, d1, c1, b)));
    }
  };
  ForEachVectorPair(d16, pa, pb, begin, end, best_d, best_b, best_d2, best_b2, vector);
  KeepLargerRatio<kHow>(best_d2, best_b2, best_d, best_b);
  IntRelMaxima(d16, zmax, zmin, du, mabs, best_d, best_b, k, m);
  const auto n0 = static_cast<std::uint64_t>(LaneTotal(du, tally0)), n1 = static_cast<std::uint64_t>(LaneTotal(du, tally1));
  p.rel_below[0] += kFixedCut ? (end - begin) - n0 : n0;  // tallies ≤ kIntRelBlockSteps a lane
  p.rel_below[1] += kFixedCut ? (end - begin) - n1 : n1;
}

/// assert_close's set over n contiguous same-type 8/16-bit integer pairs, driven by drive_blocks.
template <class T>
HWY_INLINE void AccumulateIntRel(const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                                 const KernelParams& k, const IntRelParams& r, Partial& out) {
  const size_t N = hn::Lanes(hn::ScalableTag<std::int16_t>());
  const RelParams rp(k, false);
  drive_blocks(
      pa, pb, n, 2 * N, N * kIntRelBlockSteps, first, k, out,  // two vectors a step
      [&](auto, size_t begin, size_t end, Partial& p, BlockMaxima& m, Partial&) {
        if constexpr (std::is_same_v<T, std::int8_t>) {
          if (r.zero_only) {
            IntRel8Block(pa, pb, begin, end, k, p, m);
            return true;
          }
        }
        if (r.fixed_ok) IntRel16Block<T, true>(pa, pb, begin, end, k, r, p, m);
        else IntRel16Block<T, false>(pa, pb, begin, end, k, r, p, m);
        return true;  // integers are finite
      },
      [&](auto target, size_t begin, size_t end, double value) {
        return BlockIndexOf<decltype(target)::value>(pa, pb, begin, end, value, rp);
      });
}

/// Calls f(std::integral_constant<unsigned, kParts>) with the first compiled variant of a pass
/// that covers the parts `k.metrics` needs, cheapest first.
template <class F> HWY_INLINE void WithPassVariant(const KernelParams& k, F&& f) {
  constexpr unsigned kAssertClose = kPartsAssertClose, kCosineMaxAbs = kPartDot | kPartAbsMax;
  constexpr unsigned kErrors = kPartRelMax | kPartRelSum | kPartAbsMax | kPartDiffSums;
  const unsigned need = part_bits(pass_parts(k.metrics));
  if ((need & ~kAssertClose) == 0) f(std::integral_constant<unsigned, kAssertClose>());
  else if ((need & ~kCosineMaxAbs) == 0) f(std::integral_constant<unsigned, kCosineMaxAbs>());
  else if ((need & ~kPartSides) == 0) f(std::integral_constant<unsigned, kPartSides>());
  else if ((need & ~kErrors) == 0) f(std::integral_constant<unsigned, kErrors>());
  else f(std::integral_constant<unsigned, kPartAll>());
}

/// Fused pass over n contiguous pairs (see detail::accumulate_pair): the float-lane pass where it
/// applies, the integer-lane pass for same-type 8/16-bit integer pairs whose set has no relative
/// error and IntRel16Block's for assert_close's set of them (float64 rule), else the double-lane
/// pass. Lean metric sets get their own variant of the pass for float-lane pairs and same-type
/// pairs of the double-lane one (f64, 8/16/32-bit integers); mixed double-lane pairs run the full
/// pass (a variant each would multiply compile time).
template <class TA, class TB>
HWY_NOINLINE void Accumulate(const TA* HWY_RESTRICT pa, const TB* HWY_RESTRICT pb, size_t n, std::uint64_t first,
                             const KernelParams& k, Partial& out) {
  if constexpr (kFloatLane<TA> && kFloatLane<TB>) {
    if (k.rel_float32) {
      WithPassVariant(k, [&](auto parts) { AccumulateFloat<decltype(parts)::value>(pa, pb, n, first, k, out); });
      return;
    }
  }
  // The lean double-lane variants fix the relative error to float64: compare() gives same-type
  // pairs here float32's only as 0-d tensors (NumPy 1.x value-based casting); that, or a
  // caller's own KernelParams::rel_float32, runs the full pass with its run-time test (the
  // integer-lane pass computes no relative error: it serves both rules).
  if constexpr (std::is_same_v<TA, TB> && !kFloatLane<TA>) {
    bool done = false;
    WithPassVariant(k, [&](auto parts) {
      constexpr unsigned kParts = decltype(parts)::value;
      if constexpr (kIntLanePass<TA, kParts>) {
        AccumulateInt<kParts>(pa, pb, n, first, k, out);
        done = true;
        return;
      }
      if constexpr (kIntLane<TA> && kParts == kPartsAssertClose) {
        using L = std::numeric_limits<TA>;
        const auto b_max = static_cast<std::uint32_t>(std::max(-static_cast<int>(L::min()), static_cast<int>(L::max())));  // of |b|
        if (const IntRelParams r(k, b_max); r.ok) {
          AccumulateIntRel(pa, pb, n, first, k, r, out);
          done = true;
          return;
        }
      }
      if (!k.rel_float32) {
        AccumulateDouble<kParts, kParts != kPartAll>(pa, pb, n, first, k, out);
        done = true;
      }
    });
    if (done) return;
  }
  AccumulateDouble<kPartAll, false>(pa, pb, n, first, k, out);
}

/// One block [begin, end) of Summarize for 8/16-bit integers, in integer lanes (see IntBlock).
template <class T> HWY_NOINLINE void IntSummarizeBlock(const T* HWY_RESTRICT px, size_t begin, size_t end, SideStats& s) {
  const hn::ScalableTag<std::int16_t> d16;
  const hn::Repartition<std::int32_t, decltype(d16)> d32;
  const size_t N = hn::Lanes(d16);
  const auto ones = hn::Set(d16, 1);
  auto mn = hn::Set(d16, INT16_MAX), mx = hn::Set(d16, INT16_MIN);
  auto sum = hn::Zero(d32), sq = hn::Zero(d32), sq_high = hn::Zero(d32);
  for (size_t j = begin; j < end; j += N) {
    const auto v = LoadAsInt16(d16, px + j);
    MinMax(v, mn, mx);
    sum = hn::Add(sum, ProductPairs(d32, v, ones));
    AddSquarePairs<sizeof(T) == 2>(d32, v, sq, sq_high);
  }
  s.merge(IntSideLanes<sizeof(T) == 2>(d16, d32, mn, mx, sum, sq, sq_high, (end - begin) / N));
}

/// SideStats of n contiguous elements; see SideStats::add. Same block scheme as Accumulate
/// (8/16-bit integers: the integer-lane pass's).
template <class T> HWY_NOINLINE void Summarize(const T* HWY_RESTRICT px, size_t n, SideStats& out) {
  if constexpr (kIntLane<T>) {
    const size_t N = hn::Lanes(hn::ScalableTag<std::int16_t>());
    drive_side_blocks(px, n, N, N * kIntBlockSteps, out, [&](auto, size_t begin, size_t end, SideStats& s, SideStats&) {
      IntSummarizeBlock(px, begin, end, s);
      return true;  // integers are finite
    });
  } else {
    const size_t N = hn::Lanes(hn::ScalableTag<double>());
    constexpr size_t kBlockSteps = 128;  // see Accumulate
    drive_side_blocks(px, n, 4 * N, 4 * N * kBlockSteps, out,
                      [&](auto checked, size_t begin, size_t end, SideStats& s, SideStats& fallback) {
                        return SummarizeBlock<decltype(checked)::value>(px, begin, end, s, fallback);
                      });
  }
}

/// Read-bandwidth baseline for the benchmarks: sums n 64-bit words with 4
/// accumulators (one load and one add per vector, nothing else).
HWY_NOINLINE inline std::uint64_t ReadWords(const std::uint64_t* HWY_RESTRICT p, const std::uint64_t* HWY_RESTRICT q,
                                            size_t n) {
  const hn::ScalableTag<std::uint64_t> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {  // both buffers side by side, as the compare reads its pair
    s0 = hn::Add(s0, hn::LoadU(d, p + i));
    s1 = hn::Add(s1, hn::LoadU(d, q + i));
    s2 = hn::Add(s2, hn::LoadU(d, p + i + N));
    s3 = hn::Add(s3, hn::LoadU(d, q + i + N));
  }
  std::uint64_t r = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) r += p[i] + q[i];
  return r;
}

}  // namespace HWY_NAMESPACE
}  // namespace hwy_kernels
}  // namespace detail
}  // inline namespace TD_ABI_NAMESPACE
}  // namespace tensordiff
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
