// tensordiff — the Highway kernel (the default when tensordiff::highway is linked).
//
// Run-time dispatch (the default, TD_HWY_DYNAMIC=1, core/config.hpp): this
// header owns the TU's single hwy/foreach_target.h expansion, compiles every
// attainable target (x86: from the -march baseline up to AVX3_DL; AArch64:
// NEON, SVE, SVE2, SVE_256, SVE2_128) and picks the best one the CPU supports
// with its own check (__builtin_cpu_supports; getauxval and the SVE vector
// length on Linux/AArch64) — no libhwy symbol is needed. A consumer built
// with distribution-default flags (no -march) thus still runs AVX2 / AVX-512
// (or SVE) code. Define
// HWY_COMPILE_ALL_ATTAINABLE too to also compile the targets below the -march
// baseline (the tests do, to check every target on one machine).
// A TU that runs its own foreach_target cannot use run-time dispatch; it
// defines TD_HWY_DYNAMIC=0 and may include kernels/detail/highway-inl.hpp
// from its HWY_TARGET_INCLUDE instead.
//
// Static dispatch (opt-in): define TD_HWY_DYNAMIC=0 before including any
// tensordiff header, in every TU (the macro is part of the ABI namespace).
// The kernels are then compiled once, for the target the compiler flags
// allow (HWY_STATIC_TARGET): build with -march=native, or for portable
// binaries -march=x86-64-v3 -DHWY_DISABLE_PCLMUL_AES; without flags Highway
// 1.0.3 silently picks SSSE3 (or SCALAR).
//
// Forcing a target (tests, the CLI's --target): the environment variable
// TD_FORCE_TARGET (e.g. AVX2, SSE4, SCALAR, read at first use) or
// kernels::set_highway_target("AVX2"). Only compiled targets the CPU supports
// are accepted.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>   // getauxval: which SVE targets the CPU runs
#include <sys/prctl.h>  // prctl(PR_SVE_GET_VL): SVE vector length
#endif

#include "detail/cpuid.hpp"
#include "partial.hpp"
#include "scalar.hpp"

TD_NAMESPACE_BEGIN
namespace detail {
/// Storage types the Highway kernel vectorises (widened exactly to double);
/// other types (bool, uint32, 64-bit integers) run the scalar reference —
/// int64/uint64 need exact |a−b| beyond 2^53, which double lanes cannot hold.
template <class T>
inline constexpr bool hwy_vectorised_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, float16> ||
    std::is_same_v<T, bfloat16> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint8_t>;
}  // namespace detail
TD_NAMESPACE_END

// core/config.hpp put TD_HWY_DYNAMIC into the ABI tag at the first tensordiff header.
#if (TD_HWY_DYNAMIC ? 1 : 0) != TD_ABI_HWY_DYNAMIC
#error "TD_HWY_DYNAMIC changed after the first tensordiff header: define it before including any (or with -D)"
#endif
#include "detail/hwy_workarounds.hpp"
#if defined(TD_HWY_DYNAMIC) && TD_HWY_DYNAMIC
/// \cond detail
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensordiff/kernels/detail/highway-inl.hpp"
/// \endcond
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#endif
#include <hwy/highway.h>

#include "detail/highway-inl.hpp"

