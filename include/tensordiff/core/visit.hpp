// tensordiff — compile-time dispatch: runtime dtypes to typed calls.
#pragma once
#include <utility>

#include "element.hpp"

TD_NAMESPACE_BEGIN

/// A type carried as a value, so generic lambdas can receive it.
template <class T> struct type_tag {
  /// The carried type T; a generic lambda taking `auto tag` names it as decltype(tag)'s member `type`.
  using type = T;
};

/// Calls `f(type_tag<S>{})` with the kernel storage type S of a real (non-complex)
/// dtype: bool8 for bool, float16/bfloat16/float8 structs, fundamental types otherwise.
/// Complex dtypes throw Error{unsupported} naming `what`.
template <class F> decltype(auto) visit_real_dtype(DType t, F&& f, const char* what = "this operation") {
  switch (t) {
    case DType::boolean: return f(type_tag<bool8>{});
    case DType::int8: return f(type_tag<std::int8_t>{});
    case DType::uint8: return f(type_tag<std::uint8_t>{});
    case DType::int16: return f(type_tag<std::int16_t>{});
    case DType::uint16: return f(type_tag<std::uint16_t>{});
    case DType::int32: return f(type_tag<std::int32_t>{});
    case DType::uint32: return f(type_tag<std::uint32_t>{});
    case DType::int64: return f(type_tag<std::int64_t>{});
    case DType::uint64: return f(type_tag<std::uint64_t>{});
    case DType::float16: return f(type_tag<float16>{});
    case DType::bfloat16: return f(type_tag<bfloat16>{});
    case DType::float32: return f(type_tag<float>{});
    case DType::float64: return f(type_tag<double>{});
    case DType::float8_e4m3fn: return f(type_tag<float8_e4m3fn>{});
    case DType::float8_e5m2: return f(type_tag<float8_e5m2>{});
    case DType::complex64:
    case DType::complex128: break;
  }
  throw Error(ErrorCategory::unsupported, std::string(what) + " does not support " + dtype_name(t) +
                                              " (compare real and imaginary parts as separate views)");
}

/// Typed call for every supported pair: `f(type_tag<SA>{}, type_tag<SB>{})`.
/// All 15 × 15 pairs are instantiated, so mixed pairs (bf16 vs f32) compare
/// without rounding either side.
template <class F> decltype(auto) visit_real_dtypes(DType a, DType b, F&& f, const char* what = "this operation") {
  return visit_real_dtype(
      a,
      [&](auto ta) -> decltype(auto) {
        return visit_real_dtype(b, [&](auto tb) -> decltype(auto) { return f(ta, tb); }, what);
      },
      what);
}

TD_NAMESPACE_END
