// tensordiff — configuration macros shared by every header.
#pragma once

// The version: the one place it is written. CMake's project() reads these
// three lines (CMakeLists.txt), so the package version follows them.
/// Major version: a change breaks source compatibility (0 while the API settles).
#define TD_VERSION_MAJOR 0
/// Minor version: part of the ABI namespace, since 0.x releases may change layouts.
#define TD_VERSION_MINOR 1
/// Patch version: fixes only, same ABI namespace.
#define TD_VERSION_PATCH 0

/// Helper of TD_STRINGIFY: turns its argument, unexpanded, into a string literal.
#define TD_STRINGIFY_EX(x) #x
/// The string literal of `x` after macro expansion (TD_STRINGIFY(TD_VERSION_MAJOR) is "0").
#define TD_STRINGIFY(x) TD_STRINGIFY_EX(x)
/// The version as a string literal, "major.minor.patch" (also tensordiff::version(), version.hpp).
#define TD_VERSION_STRING \
  TD_STRINGIFY(TD_VERSION_MAJOR) "." TD_STRINGIFY(TD_VERSION_MINOR) "." TD_STRINGIFY(TD_VERSION_PATCH)

// Settings that change the bodies of inline functions. Each CMake component
// defines its own (tensordiff::highway → TD_HAS_HIGHWAY=1, ::zlib →
// TD_HAS_ZLIB=1, ::yaml → TD_HAS_YAML); a program may also define them by
// hand. They are read exactly as the headers read them:
//   TD_HAS_HIGHWAY  kernels::Default is Highway (else the scalar reference)
//   TD_HWY_DYNAMIC  kernels::Highway dispatches at run time (default 1; 0 = the
//                   static target of the compiler flags); its default is set here
//   TD_HAS_ZLIB     zip/npz readers inflate deflated members
//   TD_HAS_YAML     msprobe mapping files are read (defined = on, as the match headers test it)
#ifndef TD_HWY_DYNAMIC
/// 1 (the default): kernels::Highway compiles every attainable SIMD target and picks the best
/// one this CPU runs, at run time, so a consumer built with distribution-default flags (no
/// -march) still gets AVX2 / AVX-512 code. 0: only the static target of the compiler flags
/// (Highway 1.0.3 falls back to SSSE3 without -march). Part of the ABI namespace.
#define TD_HWY_DYNAMIC 1
#endif

// TD_SEPARATE_KERNELS=1 (CMake: tensordiff_separate_kernels()) compiles the heavy
// passes (the default kernel's fused pass, summarize, the standards' element-wise
// passes) in one TU instead of in every TU that calls them. Each such pass is named
// once, after its definition, as TD_SEPARATE_PASS(<its signature>): the TU that
// includes metrics/instantiate.hpp (which defines TD_INSTANTIATE_SEPARATE_PASSES
// first) instantiates it there, every other TU declares it extern.
#if defined(TD_INSTANTIATE_SEPARATE_PASSES)
/// Names a pass compiled once under TD_SEPARATE_KERNELS: here (metrics/instantiate.hpp's TU)
/// its explicit instantiation.
#define TD_SEPARATE_PASS(...) template __VA_ARGS__;
#elif defined(TD_SEPARATE_KERNELS) && TD_SEPARATE_KERNELS
/// Names a pass compiled once under TD_SEPARATE_KERNELS: here an extern declaration (the TU
/// only calls it).
#define TD_SEPARATE_PASS(...) extern template __VA_ARGS__;
#else
/// Names a pass compiled once under TD_SEPARATE_KERNELS: nothing without it (header-only, every
/// TU compiles what it calls).
#define TD_SEPARATE_PASS(...)
#endif

