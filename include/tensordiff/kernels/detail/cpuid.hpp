// tensordiff — CPUID on x86 (vendor string, feature bits), for the Highway kernel's own
// target check and its software-prefetch choice. No-ops returning false elsewhere.
#pragma once
#include <cstring>

#include "../../core/config.hpp"

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define TD_X86_CPUID 1
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

TD_NAMESPACE_BEGIN
namespace detail {

/// CPUID leaf `leaf`, sub-leaf `sub` into r = {eax, ebx, ecx, edx}; false (r zeroed) where the
/// leaf is beyond the CPU's highest or the machine is not x86.
inline bool x86_cpuid(unsigned leaf, unsigned sub, unsigned (&r)[4]) {
  r[0] = r[1] = r[2] = r[3] = 0;
#if defined(TD_X86_CPUID) && defined(_MSC_VER) && !defined(__clang__)
  int v[4];
  __cpuid(v, static_cast<int>(leaf & 0x80000000u));
  if (static_cast<unsigned>(v[0]) < leaf) return false;
  __cpuidex(v, static_cast<int>(leaf), static_cast<int>(sub));
  for (int i = 0; i < 4; ++i) r[i] = static_cast<unsigned>(v[i]);
  return true;
#elif defined(TD_X86_CPUID)
  return __get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]) != 0;
#else
  (void)leaf, (void)sub;
  return false;
#endif
}

/// Bit `bit` of register `reg` (0 eax, 1 ebx, 2 ecx, 3 edx) of CPUID (leaf, sub); false off x86.
/// For features whose name a compiler's __builtin_cpu_supports lacks (clang 14: "f16c", "vaes").
inline bool x86_cpuid_bit(unsigned leaf, unsigned sub, int reg, int bit) {
  unsigned r[4];
  return x86_cpuid(leaf, sub, r) && ((r[reg] >> bit) & 1u) != 0;
}

/// Whether the CPU's vendor string (CPUID leaf 0: ebx, edx, ecx) is "GenuineIntel"; false off x86.
inline bool cpu_is_intel() {
  unsigned r[4];
  if (!x86_cpuid(0, 0, r)) return false;
  char vendor[12];
  std::memcpy(vendor, &r[1], 4);
  std::memcpy(vendor + 4, &r[3], 4);
  std::memcpy(vendor + 8, &r[2], 4);
  return std::memcmp(vendor, "GenuineIntel", 12) == 0;
}

}  // namespace detail
TD_NAMESPACE_END
