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
  std::uint8_t bits;
};

namespace detail {
template <class T> TD_HOST_DEVICE inline double to_double(T x) {
  if constexpr (std::is_same_v<T, bool8>) return x.bits != 0 ? 1.0 : 0.0;
  else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<double>(static_cast<float>(x));
  else return static_cast<double>(x);
}

template <class T> inline constexpr bool is_integral_storage_v = std::is_integral_v<T> || std::is_same_v<T, bool8>;

/// The integer held by an integral storage type (bool8 -> 0/1).
template <class T> TD_HOST_DEVICE inline auto as_integer(T x) {
  if constexpr (std::is_same_v<T, bool8>) return static_cast<std::uint8_t>(x.bits != 0);
  else return x;
}

/// Exact |a - b| of two integers of any width and signedness, as uint64 (the
/// true difference always fits). Compare-and-subtract modulo 2^64 keeps
/// int64/uint64 pairs exact far beyond 2^53.
template <class TA, class TB> TD_HOST_DEVICE inline std::uint64_t exact_abs_diff(TA a_raw, TB b_raw) {
  const auto a = as_integer(a_raw);
  const auto b = as_integer(b_raw);
  using A = decltype(a);
  using B = decltype(b);
  if constexpr (sizeof(A) < 8 && sizeof(B) < 8) {
    const std::int64_t d = static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b);
    return d < 0 ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
  } else {
    const bool a_neg = std::is_signed_v<A> && a < 0;
    const bool b_neg = std::is_signed_v<B> && b < 0;
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    // Different signs: the negative one is smaller. Same sign: the unsigned
    // order of the two's-complement bits is the numeric order.
    const bool a_less = a_neg != b_neg ? a_neg : ua < ub;
    return a_less ? ub - ua : ua - ub;
  }
}
}  // namespace detail

TD_NAMESPACE_END
