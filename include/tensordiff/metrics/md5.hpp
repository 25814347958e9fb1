// tensordiff — MD5 (RFC 1321) of bytes and of tensors.
//
// MD5 is no longer a security hash; tensordiff uses it (as msprobe's md5
// summary mode does) to tell identical dumps apart quickly. The compression
// function is fully unrolled with the round constants inline, which lets the
// compiler keep the state in registers (~0.6 GB/s per core, like OpenSSL's C
// code).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "../core/tensor_view.hpp"
#include "detail/hash_blocks.hpp"

TD_NAMESPACE_BEGIN

namespace detail {
inline std::uint32_t md5_load_le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
inline std::uint32_t md5_rotl(std::uint32_t x, int s) { return (x << s) | (x >> (32 - s)); }

/// Compresses `blocks` consecutive 64-byte blocks into `state`.
inline void md5_compress(std::uint32_t state[4], const unsigned char* p, std::size_t blocks) {
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  for (; blocks > 0; --blocks, p += 64) {
    std::uint32_t x[16];
    if constexpr (native_byte_order == ByteOrder::little) {
      std::memcpy(x, p, 64);
    } else {
      for (int i = 0; i < 16; ++i) x[i] = md5_load_le32(p + 4 * i);
    }
    const std::uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
    // F and G use the forms with one fewer operation (as OpenSSL does).
    /// \cond detail
#define TD_MD5_STEP(f, w, x_, y, z, k, s) w = md5_rotl(w + f(x_, y, z) + (k), s) + x_
#define TD_MD5_F(x_, y, z) ((((y) ^ (z)) & (x_)) ^ (z))
#define TD_MD5_G(x_, y, z) ((((x_) ^ (y)) & (z)) ^ (y))
#define TD_MD5_H(x_, y, z) ((x_) ^ (y) ^ (z))
#define TD_MD5_I(x_, y, z) ((y) ^ ((x_) | ~(z)))
    /// \endcond
    TD_MD5_STEP(TD_MD5_F, a, b, c, d, x[0] + 0xd76aa478u, 7);
    TD_MD5_STEP(TD_MD5_F, d, a, b, c, x[1] + 0xe8c7b756u, 12);
    TD_MD5_STEP(TD_MD5_F, c, d, a, b, x[2] + 0x242070dbu, 17);
    TD_MD5_STEP(TD_MD5_F, b, c, d, a, x[3] + 0xc1bdceeeu, 22);
    TD_MD5_STEP(TD_MD5_F, a, b, c, d, x[4] + 0xf57c0fafu, 7);
    TD_MD5_STEP(TD_MD5_F, d, a, b, c, x[5] + 0x4787c62au, 12);
    TD_MD5_STEP(TD_MD5_F, c, d, a, b, x[6] + 0xa8304613u, 17);
    TD_MD5_STEP(TD_MD5_F, b, c, d, a, x[7] + 0xfd469501u, 22);
    TD_MD5_STEP(TD_MD5_F, a, b, c, d, x[8] + 0x698098d8u, 7);
    TD_MD5_STEP(TD_MD5_F, d, a, b, c, x[9] + 0x8b44f7afu, 12);
    TD_MD5_STEP(TD_MD5_F, c, d, a, b, x[10] + 0xffff5bb1u, 17);
    TD_MD5_STEP(TD_MD5_F, b, c, d, a, x[11] + 0x895cd7beu, 22);
    TD_MD5_STEP(TD_MD5_F, a, b, c, d, x[12] + 0x6b901122u, 7);
    TD_MD5_STEP(TD_MD5_F, d, a, b, c, x[13] + 0xfd987193u, 12);
    TD_MD5_STEP(TD_MD5_F, c, d, a, b, x[14] + 0xa679438eu, 17);
    TD_MD5_STEP(TD_MD5_F, b, c, d, a, x[15] + 0x49b40821u, 22);

    TD_MD5_STEP(TD_MD5_G, a, b, c, d, x[1] + 0xf61e2562u, 5);
    TD_MD5_STEP(TD_MD5_G, d, a, b, c, x[6] + 0xc040b340u, 9);
    TD_MD5_STEP(TD_MD5_G, c, d, a, b, x[11] + 0x265e5a51u, 14);
    TD_MD5_STEP(TD_MD5_G, b, c, d, a, x[0] + 0xe9b6c7aau, 20);
    TD_MD5_STEP(TD_MD5_G, a, b, c, d, x[5] + 0xd62f105du, 5);
    TD_MD5_STEP(TD_MD5_G, d, a, b, c, x[10] + 0x02441453u, 9);
    TD_MD5_STEP(TD_MD5_G, c, d, a, b, x[15] + 0xd8a1e681u, 14);
    TD_MD5_STEP(TD_MD5_G, b, c, d, a, x[4] + 0xe7d3fbc8u, 20);
    TD_MD5_STEP(TD_MD5_G, a, b, c, d, x[9] + 0x21e1cde6u, 5);
    TD_MD5_STEP(TD_MD5_G, d, a, b, c, x[14] + 0xc33707d6u, 9);
    TD_MD5_STEP(TD_MD5_G, c, d, a, b, x[3] + 0xf4d50d87u, 14);
    TD_MD5_STEP(TD_MD5_G, b, c, d, a, x[8] + 0x455a14edu, 20);
    TD_MD5_STEP(TD_MD5_G, a, b, c, d, x[13] + 0xa9e3e905u, 5);
    TD_MD5_STEP(TD_MD5_G, d, a, b, c, x[2] + 0xfcefa3f8u, 9);
    TD_MD5_STEP(TD_MD5_G, c, d, a, b, x[7] + 0x676f02d9u, 14);
    TD_MD5_STEP(TD_MD5_G, b, c, d, a, x[12] + 0x8d2a4c8au, 20);

    TD_MD5_STEP(TD_MD5_H, a, b, c, d, x[5] + 0xfffa3942u, 4);
    TD_MD5_STEP(TD_MD5_H, d, a, b, c, x[8] + 0x8771f681u, 11);
    TD_MD5_STEP(TD_MD5_H, c, d, a, b, x[11] + 0x6d9d6122u, 16);
    TD_MD5_STEP(TD_MD5_H, b, c, d, a, x[14] + 0xfde5380cu, 23);
    TD_MD5_STEP(TD_MD5_H, a, b, c, d, x[1] + 0xa4beea44u, 4);
    TD_MD5_STEP(TD_MD5_H, d, a, b, c, x[4] + 0x4bdecfa9u, 11);
    TD_MD5_STEP(TD_MD5_H, c, d, a, b, x[7] + 0xf6bb4b60u, 16);
    TD_MD5_STEP(TD_MD5_H, b, c, d, a, x[10] + 0xbebfbc70u, 23);
    TD_MD5_STEP(TD_MD5_H, a, b, c, d, x[13] + 0x289b7ec6u, 4);
    TD_MD5_STEP(TD_MD5_H, d, a, b, c, x[0] + 0xeaa127fau, 11);
    TD_MD5_STEP(TD_MD5_H, c, d, a, b, x[3] + 0xd4ef3085u, 16);
    TD_MD5_STEP(TD_MD5_H, b, c, d, a, x[6] + 0x04881d05u, 23);
    TD_MD5_STEP(TD_MD5_H, a, b, c, d, x[9] + 0xd9d4d039u, 4);
    TD_MD5_STEP(TD_MD5_H, d, a, b, c, x[12] + 0xe6db99e5u, 11);
    TD_MD5_STEP(TD_MD5_H, c, d, a, b, x[15] + 0x1fa27cf8u, 16);
    TD_MD5_STEP(TD_MD5_H, b, c, d, a, x[2] + 0xc4ac5665u, 23);

    TD_MD5_STEP(TD_MD5_I, a, b, c, d, x[0] + 0xf4292244u, 6);
    TD_MD5_STEP(TD_MD5_I, d, a, b, c, x[7] + 0x432aff97u, 10);
    TD_MD5_STEP(TD_MD5_I, c, d, a, b, x[14] + 0xab9423a7u, 15);
    TD_MD5_STEP(TD_MD5_I, b, c, d, a, x[5] + 0xfc93a039u, 21);
    TD_MD5_STEP(TD_MD5_I, a, b, c, d, x[12] + 0x655b59c3u, 6);
    TD_MD5_STEP(TD_MD5_I, d, a, b, c, x[3] + 0x8f0ccc92u, 10);
    TD_MD5_STEP(TD_MD5_I, c, d, a, b, x[10] + 0xffeff47du, 15);
    TD_MD5_STEP(TD_MD5_I, b, c, d, a, x[1] + 0x85845dd1u, 21);
    TD_MD5_STEP(TD_MD5_I, a, b, c, d, x[8] + 0x6fa87e4fu, 6);
    TD_MD5_STEP(TD_MD5_I, d, a, b, c, x[15] + 0xfe2ce6e0u, 10);
    TD_MD5_STEP(TD_MD5_I, c, d, a, b, x[6] + 0xa3014314u, 15);
    TD_MD5_STEP(TD_MD5_I, b, c, d, a, x[13] + 0x4e0811a1u, 21);
    TD_MD5_STEP(TD_MD5_I, a, b, c, d, x[4] + 0xf7537e82u, 6);
    TD_MD5_STEP(TD_MD5_I, d, a, b, c, x[11] + 0xbd3af235u, 10);
    TD_MD5_STEP(TD_MD5_I, c, d, a, b, x[2] + 0x2ad7d2bbu, 15);
    TD_MD5_STEP(TD_MD5_I, b, c, d, a, x[9] + 0xeb86d391u, 21);
#undef TD_MD5_STEP
#undef TD_MD5_F
#undef TD_MD5_G
#undef TD_MD5_H
#undef TD_MD5_I
    a += a0;
    b += b0;
    c += c0;
    d += d0;
  }
  state[0] = a;
  state[1] = b;
  state[2] = c;
  state[3] = d;
}
}  // namespace detail

