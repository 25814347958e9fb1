// tensordiff — exact widening of a block of kernel storage to double, for the
// kernels that work on double blocks (xsimd, Eigen).
//
// bf16 widens by a 16-bit shift of its bits (exact; GCC vectorises the loop);
// f16 uses F16C (_mm256_cvtph_ps) when the compiler targets it and the exact
// scalar conversion of core/half.hpp otherwise.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__F16C__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define TD_HAVE_F16C 1
#endif

#include "../../core/element.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// Storage types whose values are all exactly representable in double and
/// finite-or-IEEE (the double-block kernels vectorise these).
template <class T>
inline constexpr bool widens_exactly_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, float16> ||
    std::is_same_v<T, bfloat16> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::uint32_t>;

/// out[i] = to_double(p[i]) for i < n, vectorisable.
template <class T> inline void widen_to_double(const T* p, std::size_t n, double* out) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    for (std::size_t i = 0; i < n; ++i) out[i] = bits_float(static_cast<std::uint32_t>(p[i].bits) << 16);
  } else if constexpr (std::is_same_v<T, float16>) {
    std::size_t i = 0;
#ifdef TD_HAVE_F16C
    for (; i + 8 <= n; i += 8) {
      alignas(32) float f[8];
      _mm256_store_ps(f, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
      for (int j = 0; j < 8; ++j) out[i + j] = f[j];
    }
#endif
    for (; i < n; ++i) out[i] = f16_bits_to_f32(p[i].bits);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);
  }
}

}  // namespace detail
TD_NAMESPACE_END
