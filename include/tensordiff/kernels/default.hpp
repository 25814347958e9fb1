// tensordiff — the kernel used when none is named.
//
// Highway when its header is available and the tensordiff::highway target is
// linked (it defines TD_HAS_HIGHWAY=1); the scalar reference otherwise.
#pragma once
#include <string>

#include "scalar.hpp"

#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
#include "highway.hpp"
#include "detail/software_prefetch.hpp"
TD_NAMESPACE_BEGIN
namespace kernels {
/// The kernel of compare() and summarize() when none is named: kernels::Highway here
/// (TD_HAS_HIGHWAY=1), kernels::Scalar without Highway.
using Default = Highway;
/// What kernels::Default runs now, for --version and the benchmarks: "highway AVX2 (static)",
/// "highway AVX3_DL (run-time dispatch, prefetch on: Intel)" (AVX-512 targets name their
/// software-prefetch choice, detail::avx512_prefetch()) or "scalar".
inline std::string default_kernel_description() {
  const std::string target = highway_target();
  std::string s = "highway " + target + (detail::hwy_dispatch::dynamic ? " (run-time dispatch" : " (static");
  if (target.rfind("AVX3", 0) == 0) {
    const detail::PrefetchChoice& p = detail::avx512_prefetch();
    s += std::string(", prefetch ") + (p.on ? "on: " : "off: ") + p.reason;
  }
  return s + ")";
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