TD_NAMESPACE_BEGIN
namespace detail {
namespace hwy_dispatch {

// Targets (x86, AArch64) from best to worst, with Highway's requirements for each.
struct TargetEntry {
  std::int64_t bit;
  const char* name;
};
#if defined(TD_HWY_DYNAMIC) && TD_HWY_DYNAMIC && (HWY_ARCH_X86 || HWY_ARCH_ARM_A64)
#define TD_HWY_RUNTIME_DISPATCH 1
inline constexpr bool dynamic = true;
#else
inline constexpr bool dynamic = false;
#endif

/// Compiled targets, best first.
inline std::vector<TargetEntry> compiled_targets() {
  std::vector<TargetEntry> t;
  if constexpr (dynamic) {
#if HWY_TARGETS & HWY_AVX3_DL
    t.push_back({HWY_AVX3_DL, "AVX3_DL"});
#endif
#if HWY_TARGETS & HWY_AVX3
    t.push_back({HWY_AVX3, "AVX3"});
#endif
#if HWY_TARGETS & HWY_AVX2
    t.push_back({HWY_AVX2, "AVX2"});
#endif
#if HWY_TARGETS & HWY_SSE4
    t.push_back({HWY_SSE4, "SSE4"});
#endif
#if HWY_TARGETS & HWY_SSSE3
    t.push_back({HWY_SSSE3, "SSSE3"});
#endif
#if HWY_TARGETS & HWY_SVE2_128
    t.push_back({HWY_SVE2_128, "SVE2_128"});
#endif
#if HWY_TARGETS & HWY_SVE_256
    t.push_back({HWY_SVE_256, "SVE_256"});
#endif
#if HWY_TARGETS & HWY_SVE2
    t.push_back({HWY_SVE2, "SVE2"});
#endif
#if HWY_TARGETS & HWY_SVE
    t.push_back({HWY_SVE, "SVE"});
#endif
#if HWY_TARGETS & HWY_NEON
    t.push_back({HWY_NEON, "NEON"});
#endif
#if HWY_TARGETS & HWY_EMU128
    t.push_back({HWY_EMU128, "EMU128"});
#endif
#if HWY_TARGETS & HWY_SCALAR
    t.push_back({HWY_SCALAR, "SCALAR"});
#endif
  } else {
    t.push_back({HWY_STATIC_TARGET, hwy::TargetName(HWY_STATIC_TARGET)});
  }
  return t;
}

/// Whether this CPU runs code of `target` (own check: no libhwy needed).
inline bool cpu_supports(std::int64_t target) {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool ssse3 = __builtin_cpu_supports("ssse3");
  const bool sse4 = ssse3 && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2") &&
                    __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("aes");
  // CPUID for F16C (leaf 1, ecx 29) and VAES (leaf 7, ecx 9): clang 14's __builtin_cpu_supports
  // knows neither name (a compile error); the AVX state they need is checked with avx2 / avx3.
  const bool f16c = x86_cpuid_bit(1, 0, 2, 29), vaes = x86_cpuid_bit(7, 0, 2, 9);
  const bool avx2 = sse4 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi2") && f16c;
  const bool avx3 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  const bool avx3_dl = avx3 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi2") &&
                       __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("avx512vpopcntdq") &&
                       __builtin_cpu_supports("vpclmulqdq") && vaes &&
                       __builtin_cpu_supports("avx512vbmi");
  switch (target) {
    case HWY_AVX3_DL: return avx3_dl;
    case HWY_AVX3: return avx3;
    case HWY_AVX2: return avx2;
    case HWY_SSE4: return sse4;
    case HWY_SSSE3: return ssse3;
    default: return target == HWY_SCALAR || target == HWY_EMU128 || target == HWY_STATIC_TARGET;
  }
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
  // The kernel's hardware capabilities; SVE_256 / SVE2_128 also need that vector length.
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  const bool sve = (hwcap & (1ul << 22)) != 0;            // HWCAP_SVE
  const bool sve2 = sve && (hwcap2 & (1ul << 1)) != 0;    // HWCAP2_SVE2
  const int vl = sve ? prctl(51 /* PR_SVE_GET_VL */) : -1;
  const int vl_bytes = vl < 0 ? 0 : (vl & 0xffff);        // PR_SVE_VL_LEN_MASK
  switch (target) {
    case HWY_SVE2_128: return sve2 && vl_bytes == 16;
    case HWY_SVE_256: return sve && vl_bytes == 32;
    case HWY_SVE2: return sve2;
    case HWY_SVE: return sve;
    case HWY_NEON: return true;  // Advanced SIMD: every AArch64 CPU
    default: return target == HWY_SCALAR || target == HWY_EMU128 || target == HWY_STATIC_TARGET;
  }
#else
  return target == HWY_STATIC_TARGET;
#endif
}

inline std::int64_t find_target(std::string_view name) {
  for (const TargetEntry& e : compiled_targets()) {
    std::string_view n = e.name;
    bool eq = n.size() == name.size();
    for (std::size_t i = 0; eq && i < n.size(); ++i)
      eq = (name[i] >= 'a' && name[i] <= 'z' ? char(name[i] - 32) : name[i]) == n[i];
    if (eq && cpu_supports(e.bit)) return e.bit;
  }
  return 0;
}

inline std::int64_t best_target() {
  for (const TargetEntry& e : compiled_targets())
    if (cpu_supports(e.bit)) return e.bit;
  return HWY_STATIC_TARGET;
}

/// The chosen target: TD_FORCE_TARGET when valid, else the best supported.
inline std::atomic<std::int64_t>& chosen() {
  static std::atomic<std::int64_t> t{[] {
    const char* env = std::getenv("TD_FORCE_TARGET");
    if (env && *env)
      if (const std::int64_t f = find_target(env)) return f;
    return best_target();
  }()};
  return t;
}

}  // namespace hwy_dispatch

/// \cond detail
// Calls hwy_kernels::N_<TARGET>::FN<...>(args) for the chosen target.
#define TD_HWY_CASE(BIT, NS, ...) \
  case BIT:                       \
    return ::tensordiff::detail::hwy_kernels::NS::__VA_ARGS__;
#if HWY_TARGETS & HWY_AVX3_DL
#define TD_HWY_CASE_AVX3_DL(...) TD_HWY_CASE(HWY_AVX3_DL, N_AVX3_DL, __VA_ARGS__)
#else
#define TD_HWY_CASE_AVX3_DL(...)
#endif
#if HWY_TARGETS & HWY_AVX3
#define TD_HWY_CASE_AVX3(...) TD_HWY_CASE(HWY_AVX3, N_AVX3, __VA_ARGS__)
#else
#define TD_HWY_CASE_AVX3(...)
#endif
#if HWY_TARGETS & HWY_AVX2
#define TD_HWY_CASE_AVX2(...) TD_HWY_CASE(HWY_AVX2, N_AVX2, __VA_ARGS__)
#else
#define TD_HWY_CASE_AVX2(...)
#endif
#if HWY_TARGETS & HWY_SSE4
#define TD_HWY_CASE_SSE4(...) TD_HWY_CASE(HWY_SSE4, N_SSE4, __VA_ARGS__)
#else
#define TD_HWY_CASE_SSE4(...)
#endif
#if HWY_TARGETS & HWY_SSSE3
#define TD_HWY_CASE_SSSE3(...) TD_HWY_CASE(HWY_SSSE3, N_SSSE3, __VA_ARGS__)
#else
#define TD_HWY_CASE_SSSE3(...)
#endif
#if HWY_TARGETS & HWY_SVE2_128
#define TD_HWY_CASE_SVE2_128(...) TD_HWY_CASE(HWY_SVE2_128, N_SVE2_128, __VA_ARGS__)
#else
#define TD_HWY_CASE_SVE2_128(...)
#endif
#if HWY_TARGETS & HWY_SVE_256
#define TD_HWY_CASE_SVE_256(...) TD_HWY_CASE(HWY_SVE_256, N_SVE_256, __VA_ARGS__)
#else
#define TD_HWY_CASE_SVE_256(...)
#endif
#if HWY_TARGETS & HWY_SVE2
#define TD_HWY_CASE_SVE2(...) TD_HWY_CASE(HWY_SVE2, N_SVE2, __VA_ARGS__)
#else
#define TD_HWY_CASE_SVE2(...)
#endif
#if HWY_TARGETS & HWY_SVE
#define TD_HWY_CASE_SVE(...) TD_HWY_CASE(HWY_SVE, N_SVE, __VA_ARGS__)
#else
#define TD_HWY_CASE_SVE(...)
#endif
#if HWY_TARGETS & HWY_NEON
#define TD_HWY_CASE_NEON(...) TD_HWY_CASE(HWY_NEON, N_NEON, __VA_ARGS__)
#else
#define TD_HWY_CASE_NEON(...)
#endif
#if HWY_TARGETS & HWY_EMU128
#define TD_HWY_CASE_EMU128(...) TD_HWY_CASE(HWY_EMU128, N_EMU128, __VA_ARGS__)
#else
#define TD_HWY_CASE_EMU128(...)
#endif
#if HWY_TARGETS & HWY_SCALAR
#define TD_HWY_CASE_SCALAR(...) TD_HWY_CASE(HWY_SCALAR, N_SCALAR, __VA_ARGS__)
#else
#define TD_HWY_CASE_SCALAR(...)
#endif

#if defined(TD_HWY_RUNTIME_DISPATCH)
#define TD_HWY_DISPATCH(...)                                            \
  switch (::tensordiff::detail::hwy_dispatch::chosen().load(std::memory_order_relaxed)) { \
    TD_HWY_CASE_AVX3_DL(__VA_ARGS__)                                            \
    TD_HWY_CASE_AVX3(__VA_ARGS__)                                               \
    TD_HWY_CASE_AVX2(__VA_ARGS__)                                               \
    TD_HWY_CASE_SSE4(__VA_ARGS__)                                               \
    TD_HWY_CASE_SSSE3(__VA_ARGS__)                                              \
    TD_HWY_CASE_SVE2_128(__VA_ARGS__)                                           \
    TD_HWY_CASE_SVE_256(__VA_ARGS__)                                            \
    TD_HWY_CASE_SVE2(__VA_ARGS__)                                               \
    TD_HWY_CASE_SVE(__VA_ARGS__)                                                \
    TD_HWY_CASE_NEON(__VA_ARGS__)                                               \
    TD_HWY_CASE_EMU128(__VA_ARGS__)                                             \
    TD_HWY_CASE_SCALAR(__VA_ARGS__)                                             \
    default: break;                                                      \
  }                                                                      \
  return ::tensordiff::detail::hwy_kernels::HWY_NAMESPACE::__VA_ARGS__;
#else
#define TD_HWY_DISPATCH(...) return ::tensordiff::detail::hwy_kernels::HWY_NAMESPACE::__VA_ARGS__;
#endif
/// \endcond

// The dispatched passes, as templates that are not inline: under TD_SEPARATE_KERNELS the
// declarations below make them extern, so a TU that calls kernels::Highway by name (the kernel
// tests, a benchmark) links the kernels library's copy instead of compiling every pair for
// every target again (~600 KB of code a target in each kernel test).
template <class TA, class TB>
void hwy_accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first_index, const KernelParams& k,
                    Partial& out) {
  TD_HWY_DISPATCH(Accumulate<TA, TB>(a, b, n, first_index, k, out))
}
template <class T> void hwy_summarize(const T* x, std::size_t n, SideStats& out) {
  TD_HWY_DISPATCH(Summarize<T>(x, n, out))
}
}  // namespace detail

