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

struct Scalar {
  static constexpr const char* name = "scalar";

  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first_index, const KernelParams& k,
                         Partial& out) {
    for (std::size_t i = 0; i < n; ++i) detail::accumulate_pair(out, a[i], b[i], first_index + i, k);
  }

  template <class T> static void summarize(const T* x, std::size_t n, SideStats& out) {
    for (std::size_t i = 0; i < n; ++i) out.add(detail::to_double(x[i]));
  }
};

}  // namespace kernels
TD_NAMESPACE_END
