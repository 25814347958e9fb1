// tensordiff — configuration macros shared by every header.
#pragma once

// The version: the one place it is written. CMake's project() reads these
// three lines (CMakeLists.txt), so the package version follows them.
#define TD_VERSION_MAJOR 0
#define TD_VERSION_MINOR 1
#define TD_VERSION_PATCH 0

#define TD_STRINGIFY_EX(x) #x
#define TD_STRINGIFY(x) TD_STRINGIFY_EX(x)
#define TD_VERSION_STRING \
  TD_STRINGIFY(TD_VERSION_MAJOR) "." TD_STRINGIFY(TD_VERSION_MINOR) "." TD_STRINGIFY(TD_VERSION_PATCH)

// Settings that change the bodies of inline functions. Each CMake component
// defines its own (tensordiff::highway → TD_HAS_HIGHWAY=1, ::zlib →
// TD_HAS_ZLIB=1, ::yaml → TD_HAS_YAML); a program may also define them by
// hand. They are read exactly as the headers read them:
//   TD_HAS_HIGHWAY  kernels::Default is Highway (else the scalar reference)
//   TD_HWY_DYNAMIC  kernels::Highway dispatches at run time (else the static
//                   target of the compiler flags); its default is set here
//   TD_HAS_ZLIB     zip/npz readers inflate deflated members
//   TD_HAS_YAML     msprobe mapping files are read (defined = on, as the match headers test it)
#ifndef TD_HWY_DYNAMIC
#define TD_HWY_DYNAMIC 0
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
#define TD_ABI_TAG_HIGHWAY
#endif
#if TD_HWY_DYNAMIC
#define TD_ABI_TAG_HWY_DYNAMIC _dyn
#define TD_ABI_HWY_DYNAMIC 1  // kernels/highway.hpp checks that the setting did not change later
#else
#define TD_ABI_TAG_HWY_DYNAMIC
#define TD_ABI_HWY_DYNAMIC 0
#endif
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
#define TD_ABI_TAG_ZLIB _zlib
#else
#define TD_ABI_TAG_ZLIB
#endif
#if defined(TD_HAS_YAML)
#define TD_ABI_TAG_YAML _yaml
#else
#define TD_ABI_TAG_YAML
#endif

#define TD_ABI_CONCAT_EX(v, major, minor, a, b, c, d) v##major##_##minor##a##b##c##d
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
#define TD_HOST_DEVICE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TD_LIKELY(x) __builtin_expect(!!(x), 1)
#define TD_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TD_LIKELY(x) (x)
#define TD_UNLIKELY(x) (x)
#endif

// Every public name lives in tensordiff::TD_ABI_NAMESPACE (inline, so users
// write tensordiff::compare).
#define TD_NAMESPACE_BEGIN \
  namespace tensordiff {   \
  inline namespace TD_ABI_NAMESPACE {
#define TD_NAMESPACE_END \
  }                      \
  }
