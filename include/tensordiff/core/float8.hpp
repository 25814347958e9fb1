// tensordiff — 8-bit floating-point storage types (OCP FP8: E4M3FN and E5M2,
// torch.float8_e4m3fn / torch.float8_e5m2, ml_dtypes float8_e4m3fn / float8_e5m2).
//
// One-byte structs holding the bit pattern. Widening to float is exact (every
// FP8 value is a float). Narrowing rounds to nearest, ties to even, as PyTorch
// does (non-saturating): E5M2 overflows to ±inf; E4M3FN has no infinity, so a
// magnitude that rounds beyond 448 becomes NaN (S.1111.111).
#pragma once
#include <cstdint>
#include <type_traits>

#include "half.hpp"

TD_NAMESPACE_BEGIN

namespace detail {
/// Decodes an FP8 pattern with `mbits` mantissa bits and exponent `bias`
/// (exponent bits = 7 - mbits). `has_inf`: IEEE-like all-ones exponent (E5M2);
/// otherwise only S.1111.111 is NaN and the rest of the top binade is finite (E4M3FN).
TD_HOST_DEVICE inline float fp8_bits_to_f32(std::uint8_t b, unsigned mbits, unsigned bias, bool has_inf) {
  const std::uint32_t sign = static_cast<std::uint32_t>(b & 0x80u) << 24;
  const unsigned emax = (1u << (7u - mbits)) - 1u;
  const std::uint32_t e = (b >> mbits) & emax;
  const std::uint32_t m = b & ((1u << mbits) - 1u);
  if (has_inf && e == emax) return bits_float(sign | 0x7f800000u | (m ? 0x400000u : 0u));
  if (!has_inf && e == emax && m == (1u << mbits) - 1u) return bits_float(sign | 0x7fc00000u);
  if (e == 0) {  // subnormal: m * 2^(1 - bias - mbits), exact in float
    const float unit = bits_float((127u + 1u - bias - mbits) << 23);
    const float v = static_cast<float>(m) * unit;
    return sign ? -v : v;
  }
  return bits_float(sign | ((e + 127u - bias) << 23) | (m << (23u - mbits)));
}

/// Rounds a float to the FP8 format of fp8_bits_to_f32 (nearest, ties to even).
TD_HOST_DEVICE inline std::uint8_t f32_to_fp8_bits(float f, unsigned mbits, unsigned bias, bool has_inf) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 24) & 0x80u;
  const std::uint32_t ax = x & 0x7fffffffu;
  const std::uint32_t nan = has_inf ? 0x7eu : 0x7fu;  // E5M2: quiet NaN 0.11111.10
  const std::uint32_t top = has_inf ? 0x7cu : 0x7eu;  // inf (E5M2) / largest finite (E4M3FN)
  if (ax > 0x7f800000u) return static_cast<std::uint8_t>(sign | nan);
  if (ax == 0x7f800000u) return static_cast<std::uint8_t>(sign | (has_inf ? top : nan));
  const std::uint32_t min_normal_e = 127u + 1u - bias;  // f32 biased exponent of the smallest FP8 normal
  const std::uint32_t e = ax >> 23;
  std::uint32_t r;
  if (e < min_normal_e) {  // FP8 subnormal or zero: value / 2^(1 - bias - mbits)
    const std::uint32_t shift = 23u + min_normal_e - mbits - (e ? e : 1u);
    if (shift > 25u) return static_cast<std::uint8_t>(sign);
    r = shift_right_rne((ax & 0x7fffffu) | (e ? 0x800000u : 0u), shift);
  } else {  // normal: rebias; a mantissa carry bumps the exponent
    r = shift_right_rne(ax - ((127u - bias) << 23), 23u - mbits);
  }
  if (has_inf ? r >= top : r > top) r = has_inf ? top : nan;
  return static_cast<std::uint8_t>(sign | r);
}
}  // namespace detail

/// One byte of an OCP FP8 format with `Mantissa` mantissa bits and exponent bias `Bias`;
/// `Ieee`: IEEE-like ±inf and NaNs (E5M2), else no infinity and one NaN pattern per sign
/// (E4M3FN). `Format` is the named struct deriving from it (float8_e4m3fn, float8_e5m2):
/// named structs, not aliases, so that DType's enumerators of the same names shadow nothing.
template <class Format, unsigned Mantissa, unsigned Bias, bool Ieee>
struct float8_format {
  /// The raw bit pattern, as stored in files and device memory.
  std::uint8_t bits;

  /// Uninitialised, like a built-in float (keeps the type trivial).
  float8_format() = default;
  /// Rounds `f` to nearest, ties to even, as PyTorch does: overflow (after rounding) and ±inf
  /// give NaN in E4M3FN and ±inf in E5M2; NaN stays NaN.
  TD_HOST_DEVICE explicit float8_format(float f) : bits(detail::f32_to_fp8_bits(f, Mantissa, Bias, Ieee)) {}
  /// The value whose bit pattern is `b`.
  TD_HOST_DEVICE static constexpr Format from_bits(std::uint8_t b) {
    Format h{};
    h.bits = b;
    return h;
  }
  /// The exact value as float.
  TD_HOST_DEVICE explicit operator float() const { return detail::fp8_bits_to_f32(bits, Mantissa, Bias, Ieee); }
  /// The exact value as double (via float, which is exact).
  TD_HOST_DEVICE explicit operator double() const { return detail::fp8_bits_to_f32(bits, Mantissa, Bias, Ieee); }
};

/// OCP FP8 E4M3FN (torch.float8_e4m3fn): 4 exponent bits (bias 7), 3 mantissa
/// bits, no infinity, NaN = S.1111.111, largest finite ±448.
struct float8_e4m3fn : float8_format<float8_e4m3fn, 3, 7, false> {
  using float8_format::float8_format;
};
/// OCP FP8 E5M2 (torch.float8_e5m2): 5 exponent bits (bias 15), 2 mantissa
/// bits, IEEE-like ±inf and NaNs, largest finite ±57344 (the top byte of a float16).
struct float8_e5m2 : float8_format<float8_e5m2, 2, 15, true> {
  using float8_format::float8_format;
};

static_assert(sizeof(float8_e4m3fn) == 1 && sizeof(float8_e5m2) == 1, "8-bit types must be packed");
static_assert(std::is_trivial_v<float8_e4m3fn> && std::is_trivial_v<float8_e5m2>, "trivial, like float");

/// Largest finite float8_e4m3fn: 1.75 * 2^8 = 448 (0x7e).
inline constexpr double float8_e4m3fn_max = 448.0;
/// Largest finite float8_e5m2: 1.75 * 2^15 = 57344 (0x7b).
inline constexpr double float8_e5m2_max = 57344.0;

TD_NAMESPACE_END
