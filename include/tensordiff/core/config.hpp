// tensordiff — configuration macros shared by every header.
#pragma once

#define TD_VERSION_MAJOR 0
#define TD_VERSION_MINOR 1
#define TD_VERSION_PATCH 0
#define TD_VERSION_STRING "0.1.0"

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

// ABI-versioned namespace (as fmt and nlohmann/json do): a binary built against
// one layout of Partial/Comparison cannot link against another by accident.
#define TD_NAMESPACE_BEGIN \
  namespace tensordiff {   \
  inline namespace v0 {
#define TD_NAMESPACE_END \
  }                      \
  }
