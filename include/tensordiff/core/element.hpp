// tensordiff — element storage types as the kernels see them, and their exact
// conversion to double.
#pragma once
#include <cstdint>
#include <type_traits>

#include "dtype.hpp"

TD_NAMESPACE_BEGIN

/// Storage of DType::boolean inside kernels. Any non-zero byte is true; read as
/// a byte so a file holding 2 in a bool tensor is not undefined behaviour.
struct bool8 {
  /// The stored byte: 0 is false, anything else true.
  std::uint8_t bits;
};

namespace detail {
template <class T> TD_HOST_DEVICE inline double to_double(T x) {
  if constexpr (std::is_same_v<T, bool8>) return x.bits != 0 ? 1.0 : 0.0;
  else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float8_e4m3fn> ||
                     std::is_same_v<T, float8_e5m2>)
    return static_cast<double>(static_cast<float>(x));
  else return static_cast<double>(x);
}

template <class T> inline constexpr bool is_integral_storage_v = std::is_integral_v<T> || std::is_same_v<T, bool8>;

/// The integer held by an integral storage type (bool8 -> 0/1).
template <class T> TD_HOST_DEVICE inline auto as_integer(T x) {
  if constexpr (std::is_same_v<T, bool8>) return static_cast<std::uint8_t>(x.bits != 0);
  else return x;
}

/// |a - b| of two integers of any width and signedness, computed exactly and
/// rounded once to double. Compare-and-subtract modulo 2^64 keeps int64/uint64
/// pairs exact far beyond 2^53; int64 vs uint64 of opposite signs can differ
/// by up to 2^64 + 2^63, which is rounded from the exact 65-bit value.
template <class TA, class TB> TD_HOST_DEVICE inline double exact_abs_diff(TA a_raw, TB b_raw) {
  const auto a = as_integer(a_raw);
  const auto b = as_integer(b_raw);
  using A = decltype(a);
  using B = decltype(b);
  if constexpr (sizeof(A) < 8 && sizeof(B) < 8) {
    const std::int64_t d = static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b);
    return static_cast<double>(d < 0 ? -d : d);
  } else {
    const bool a_neg = std::is_signed_v<A> && a < 0;
    const bool b_neg = std::is_signed_v<B> && b < 0;
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    // Same sign: the unsigned order of the two's-complement bits is the
    // numeric order and the difference fits in 64 bits.
    if (a_neg == b_neg) return static_cast<double>(ua < ub ? ub - ua : ua - ub);
    // Opposite signs: |negative| + positive, which may carry into bit 64.
    const std::uint64_t pos = a_neg ? ub : ua;
    const std::uint64_t s = (0 - (a_neg ? ua : ub)) + pos;
    if (s >= pos) return static_cast<double>(s);
    // 2^64 + s with s < 2^63: doubles there are 2^12 apart; round to nearest, ties to even.
    std::uint64_t q = s >> 12;
    const std::uint64_t rem = s & 4095u;
    if (rem > 2048u || (rem == 2048u && (q & 1u))) ++q;
    return 18446744073709551616.0 + static_cast<double>(q << 12);
  }
}
}  // namespace detail

TD_NAMESPACE_END