// ABI tags (as nlohmann/json does): every setting above is part of the inline
// namespace's name, so two translation units — or two libraries in one program
// — built with different settings get different symbols instead of silently
// sharing one definition (an ODR violation the linker would not report). The
// version (major and minor: 0.x releases may change layouts) is part of it too.
// Binaries that exchange tensordiff types must therefore agree on the settings;
// tensordiff::abi_tag() (version.hpp) names the ones a TU was built with.
#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
#define TD_ABI_TAG_HIGHWAY _hwy
#else
/// ABI tag of TD_HAS_HIGHWAY: `_hwy` when Highway kernels are on, empty otherwise.
#define TD_ABI_TAG_HIGHWAY
#endif
#if TD_HWY_DYNAMIC
/// ABI tag of TD_HWY_DYNAMIC: `_dyn` with run-time dispatch, empty otherwise.
#define TD_ABI_TAG_HWY_DYNAMIC _dyn
/// TD_HWY_DYNAMIC as it was when config.hpp was first read: kernels/highway.hpp fails to compile
/// if the setting changed in between (the ABI namespace would no longer describe the code).
#define TD_ABI_HWY_DYNAMIC 1
#else
/// ABI tag of TD_HWY_DYNAMIC: `_dyn` with run-time dispatch, empty otherwise.
#define TD_ABI_TAG_HWY_DYNAMIC
/// TD_HWY_DYNAMIC as it was when config.hpp was first read: kernels/highway.hpp fails to compile
/// if the setting changed in between (the ABI namespace would no longer describe the code).
#define TD_ABI_HWY_DYNAMIC 0
#endif
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
#define TD_ABI_TAG_ZLIB _zlib
#else
/// ABI tag of TD_HAS_ZLIB: `_zlib` when the zip/npz readers inflate, empty otherwise.
#define TD_ABI_TAG_ZLIB
#endif
#if defined(TD_HAS_YAML)
#define TD_ABI_TAG_YAML _yaml
#else
/// ABI tag of TD_HAS_YAML: `_yaml` when mapping files are read, empty otherwise.
#define TD_ABI_TAG_YAML
#endif

/// Helper of TD_ABI_CONCAT: pastes its (already expanded) arguments into one identifier.
#define TD_ABI_CONCAT_EX(v, major, minor, a, b, c, d) v##major##_##minor##a##b##c##d
/// Pastes `v`, the version and the four ABI tags into one identifier, expanding them first.
#define TD_ABI_CONCAT(v, major, minor, a, b, c, d) TD_ABI_CONCAT_EX(v, major, minor, a, b, c, d)
/// The inline namespace, e.g. v0_1 (core only) or v0_1_hwy_dyn_zlib_yaml.
#define TD_ABI_NAMESPACE                                                                                   \
  TD_ABI_CONCAT(v, TD_VERSION_MAJOR, TD_VERSION_MINOR, TD_ABI_TAG_HIGHWAY, TD_ABI_TAG_HWY_DYNAMIC, TD_ABI_TAG_ZLIB, \
                TD_ABI_TAG_YAML)

// Functions callable from both host and CUDA device code. The per-element
// arithmetic lives in such functions so the CPU tests cover the device path.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define TD_HOST_DEVICE __host__ __device__
#else
/// `__host__ __device__` under nvcc / hipcc, empty otherwise: marks the per-element functions
/// shared by the CPU kernels and the CUDA backend, so the CPU tests cover the device arithmetic.
#define TD_HOST_DEVICE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TD_LIKELY(x) __builtin_expect(!!(x), 1)
#define TD_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
/// Branch hint: `x` (a condition) is expected to be true (__builtin_expect on GCC / Clang).
#define TD_LIKELY(x) (x)
/// Branch hint: `x` (a condition) is expected to be false, e.g. an error path in a hot loop.
#define TD_UNLIKELY(x) (x)
#endif

// Every public name lives in tensordiff::TD_ABI_NAMESPACE (inline, so users
// write tensordiff::compare).
/// Opens `namespace tensordiff { inline namespace TD_ABI_NAMESPACE {`; every public header's
/// names are declared between it and TD_NAMESPACE_END.
#define TD_NAMESPACE_BEGIN \
  namespace tensordiff {   \
  inline namespace TD_ABI_NAMESPACE {
/// Closes what TD_NAMESPACE_BEGIN opened.
#define TD_NAMESPACE_END \
  }                      \
  }
