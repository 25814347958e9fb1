// tensordiff — the Eigen kernel (opt-in: include this header and name
// kernels::Eigen, e.g. compare<kernels::Eigen>(a, b)).
//
// Blocks of 512 pairs are widened exactly to double (kernels/detail/widen.hpp)
// and reduced with Eigen array expressions over Maps: each metric is one
// vectorised expression over the cache-resident block, so the kernel is short
// and obviously the scalar semantics, at the cost of several passes per block.
// A block holding any non-finite value, the tail and pairs not widened exactly
// (bool, 64-bit integers) use the scalar reference.
#pragma once
#include <Eigen/Core>

#include <cstddef>
#include <cstdint>

#include "partial.hpp"
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
      Partial p;
      for (std::size_t i = 0; i < n; i += block) {
        const std::size_t m = std::min(block, n - i);
        detail::widen_to_double(a + i, m, xa);
        detail::widen_to_double(b + i, m, xb);
        const Map va(xa, static_cast<::Eigen::Index>(m)), vb(xb, static_cast<::Eigen::Index>(m));
        if (!(va.allFinite() && vb.allFinite())) {
          Partial q;  // per block, so the sums stay short
          Scalar::accumulate(a + i, b + i, m, first + i, k, q);
          p.merge(q);
          continue;
        }
        const ::Eigen::ArrayXd ad = (va - vb).abs();
        const ::Eigen::ArrayXd rel = relative_error(va, vb, k);
        Partial q;
        q.count = m;
        q.dot = (va * vb).sum();
        q.sum_sq_diff = (va - vb).square().sum();
        q.sum_abs_diff = ad.sum();
        q.sum_rel = rel.sum();
        ::Eigen::Index at = 0;
        q.max_abs_diff = ad.maxCoeff(&at);  // first occurrence
        q.max_abs_index = first + i + static_cast<std::uint64_t>(at);
        q.max_rel = rel.maxCoeff(&at);
        q.max_rel_index = first + i + static_cast<std::uint64_t>(at);
        q.rel_below[0] = static_cast<std::uint64_t>((rel < k.rel_thresholds[0]).count());
        q.rel_below[1] = static_cast<std::uint64_t>((rel < k.rel_thresholds[1]).count());
        side(va, q.a);
        side(vb, q.b);
        p.merge(q);
      }
      out.merge(p);
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
      SideStats s;
      for (std::size_t i = 0; i < n; i += block) {
        const std::size_t m = std::min(block, n - i);
        detail::widen_to_double(x + i, m, xa);
        const Map v(xa, static_cast<::Eigen::Index>(m));
        if (!v.allFinite()) {
          SideStats q;
          Scalar::summarize(x + i, m, q);
          s.merge(q);
          continue;
        }
        SideStats q;
        side(v, q);
        s.merge(q);
      }
      out.merge(s);
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
