// tensordiff — whether the Highway passes prefetch the next block in software on AVX-512.
//
// x86 before AVX-512 always does (kMultiWalk in highway-inl.hpp). On AVX-512 it depends on who
// made the core, measured with one thread from memory (README, thirty-fifth session): without it
// Intel's Ice Lake-SP ran the f32 full set at 0.62–0.66× of the read bandwidth and the lean sets
// at 0.70–0.99× (one busy core keeps too few misses in flight); with ≤ 8 KiB prefetched ahead
// 0.70–0.78× and 0.72–1.18×, with no loss in cache beyond the noise. AMD's Zen 4 and Zen 5 gained
// nothing and lost on the lean f32 sets (tenth and twenty-seventh sessions). So: on for Intel,
// off for everyone else, and TD_HWY_PREFETCH=0 or 1 in the environment (read at first use)
// overrides it for A/B runs; another value is ignored, as TD_FORCE_TARGET's are.
#pragma once
#include <cstdlib>
#include <cstring>

#include "cpuid.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// The AVX-512 passes' software-prefetch choice and why it was made.
struct PrefetchChoice {
  bool on = false;
  const char* reason = "";  ///< "Intel", "not Intel", "TD_HWY_PREFETCH=0" or "TD_HWY_PREFETCH=1"
};

/// The choice, made once per process (the environment first, then the vendor).
inline const PrefetchChoice& avx512_prefetch() {
  static const PrefetchChoice choice = [] {
    const char* env = std::getenv("TD_HWY_PREFETCH");
    if (env && std::strcmp(env, "0") == 0) return PrefetchChoice{false, "TD_HWY_PREFETCH=0"};
    if (env && std::strcmp(env, "1") == 0) return PrefetchChoice{true, "TD_HWY_PREFETCH=1"};
    return cpu_is_intel() ? PrefetchChoice{true, "Intel"} : PrefetchChoice{false, "not Intel"};
  }();
  return choice;
}

}  // namespace detail
TD_NAMESPACE_END
