// tensordiff — CRC-32 (zlib / PNG / gzip: reflected polynomial 0xEDB88320) of
// bytes and of tensors. msprobe's "md5" summary column is this CRC-32 of the
// tensor's bytes, printed as 8 lowercase hex digits.
//
// Two paths (detail/crc32_fold.hpp): portable slicing-by-16 tables (~4 bytes/cycle), and
// carry-less multiplication folding (Intel's "Fast CRC computation using PCLMULQDQ", constants as
// in zlib-ng and Chromium) at 64 bytes per step. The folding path is used when the translation
// unit is compiled with PCLMUL and SSE4.1, or, with GCC/Clang on x86-64, selected at run time when
// the CPU has them. Transposed views fold many rows side by side (detail/crc32_transposed.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../core/tensor_view.hpp"
#include "detail/crc32_fold.hpp"
#include "detail/crc32_transposed.hpp"
#include "detail/hash_blocks.hpp"

TD_NAMESPACE_BEGIN

/// Extends a CRC-32 with `n` more bytes; start from 0. Same results as zlib's
/// crc32(crc, data, n): crc32_update(0, "123456789", 9) == 0xcbf43926.
inline std::uint32_t crc32_update(std::uint32_t crc, const void* data, std::size_t n) noexcept {
  return detail::crc32_update_clmul(crc, data, n);
}

/// CRC-32 of `n` bytes.
inline std::uint32_t crc32(const void* data, std::size_t n) noexcept { return crc32_update(0, data, n); }

/// CRC-32 of A followed by B, from crc_a = crc32(A), crc_b = crc32(B) and len_b = |B| in bytes, as
/// zlib's crc32_combine: lets pieces be hashed apart (threads, shards) and joined in order.
constexpr std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t len_b) noexcept {
  return detail::crc32_combine_with(crc_a, crc_b, detail::crc32_shift_operator(len_b));
}

/// CRC-32 of a tensor's logical elements: C order, little-endian, the view's
/// own dtype (bfloat16 as its 16-bit pattern). Equal tensors hash equal
/// whatever their strides or byte order.
inline std::uint32_t crc32(const TensorView& v) {
  std::uint32_t c = 0;
  if (detail::crc32_transposed(v, c)) return c;
  detail::for_each_le_block(v, [&](const std::byte* p, std::size_t n) { c = crc32_update(c, p, n); });
  return c;
}

/// A CRC-32 as msprobe prints it: 8 lowercase hex digits, zero-padded.
inline std::string crc32_hex(std::uint32_t crc) {
  const std::uint8_t be[4] = {static_cast<std::uint8_t>(crc >> 24), static_cast<std::uint8_t>(crc >> 16),
                              static_cast<std::uint8_t>(crc >> 8), static_cast<std::uint8_t>(crc)};
  return detail::to_hex(be, 4);
}
/// CRC-32 of `n` bytes as msprobe prints it (8 lowercase hex digits).
inline std::string crc32_hex(const void* data, std::size_t n) { return crc32_hex(crc32(data, n)); }
/// CRC-32 of a tensor's logical elements (see crc32(const TensorView&)) as 8 lowercase hex digits.
inline std::string crc32_hex(const TensorView& v) { return crc32_hex(crc32(v)); }

/// msprobe's hash of a non-tensor item: CRC-32 of the text of str(value)
/// ("-1" -> "302d482a").
inline std::string crc32_of_string(std::string_view s) { return crc32_hex(s.data(), s.size()); }

TD_NAMESPACE_END
