// tensordiff — element types: the runtime tag, its C++ type, canonical names
// and the parsers for numpy descr, PyTorch and MindSpore spellings.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "error.hpp"
#include "float8.hpp"
#include "half.hpp"

TD_NAMESPACE_BEGIN

/// Runtime element type. Complex types are readable (a view may hold them) but
/// compare() rejects them with ErrorCategory::unsupported: msprobe's metrics
/// are undefined on complex data and silently taking |z| or Re(z) would hide a
/// real difference. Compare `real`/`imag` views explicitly instead.
enum class DType : std::uint8_t {
  /// bool, one byte per element (any non-zero byte is true).
  boolean,
  /// Signed 8-bit integer.
  int8,
  /// Unsigned 8-bit integer.
  uint8,
  /// Signed 16-bit integer.
  int16,
  /// Unsigned 16-bit integer.
  uint16,
  /// Signed 32-bit integer.
  int32,
  /// Unsigned 32-bit integer.
  uint32,
  /// Signed 64-bit integer (compared exactly, also beyond 2^53).
  int64,
  /// Unsigned 64-bit integer (compared exactly, also beyond 2^53).
  uint64,
  /// IEEE binary16 (tensordiff::float16).
  float16,
  /// Brain float 16 (tensordiff::bfloat16).
  bfloat16,
  /// IEEE binary32 (float).
  float32,
  /// IEEE binary64 (double).
  float64,
  /// Two float32: real, imaginary (readable, not comparable).
  complex64,
  /// Two float64: real, imaginary (readable, not comparable).
  complex128,
  /// OCP FP8 E4M3FN (tensordiff::float8_e4m3fn; no inf, max 448). Appended: earlier values keep their numbers.
  float8_e4m3fn,
  /// OCP FP8 E5M2 (tensordiff::float8_e5m2; IEEE-like inf/NaN, max 57344).
  float8_e5m2,
};

/// Every DType, in declaration order: for loops and tests that cover each element type.
inline constexpr DType all_dtypes[] = {
    DType::boolean, DType::int8,    DType::uint8,    DType::int16,   DType::uint16,
    DType::int32,   DType::uint32,  DType::int64,    DType::uint64,  DType::float16,
    DType::bfloat16, DType::float32, DType::float64, DType::complex64, DType::complex128,
    DType::float8_e4m3fn, DType::float8_e5m2};

/// Canonical name: bool, int8, …, bfloat16, float32, complex128.
constexpr const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::boolean: return "bool";
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
    case DType::int16: return "int16";
    case DType::uint16: return "uint16";
    case DType::int32: return "int32";
    case DType::uint32: return "uint32";
    case DType::int64: return "int64";
    case DType::uint64: return "uint64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::complex64: return "complex64";
    case DType::complex128: return "complex128";
    case DType::float8_e4m3fn: return "float8_e4m3fn";
    case DType::float8_e5m2: return "float8_e5m2";
  }
  return "?";
}

/// Bytes per element: 1 for bool (stored as one byte, as numpy and PyTorch do) up to 16 for
/// complex128.
constexpr std::size_t dtype_size(DType t) noexcept {
  switch (t) {
    case DType::boolean:
    case DType::int8:
    case DType::uint8:
    case DType::float8_e4m3fn:
    case DType::float8_e5m2: return 1;
    case DType::int16:
    case DType::uint16:
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::int32:
    case DType::uint32:
    case DType::float32: return 4;
    case DType::int64:
    case DType::uint64:
    case DType::float64:
    case DType::complex64: return 8;
    case DType::complex128: return 16;
  }
  return 0;
}

/// True for the real floating-point types float8_e4m3fn, float8_e5m2, float16, bfloat16, float32
/// and float64 (not complex).
constexpr bool is_floating(DType t) noexcept {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64 ||
         t == DType::float8_e4m3fn || t == DType::float8_e5m2;
}
/// True for complex64 and complex128.
constexpr bool is_complex(DType t) noexcept {
  return t == DType::complex64 || t == DType::complex128;
}
/// True for bool and the signed and unsigned integers: compared exactly, never with a relative
/// tolerance's float rounding in mind.
constexpr bool is_integral(DType t) noexcept {  // bool counts as integral
  return !is_floating(t) && !is_complex(t);
}
/// True for int8, int16, int32 and int64 (bool is not signed).
constexpr bool is_signed_integer(DType t) noexcept {
  return t == DType::int8 || t == DType::int16 || t == DType::int32 || t == DType::int64;
}

/// C++ storage type of a DType, and back.
template <DType T> struct dtype_traits;
/// Defines dtype_traits<DType::TAG>::type = TYPE (undefined again after the 17 uses).
#define TD_DTYPE_TRAIT(TAG, TYPE)                          \
  template <> struct dtype_traits<DType::TAG> {            \
    using type = TYPE;                                     \
  };
