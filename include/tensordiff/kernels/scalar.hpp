// tensordiff — the scalar reference kernel.
//
// Every kernel backend (Highway, xsimd, Eigen, CUDA) implements this one
// interface and is tested against this implementation:
//
//   struct Kernel {
//     static constexpr const char* name;
//     // Fold n element pairs, whose first flat index is `first_index`, into `out`.
//     template <class TA, class TB>
//     static void accumulate(const TA* a, const TB* b, std::size_t n,
//                            std::uint64_t first_index, const KernelParams&, Partial& out);
//     // Fold n elements of one side into `out`.
//     template <class T>
//     static void summarize(const T* x, std::size_t n, SideStats& out);
//   };
//
// TA/TB/T are kernel storage types (see core/visit.hpp). It is a plain loop
// over detail::accumulate_pair so that it stays obviously correct.
#pragma once
#include <cstddef>

#include "partial.hpp"

TD_NAMESPACE_BEGIN
namespace kernels {

/// The scalar reference kernel: a plain loop over one pair at a time, in index order. Every
/// other kernel is tested against it; also the fallback for types they do not vectorise.
struct Scalar {
  /// Kernel name, as reported by Comparison and the CLI's --kernel.
  static constexpr const char* name = "scalar";

  /// Folds the n element pairs a[i], b[i] (flat indices first_index + i) into `out`; `a` is the
  /// actual (NPU) side, `b` the expected (bench) side. TA / TB are kernel storage types.
  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first_index, const KernelParams& k,
                         Partial& out) {
    for (std::size_t i = 0; i < n; ++i) detail::accumulate_pair(out, a[i], b[i], first_index + i, k);
  }

  /// Folds n elements of one side into `out`.
  template <class T> static void summarize(const T* x, std::size_t n, SideStats& out) {
    for (std::size_t i = 0; i < n; ++i) out.add(detail::to_double(x[i]));
  }
};

}  // namespace kernels
TD_NAMESPACE_END