/// \cond detail
#define TD_HWY_SEPARATE_PAIR(TA, TB)                                                                          \
  TD_SEPARATE_PASS(void detail::hwy_accumulate<TA, TB>(const TA*, const TB*, std::size_t, std::uint64_t, \
                                                       const KernelParams&, Partial&))
#define TD_HWY_SEPARATE_FLOAT(T)                                                                   \
  TD_HWY_SEPARATE_PAIR(T, float) TD_HWY_SEPARATE_PAIR(T, double) TD_HWY_SEPARATE_PAIR(T, float16) \
  TD_HWY_SEPARATE_PAIR(T, bfloat16)
#define TD_HWY_SEPARATE_TYPE(T) \
  TD_SEPARATE_PASS(void detail::hwy_summarize<T>(const T*, std::size_t, SideStats&))
// The pairs compare() hands this kernel (metrics/detail/pairing.hpp: every pair of floats, the same
// integer type on both sides; other integer pairs are widened first) — one left out here costs
// compile time, nothing else, and one that compare() never instantiates would cost the library's
// build time (every target).
TD_HWY_SEPARATE_FLOAT(float)
TD_HWY_SEPARATE_FLOAT(double)
TD_HWY_SEPARATE_FLOAT(float16)
TD_HWY_SEPARATE_FLOAT(bfloat16)
TD_HWY_SEPARATE_PAIR(std::int32_t, std::int32_t)
TD_HWY_SEPARATE_PAIR(std::int16_t, std::int16_t)
TD_HWY_SEPARATE_PAIR(std::int8_t, std::int8_t)
TD_HWY_SEPARATE_PAIR(std::uint16_t, std::uint16_t)
TD_HWY_SEPARATE_PAIR(std::uint8_t, std::uint8_t)
TD_HWY_SEPARATE_TYPE(float)
TD_HWY_SEPARATE_TYPE(double)
TD_HWY_SEPARATE_TYPE(float16)
TD_HWY_SEPARATE_TYPE(bfloat16)
TD_HWY_SEPARATE_TYPE(std::int32_t)
TD_HWY_SEPARATE_TYPE(std::int16_t)
TD_HWY_SEPARATE_TYPE(std::int8_t)
TD_HWY_SEPARATE_TYPE(std::uint16_t)
TD_HWY_SEPARATE_TYPE(std::uint8_t)
#undef TD_HWY_SEPARATE_TYPE
#undef TD_HWY_SEPARATE_FLOAT
#undef TD_HWY_SEPARATE_PAIR
/// \endcond

