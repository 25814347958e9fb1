// tensordiff — the byte stream that md5() and crc32() hash: a view's logical
// elements in C order, each little-endian, in the view's own dtype.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../../core/detail/runs.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// f(const std::byte*, std::size_t) over the little-endian element bytes of
/// `v` in C order. Strides, broadcasting and the view's byte order do not
/// change the stream, so equal tensors hash equal.
template <class F> void for_each_le_block(const TensorView& v, F&& f) {
  if constexpr (native_byte_order == ByteOrder::little) {
    for_each_native_block(v, f);
  } else {  // big-endian host: native blocks are swapped back item by item
    const std::size_t item = v.itemsize();
    for_each_native_block(v, [&](const std::byte* p, std::size_t bytes) {
      alignas(16) std::byte buf[4096];
      for (std::size_t done = 0; done < bytes;) {
        const std::size_t m = std::min<std::size_t>(sizeof buf / item * item, bytes - done);
        for (std::size_t i = 0; i < m; i += item)
          for (std::size_t j = 0; j < item; ++j) buf[i + j] = p[done + i + item - 1 - j];
        f(static_cast<const std::byte*>(buf), m);
        done += m;
      }
    });
  }
}

/// Lowercase hex of `n` bytes.
inline std::string to_hex(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = digits[p[i] >> 4];
    s[2 * i + 1] = digits[p[i] & 15];
  }
  return s;
}

}  // namespace detail
TD_NAMESPACE_END