/// Streaming MD5 (RFC 1321): update() any number of times, then digest().
class Md5 {
 public:
  Md5() noexcept { reset(); }

  /// Starts over with an empty message.
  void reset() noexcept {
    state_[0] = 0x67452301u;
    state_[1] = 0xefcdab89u;
    state_[2] = 0x98badcfeu;
    state_[3] = 0x10325476u;
    length_ = 0;
    buffered_ = 0;
  }

  /// Appends `n` bytes.
  void update(const void* data, std::size_t n) noexcept {
    auto p = static_cast<const unsigned char*>(data);
    length_ += n;
    if (buffered_ > 0) {
      const std::size_t take = n < 64 - buffered_ ? n : 64 - buffered_;
      std::memcpy(buffer_ + buffered_, p, take);
      buffered_ += take;
      p += take;
      n -= take;
      if (buffered_ < 64) return;
      detail::md5_compress(state_, buffer_, 1);
      buffered_ = 0;
    }
    if (n >= 64) {  // whole blocks straight from the input, no copy
      detail::md5_compress(state_, p, n / 64);
      p += n / 64 * 64;
      n %= 64;
    }
    if (n > 0) std::memcpy(buffer_, p, n);
    buffered_ = n;
  }
  /// Appends the bytes of `s` (no terminating NUL).
  void update(std::string_view s) noexcept { update(s.data(), s.size()); }