namespace kernels {

/// Names of the Highway targets compiled into this TU that the CPU supports,
/// best first (one entry, the static target, without TD_HWY_DYNAMIC).
inline std::vector<std::string> highway_targets() {
  std::vector<std::string> r;
  for (const auto& e : detail::hwy_dispatch::compiled_targets())
    if (detail::hwy_dispatch::cpu_supports(e.bit)) r.emplace_back(e.name);
  return r;
}

/// Name of the target kernels::Highway runs now.
inline std::string highway_target() {
  if constexpr (detail::hwy_dispatch::dynamic) return hwy::TargetName(detail::hwy_dispatch::chosen().load());
  else return hwy::TargetName(HWY_STATIC_TARGET);
}

/// Forces the target (case-insensitive name from highway_targets()); "" or
/// "best" restores the best one. Returns false, changing nothing, for a name
/// that is not compiled in or not supported by this CPU.
inline bool set_highway_target(std::string_view name) {
  if (name.empty() || name == "best") {
    detail::hwy_dispatch::chosen().store(detail::hwy_dispatch::best_target());
    return true;
  }
  const std::int64_t t = detail::hwy_dispatch::find_target(name);
  if (!t) return false;
  detail::hwy_dispatch::chosen().store(t);
  return true;
}

/// Highway kernel: one fused pass per run (see kernels/detail/highway-inl.hpp
/// for the exactness argument). Same interface as kernels::Scalar.
struct Highway {
  /// Kernel name, as reported by Comparison and the CLI's --kernel.
  static constexpr const char* name = "highway";