TD_DTYPE_TRAIT(boolean, bool)
TD_DTYPE_TRAIT(int8, std::int8_t)
TD_DTYPE_TRAIT(uint8, std::uint8_t)
TD_DTYPE_TRAIT(int16, std::int16_t)
TD_DTYPE_TRAIT(uint16, std::uint16_t)
TD_DTYPE_TRAIT(int32, std::int32_t)
TD_DTYPE_TRAIT(uint32, std::uint32_t)
TD_DTYPE_TRAIT(int64, std::int64_t)
TD_DTYPE_TRAIT(uint64, std::uint64_t)
TD_DTYPE_TRAIT(float16, ::tensordiff::float16)
TD_DTYPE_TRAIT(bfloat16, ::tensordiff::bfloat16)
TD_DTYPE_TRAIT(float32, float)
TD_DTYPE_TRAIT(float64, double)
TD_DTYPE_TRAIT(complex64, std::complex<float>)
TD_DTYPE_TRAIT(complex128, std::complex<double>)
TD_DTYPE_TRAIT(float8_e4m3fn, ::tensordiff::float8_e4m3fn)
TD_DTYPE_TRAIT(float8_e5m2, ::tensordiff::float8_e5m2)
#undef TD_DTYPE_TRAIT

/// The C++ type of a DType: dtype_type_t<DType::float32> is float, <DType::bfloat16> is
/// tensordiff::bfloat16, <DType::boolean> is bool (kernels read it as bool8 instead).
template <DType T> using dtype_type_t = typename dtype_traits<T>::type;

/// The DType of a C++ element type, the inverse of dtype_type_t (dtype_of<float>() is
/// DType::float32). A type without a DType fails to compile.
template <class T> constexpr DType dtype_of() noexcept {
  if constexpr (std::is_same_v<T, bool>) return DType::boolean;
  else if constexpr (std::is_same_v<T, std::int8_t>) return DType::int8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::uint8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DType::int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return DType::uint16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DType::uint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::int64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return DType::uint64;
  else if constexpr (std::is_same_v<T, float16>) return DType::float16;
  else if constexpr (std::is_same_v<T, bfloat16>) return DType::bfloat16;
  else if constexpr (std::is_same_v<T, float>) return DType::float32;
  else if constexpr (std::is_same_v<T, double>) return DType::float64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DType::complex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DType::complex128;
  else if constexpr (std::is_same_v<T, float8_e4m3fn>) return DType::float8_e4m3fn;
  else if constexpr (std::is_same_v<T, float8_e5m2>) return DType::float8_e5m2;
  else static_assert(sizeof(T) == 0, "type has no tensordiff DType");
}

/// Parses a canonical name or a framework spelling: numpy descr ("<f4", "|b1",
/// ">i8", "<V2" is not a dtype), "torch.bfloat16", "torch.float8_e4m3fn", MindSpore "BFloat16" /
/// "Float32", numpy names ("float32", "bool_", "half"). Returns nullopt when
/// unknown; the byte order of a descr is reported through `big_endian`.
inline std::optional<DType> parse_dtype(std::string_view s, bool* big_endian = nullptr) {
  if (big_endian) *big_endian = false;
  if (s.size() >= 3 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    const bool be = s[0] == '>';
    const std::string_view code = s.substr(1);
    std::optional<DType> t;
    if (code == "b1") t = DType::boolean;
    else if (code == "i1") t = DType::int8;
    else if (code == "u1") t = DType::uint8;
    else if (code == "i2") t = DType::int16;
    else if (code == "u2") t = DType::uint16;
    else if (code == "i4") t = DType::int32;
    else if (code == "u4") t = DType::uint32;
    else if (code == "i8") t = DType::int64;
    else if (code == "u8") t = DType::uint64;
    else if (code == "f2") t = DType::float16;
    else if (code == "f4") t = DType::float32;
    else if (code == "f8") t = DType::float64;
    else if (code == "c8") t = DType::complex64;
    else if (code == "c16") t = DType::complex128;
    if (t && big_endian) *big_endian = be && dtype_size(*t) > 1;
    return t;
  }
  if (s.substr(0, 6) == "torch.") s.remove_prefix(6);
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  struct Alias {
    const char* name;
    DType type;
  };
  static constexpr Alias aliases[] = {
      {"bool", DType::boolean},      {"bool_", DType::boolean},      {"int8", DType::int8},
      {"uint8", DType::uint8},       {"int16", DType::int16},        {"short", DType::int16},
      {"uint16", DType::uint16},     {"int32", DType::int32},        {"int", DType::int32},
      {"uint32", DType::uint32},     {"int64", DType::int64},        {"long", DType::int64},
      {"uint64", DType::uint64},     {"float16", DType::float16},    {"half", DType::float16},
      {"bfloat16", DType::bfloat16}, {"float32", DType::float32},    {"float", DType::float32},
      {"float64", DType::float64},   {"double", DType::float64},     {"complex64", DType::complex64},
      {"cfloat", DType::complex64},  {"complex128", DType::complex128}, {"cdouble", DType::complex128},
      {"float8_e4m3fn", DType::float8_e4m3fn}, {"float8_e5m2", DType::float8_e5m2},
      {"float8e4m3fn", DType::float8_e4m3fn},  {"float8e5m2", DType::float8_e5m2},  // MindSpore-style
  };
  for (const Alias& a : aliases)
    if (lower == a.name) return a.type;
  return std::nullopt;
}

/// parse_dtype() that throws Error{unsupported} naming the string.
inline DType parse_dtype_or_throw(std::string_view s, const ErrorContext& where = {}) {
  if (auto t = parse_dtype(s)) return *t;
  throw Error(ErrorCategory::unsupported, "unknown dtype '" + std::string(s) + "'", where);
}

TD_NAMESPACE_END