  /// The 16-byte digest of everything appended. Finalises a copy, so more
  /// update() calls may follow (the digest then covers the longer message).
  std::array<std::uint8_t, 16> digest() const noexcept {
    Md5 m = *this;
    const std::uint64_t bits = m.length_ * 8;
    static constexpr unsigned char pad[64] = {0x80};
    m.update(pad, 1 + (119 - m.buffered_) % 64);  // pad to 56 mod 64
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (8 * i));
    m.update(len, 8);
    std::array<std::uint8_t, 16> out{};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(m.state_[i] >> (8 * j));
    return out;
  }

  /// digest() as 32 lowercase hex digits.
  std::string hex_digest() const {
    const auto d = digest();
    return detail::to_hex(d.data(), d.size());
  }

 private:
  std::uint32_t state_[4];
  std::uint64_t length_;
  std::size_t buffered_;
  unsigned char buffer_[64];
};

/// MD5 of `n` bytes as 32 lowercase hex digits.
inline std::string md5_hex(const void* data, std::size_t n) {
  Md5 m;
  m.update(data, n);
  return m.hex_digest();
}

/// MD5 of a tensor's logical elements: C order, little-endian, the view's own
/// dtype (bfloat16/float16 as their 16-bit patterns, bool as one byte). Equal
/// tensors hash equal whatever their strides or byte order.
inline std::array<std::uint8_t, 16> md5(const TensorView& v) {
  Md5 m;
  detail::for_each_le_block(v, [&](const std::byte* p, std::size_t n) { m.update(p, n); });
  return m.digest();
}

/// md5(v) as 32 lowercase hex digits.
inline std::string md5_hex(const TensorView& v) {
  const auto d = md5(v);
  return detail::to_hex(d.data(), d.size());
}

TD_NAMESPACE_END