  /// Folds the n element pairs a[i], b[i] (flat indices first_index + i) into `out`; `a` is the
  /// actual (NPU) side, `b` the expected (bench) side. TA / TB are kernel storage types;
  /// bool, uint32 and 64-bit integer pairs run kernels::Scalar.
  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first_index, const KernelParams& k,
                         Partial& out) {
    if constexpr (detail::hwy_vectorised_v<TA> && detail::hwy_vectorised_v<TB>) {
      detail::hwy_accumulate(a, b, n, first_index, k, out);
    } else {
      Scalar::accumulate(a, b, n, first_index, k, out);
    }
  }

  /// Folds n elements of one side into `out`.
  template <class T> static void summarize(const T* x, std::size_t n, SideStats& out) {
    if constexpr (detail::hwy_vectorised_v<T>) {
      detail::hwy_summarize(x, n, out);
    } else {
      Scalar::summarize(x, n, out);
    }
  }

  /// Benchmark-only: the float-lane pass cut after `stage` (0 loads, 1 + double sums, 2 +
  /// maxima, 3 + relative error and thresholds; 5: stage 3 with × for ÷; 6: assert_close's set
  /// in float lanes; 7: stage 1 with the product sums from float products; 8: stage 6 with the
  /// kernel's exactness test of max |a − b|; see detail
  /// AblationPass) over n pairs of one 16/32-bit float type. The README's ablation table comes
  /// from it.
  template <class T> static double ablation(int stage, const T* a, const T* b, std::size_t n) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, "16/32-bit floats");
    switch (stage) {
      case 0: { TD_HWY_DISPATCH(AblationPass<0, T>(a, b, n)) }
      case 1: { TD_HWY_DISPATCH(AblationPass<1, T>(a, b, n)) }
      case 2: { TD_HWY_DISPATCH(AblationPass<2, T>(a, b, n)) }
      case 3: { TD_HWY_DISPATCH(AblationPass<3, T>(a, b, n)) }
      case 5: { TD_HWY_DISPATCH(AblationPass<5, T>(a, b, n)) }
      case 6: { TD_HWY_DISPATCH(AblationPass<6, T>(a, b, n)) }
      case 7: { TD_HWY_DISPATCH(AblationPass<7, T>(a, b, n)) }
      default: { TD_HWY_DISPATCH(AblationPass<8, T>(a, b, n)) }
    }
  }

  /// Sum of n 64-bit words of each of two buffers, read side by side: the read-bandwidth
  /// baseline of the benchmarks (the same two streams as a compare of the pair).
  static std::uint64_t read_words(const std::uint64_t* p, const std::uint64_t* q, std::size_t n) {
    TD_HWY_DISPATCH(ReadWords(p, q, n))
  }
};

}  // namespace kernels
TD_NAMESPACE_END
