// tensordiff — 16-bit floating-point storage types (IEEE binary16, bfloat16).
//
// Both are plain 2-byte structs holding the bit pattern, convertible to and
// from float exactly as hardware does: widening is exact; narrowing rounds to
// nearest, ties to even, handles subnormals and ±0, saturates to ±inf and keeps
// NaN a NaN (quietened, sign and upper payload preserved). Usable in CUDA
// device code (TD_HOST_DEVICE) so the device kernels share this arithmetic.
#pragma once
#include <cstdint>
#include <cstring>

#include "config.hpp"

TD_NAMESPACE_BEGIN

namespace detail {
TD_HOST_DEVICE inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
TD_HOST_DEVICE inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Round `m >> shift` to nearest, ties to even (shift in [1, 31]).
TD_HOST_DEVICE inline std::uint32_t shift_right_rne(std::uint32_t m, unsigned shift) {
  const std::uint32_t q = m >> shift;
  const std::uint32_t rem = m & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
}

TD_HOST_DEVICE inline std::uint16_t f32_to_f16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or nan; a nan stays a (quiet) nan
    const std::uint32_t payload = ax > 0x7f800000u ? (0x200u | ((ax >> 13) & 0x3ffu)) : 0u;
    return static_cast<std::uint16_t>(sign | 0x7c00u | payload);
  }
  if (ax < 0x38800000u) {  // below 2^-14: f16 subnormal or zero
    const unsigned e = ax >> 23;
    const unsigned shift = 126u - e;  // value = m * 2^(e-150); f16 unit is 2^-24
    if (shift > 24u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t m = (ax & 0x7fffffu) | (e ? 0x800000u : 0u);
    return static_cast<std::uint16_t>(sign | shift_right_rne(m, shift));
  }
  // Normal: rebias the exponent (127 -> 15); a carry out of the mantissa
  // correctly bumps the exponent, up to 0x7c00 (inf) for |x| >= 65520.
  const std::uint32_t h = shift_right_rne(ax - 0x38000000u, 13);
  return static_cast<std::uint16_t>(sign | (h > 0x7c00u ? 0x7c00u : h));
}

TD_HOST_DEVICE inline float f16_bits_to_f32(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  if ((h & 0x7c00u) != 0x7c00u) {  // finite: the GPU's exact conversion (NaN payloads take the path below)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
#endif
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return bits_float(sign);
    e = 113;  // normalise the subnormal
    while (!(m & 0x400u)) {
      m <<= 1;
      --e;
    }
    return bits_float(sign | (e << 23) | ((m & 0x3ffu) << 13));
  }
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

TD_HOST_DEVICE inline std::uint16_t f32_to_bf16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

TD_HOST_DEVICE inline float bf16_bits_to_f32(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}
}  // namespace detail

/// IEEE 754 binary16 ("half", torch.float16, numpy float16).
struct float16 {
  /// The raw bit pattern (sign, exponent, mantissa), as stored in files and device memory.
  std::uint16_t bits;

  /// Uninitialised, like a built-in float (keeps the type trivial, so arrays of it can be memcpy'd).
  float16() = default;
  /// Rounds `f` to the nearest float16, ties to even: overflow gives ±inf, NaN stays NaN.
  TD_HOST_DEVICE explicit float16(float f) : bits(detail::f32_to_f16_bits(f)) {}
  /// The value whose bit pattern is `b` (no rounding: every pattern, NaNs included, is kept).
  TD_HOST_DEVICE static constexpr float16 from_bits(std::uint16_t b) {
    float16 h{};
    h.bits = b;
    return h;
  }
  /// The exact value as float (every float16 is representable; NaN payload kept).
  TD_HOST_DEVICE explicit operator float() const { return detail::f16_bits_to_f32(bits); }
  /// The exact value as double (via float, which is exact).
  TD_HOST_DEVICE explicit operator double() const { return detail::f16_bits_to_f32(bits); }
};

/// Brain float 16 (torch.bfloat16): the upper half of a binary32.
struct bfloat16 {
  /// The raw bit pattern (sign, exponent, mantissa), as stored in files and device memory.
  std::uint16_t bits;

  /// Uninitialised, like a built-in float (keeps the type trivial, so arrays of it can be memcpy'd).
  bfloat16() = default;
  /// Rounds `f` to the nearest bfloat16, ties to even: overflow gives ±inf, NaN stays NaN.
  TD_HOST_DEVICE explicit bfloat16(float f) : bits(detail::f32_to_bf16_bits(f)) {}
  /// The value whose bit pattern is `b` (no rounding: every pattern, NaNs included, is kept).
  TD_HOST_DEVICE static constexpr bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h{};
    h.bits = b;
    return h;
  }
  /// The exact value as float (every bfloat16 is representable; NaN payload kept).
  TD_HOST_DEVICE explicit operator float() const { return detail::bf16_bits_to_f32(bits); }
  /// The exact value as double (via float, which is exact).
  TD_HOST_DEVICE explicit operator double() const { return detail::bf16_bits_to_f32(bits); }
};

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit types must be packed");

/// \name Range limits of the 16-bit types
/// Largest finite values, and the smallest magnitudes that round to infinity
/// when a wider float is narrowed (used by the overflow flags of summarize()).
/// A value v with |v| >= *_overflow_threshold becomes ±inf in that type; between
/// *_max and the threshold it still rounds down to *_max.
///@{
/// Largest finite float16: (2 - 2^-10) * 2^15 = 65504 (0x7bff).
inline constexpr double float16_max = 65504.0;
/// Smallest magnitude that rounds to float16 infinity: 65504 + half an ulp (2^4) = 65520.
inline constexpr double float16_overflow_threshold = 65520.0;
/// Largest finite bfloat16: (2 - 2^-7) * 2^127 (0x7f7f).
inline constexpr double bfloat16_max = 3.3895313892515355e38;          // 0x7f7f
/// Smallest magnitude that rounds to bfloat16 infinity: bfloat16_max + half an ulp (2^119).
inline constexpr double bfloat16_overflow_threshold = 3.39617752923046e38;  // 0x1.ffp+127 = 0x7f7f8000 as f32
///@}

TD_NAMESPACE_END
