// tensordiff — the kernel used when none is named.
//
// Highway when its header is available and the tensordiff::highway target is
// linked (it defines TD_HAS_HIGHWAY=1); the scalar reference otherwise.
#pragma once
#include <string>

#include "scalar.hpp"

#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
#include "highway.hpp"
TD_NAMESPACE_BEGIN
namespace kernels {
/// The kernel of compare() and summarize() when none is named: kernels::Highway here
/// (TD_HAS_HIGHWAY=1), kernels::Scalar without Highway.
using Default = Highway;
/// What kernels::Default runs now, for --version and the benchmarks: "highway AVX3_DL
/// (run-time dispatch)", "highway AVX2 (static)" or "scalar".
inline std::string default_kernel_description() {
  return std::string("highway ") + highway_target() + (detail::hwy_dispatch::dynamic ? " (run-time dispatch)" : " (static)");
}
}
TD_NAMESPACE_END
#else
TD_NAMESPACE_BEGIN
namespace kernels {
/// The kernel of compare() and summarize() when none is named: kernels::Highway when
/// TD_HAS_HIGHWAY=1 (link tensordiff::highway), else kernels::Scalar (shown here).
using Default = Scalar;
/// What kernels::Default runs now, for --version and the benchmarks: "highway AVX3_DL
/// (run-time dispatch)", "highway AVX2 (static)" or "scalar" (shown here).
inline std::string default_kernel_description() { return "scalar"; }
}
TD_NAMESPACE_END
#endif
