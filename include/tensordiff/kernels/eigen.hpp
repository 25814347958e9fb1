// tensordiff — the Eigen kernel (opt-in: include this header and name
// kernels::Eigen, e.g. compare<kernels::Eigen>(a, b)).
//
// Blocks of 512 pairs are widened exactly to double (kernels/detail/widen.hpp)
// and reduced with Eigen array expressions over Maps: each metric is one
// vectorised expression over the cache-resident block, so the kernel is short
// and obviously the scalar semantics, at the cost of several passes per block.
// A block holding any non-finite value and pairs not widened exactly (bool,
// 64-bit integers) use the scalar reference; blocks, maxima indices and the
// NaN / inf re-run come from the block driver all SIMD kernels share
// (detail/block_driver.hpp).
#pragma once
#include <Eigen/Core>

#include <cstddef>
#include <cstdint>

#include "partial.hpp"
#include "detail/block_driver.hpp"
#include "detail/widen.hpp"
#include "scalar.hpp"

TD_NAMESPACE_BEGIN
namespace kernels {

/// The Eigen kernel (see the file comment): the scalar semantics as Eigen array expressions
/// over blocks widened to double. Same interface as kernels::Scalar.
struct Eigen {
  /// Kernel name, as reported by Comparison and the CLI's --kernel.
  static constexpr const char* name = "eigen";
  /// Pairs widened per block: 2 × 4 KiB of doubles, which stay in L1 across the passes.
  static constexpr std::size_t block = 512;
  /// A widened block as an Eigen array (64-byte aligned, read-only).
  using Map = ::Eigen::Map<const ::Eigen::ArrayXd, ::Eigen::Aligned64>;

  /// Folds the n element pairs a[i], b[i] (flat indices first + i) into `out`; `a` is the
  /// actual (NPU) side, `b` the expected (bench) side. TA / TB are kernel storage types.
  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first, const KernelParams& k,
                         Partial& out) {
    if constexpr (!(detail::widens_exactly_v<TA> && detail::widens_exactly_v<TB>)) {
      Scalar::accumulate(a, b, n, first, k, out);
    } else {
      alignas(64) double xa[block], xb[block];
      auto run = [&](auto checked, std::size_t begin, std::size_t end, Partial& p, detail::BlockMaxima& m,
                     Partial& fallback) {
        const std::size_t len = end - begin;
        if constexpr (decltype(checked)::value) {  // the block holds a NaN / inf: scalar reference
          Scalar::accumulate(a + begin, b + begin, len, first + begin, k, fallback);
          return true;
        }
        detail::widen_to_double(a + begin, len, xa);
        detail::widen_to_double(b + begin, len, xb);
        const Map va(xa, static_cast<::Eigen::Index>(len)), vb(xb, static_cast<::Eigen::Index>(len));
        if (!(va.allFinite() && vb.allFinite())) return false;
        const ::Eigen::ArrayXd ad = (va - vb).abs();
        const ::Eigen::ArrayXd rel = relative_error(va, vb, k);
        Partial q;
        q.dot = (va * vb).sum();
        q.sum_sq_diff = (va - vb).square().sum();
        q.sum_abs_diff = ad.sum();
        q.sum_rel = rel.sum();
        q.rel_below[0] = static_cast<std::uint64_t>((rel < k.rel_thresholds[0]).count());
        q.rel_below[1] = static_cast<std::uint64_t>((rel < k.rel_thresholds[1]).count());
        side(va, q.a);
        side(vb, q.b);
        m.abs = ad.maxCoeff();
        m.rel = rel.maxCoeff();
        p.merge(q);
        return true;
      };
      // Step 1: Eigen's expressions take any length, so there is no scalar tail.
      detail::drive_blocks(a, b, n, 1, block, first, k, out, run);
    }
  }

  /// detail::relative_error, array-wise; the float32 form in float arrays.
  template <class A> static ::Eigen::ArrayXd relative_error(const A& va, const A& vb, const KernelParams& k) {
    if (k.rel_float32) {
      const float eps = static_cast<float>(k.zero_bench_eps);
      const ::Eigen::ArrayXf fa = va.template cast<float>(), fb = vb.template cast<float>();
      const auto zero = fb == 0.0f;
      const ::Eigen::ArrayXf n = zero.select(fa + eps, fa);
      const ::Eigen::ArrayXf den = zero.select(::Eigen::ArrayXf::Constant(fb.size(), eps), fb);
      const ::Eigen::ArrayXf q = (n - den) / den;
      return q.abs().template cast<double>();
    }
    const double eps = k.zero_bench_eps;
    const auto zero = vb == 0.0;
    const ::Eigen::ArrayXd n = zero.select(va + eps, va);
    const ::Eigen::ArrayXd den = zero.select(::Eigen::ArrayXd::Constant(vb.size(), eps), vb);
    const ::Eigen::ArrayXd q = (n - den) / den;
    return q.abs();
  }

  /// Folds n elements of one side into `out`.
  template <class T> static void summarize(const T* x, std::size_t n, SideStats& out) {
    if constexpr (!detail::widens_exactly_v<T>) {
      Scalar::summarize(x, n, out);
    } else {
      alignas(64) double xa[block];
      detail::drive_side_blocks(x, n, 1, block, out, [&](auto checked, std::size_t begin, std::size_t end, SideStats& s,
                                                         SideStats& fallback) {
        if constexpr (decltype(checked)::value) {
          Scalar::summarize(x + begin, end - begin, fallback);
          return true;
        }
        detail::widen_to_double(x + begin, end - begin, xa);
        const Map v(xa, static_cast<::Eigen::Index>(end - begin));
        if (!v.allFinite()) return false;
        SideStats q;
        side(v, q);
        s.merge(q);
        return true;
      });
    }
  }

 private:
  static void side(const Map& v, SideStats& s) {
    s.finite_min = v.minCoeff();
    s.finite_max = v.maxCoeff();
    s.sum = v.sum();
    s.sum_sq = v.square().sum();
  }
};

}  // namespace kernels
TD_NAMESPACE_END
