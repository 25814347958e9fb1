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

#include "../../core/config.hpp"

#if defined(__x86_64__) || defined(__i386__)
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

TD_NAMESPACE_BEGIN
namespace detail {

/// Whether the CPU's vendor string (CPUID leaf 0) is "GenuineIntel"; false off x86.
inline bool cpu_is_intel() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned r[4] = {0, 0, 0, 0};  // eax, ebx, ecx, edx
#if defined(_MSC_VER) && !defined(__clang__)
  int v[4];
  __cpuid(v, 0);
  for (int i = 0; i < 4; ++i) r[i] = static_cast<unsigned>(v[i]);
#else
  if (!__get_cpuid(0, &r[0], &r[1], &r[2], &r[3])) return false;
#endif
  char vendor[12];  // ebx, edx, ecx
  std::memcpy(vendor, &r[1], 4);
  std::memcpy(vendor + 4, &r[3], 4);
  std::memcpy(vendor + 8, &r[2], 4);
  return std::memcmp(vendor, "GenuineIntel", 12) == 0;
#else
  return false;
#endif
}

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
