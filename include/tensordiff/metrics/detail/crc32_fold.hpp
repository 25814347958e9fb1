// tensordiff — the CRC-32 engine behind metrics/crc32.hpp: slicing-by-16 tables,
// carry-less multiplication folding, and the polynomial arithmetic of crc32_combine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../core/tensor_view.hpp"

/// \cond detail
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TD_CRC32_HAVE_CLMUL 1
#if defined(__PCLMUL__) && defined(__SSE4_1__)
#define TD_CRC32_CLMUL_STATIC 1  // compiled in: no run-time check needed
#define TD_CRC32_CLMUL_TARGET
#else
#define TD_CRC32_CLMUL_STATIC 0
#define TD_CRC32_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))
#endif
#else
#define TD_CRC32_HAVE_CLMUL 0
#endif
/// \endcond

TD_NAMESPACE_BEGIN
namespace detail {

/// c·x modulo P on a bit-reflected register: one bit of the table-free CRC.
constexpr std::uint32_t crc32_times_x(std::uint32_t c) noexcept { return (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u))); }

/// tables[k][b]: CRC of byte b followed by k zero bytes.
struct Crc32Tables {
  std::uint32_t t[16][256];
};
constexpr Crc32Tables make_crc32_tables() {
  Crc32Tables r{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = crc32_times_x(c);
    r.t[0][b] = c;
  }
  for (int k = 1; k < 16; ++k)
    for (std::uint32_t b = 0; b < 256; ++b) r.t[k][b] = (r.t[k - 1][b] >> 8) ^ r.t[0][r.t[k - 1][b] & 0xffu];
  return r;
}
inline constexpr Crc32Tables crc32_tables = make_crc32_tables();

/// Portable path on the pre- and post-inverted register `c`.
inline std::uint32_t crc32_slice16(std::uint32_t c, const unsigned char* p, std::size_t n) noexcept {
  const auto& t = crc32_tables.t;
  if constexpr (native_byte_order == ByteOrder::little) {
    for (; n >= 16; n -= 16, p += 16) {
      std::uint32_t w[4];
      std::memcpy(w, p, 16);
      w[0] ^= c;
      c = t[15][w[0] & 0xff] ^ t[14][(w[0] >> 8) & 0xff] ^ t[13][(w[0] >> 16) & 0xff] ^ t[12][w[0] >> 24] ^
          t[11][w[1] & 0xff] ^ t[10][(w[1] >> 8) & 0xff] ^ t[9][(w[1] >> 16) & 0xff] ^ t[8][w[1] >> 24] ^
          t[7][w[2] & 0xff] ^ t[6][(w[2] >> 8) & 0xff] ^ t[5][(w[2] >> 16) & 0xff] ^ t[4][w[2] >> 24] ^
          t[3][w[3] & 0xff] ^ t[2][(w[3] >> 8) & 0xff] ^ t[1][(w[3] >> 16) & 0xff] ^ t[0][w[3] >> 24];
    }
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ t[0][(c ^ *p) & 0xffu];
  return c;
}

#if TD_CRC32_HAVE_CLMUL
/// acc * x^128 + next (mod P), as a 128-bit remainder-equivalent.
TD_CRC32_CLMUL_TARGET inline __m128i crc32_fold128(__m128i acc, __m128i next, __m128i k) noexcept {
  const __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(hi, next), lo);
}

/// x^(128±32) mod P, bit-reflected: folds a 128-bit accumulator over the next 16 bytes.
TD_CRC32_CLMUL_TARGET inline __m128i crc32_fold16_constants() noexcept { return _mm_set_epi64x(0x00ccaa009e, 0x01751997d0); }

/// The inverted CRC register of a 128-bit folding accumulator: 128 -> 64 bits, then 64 -> 32 by
/// Barrett reduction.
TD_CRC32_CLMUL_TARGET inline std::uint32_t crc32_clmul_reduce(__m128i x1) noexcept {
  const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
  const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
  const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
  __m128i x2 = _mm_clmulepi64_si128(x1, crc32_fold16_constants(), 0x10);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_and_si128(x1, mask32);
  x1 = _mm_clmulepi64_si128(x1, k5, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  x2 = _mm_and_si128(x1, mask32);
  x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
  x2 = _mm_and_si128(x2, mask32);
  x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return static_cast<std::uint32_t>(_mm_extract_epi32(x1, 1));
}

/// Folding path on the inverted register; n >= 64 and a multiple of 16.
TD_CRC32_CLMUL_TARGET inline std::uint32_t crc32_clmul_fold(std::uint32_t crc, const unsigned char* buf,
                                                            std::size_t len) noexcept {
  // x^(4*128±32) mod P, bit-reflected: four lanes, 64 bytes a step.
  const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
  const __m128i k3k4 = crc32_fold16_constants();

  __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x00));
  __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x10));
  __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x20));
  __m128i x4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x30));
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(crc)));
  buf += 64;
  len -= 64;
  for (; len >= 64; buf += 64, len -= 64) {  // four independent 128-bit lanes
    const __m128i x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
    const __m128i x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
    const __m128i x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
    const __m128i x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
    x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
    x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
    x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x00)));
    x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x10)));
    x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x20)));
    x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x30)));
  }
  x1 = crc32_fold128(x1, x2, k3k4);
  x1 = crc32_fold128(x1, x3, k3k4);
  x1 = crc32_fold128(x1, x4, k3k4);
  for (; len >= 16; buf += 16, len -= 16)
    x1 = crc32_fold128(x1, _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf)), k3k4);

  return crc32_clmul_reduce(x1);
}

/// Whether the folding path can run here.
inline bool crc32_clmul_available() noexcept {
#if TD_CRC32_CLMUL_STATIC
  return true;
#else
  static const bool ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return ok;
#endif
}
#else
inline bool crc32_clmul_available() noexcept { return false; }
#endif

/// The portable path alone (tests compare it with the folding path).
inline std::uint32_t crc32_update_portable(std::uint32_t crc, const void* data, std::size_t n) noexcept {
  return ~crc32_slice16(~crc, static_cast<const unsigned char*>(data), n);
}

/// The folding path for the bulk, the tables for the tail; the portable path
/// where folding is unavailable.
inline std::uint32_t crc32_update_clmul(std::uint32_t crc, const void* data, std::size_t n) noexcept {
  auto p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
#if TD_CRC32_HAVE_CLMUL
  if (n >= 64 && crc32_clmul_available()) {
    const std::size_t bulk = n & ~std::size_t{15};
    c = crc32_clmul_fold(c, p, bulk);
    p += bulk;
    n -= bulk;
  }
#endif
  return ~crc32_slice16(c, p, n);
}

/// a·b modulo P, both polynomials bit-reflected (x^0 in bit 31), as zlib's crc32_combine uses them.
constexpr std::uint32_t crc32_multmodp(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t p = 0;
  for (std::uint32_t m = 1u << 31; m; m >>= 1) {
    if (a & m) p ^= b;
    b = crc32_times_x(b);
  }
  return p;
}

/// x^(2^k) mod P, k = 0 … 31, bit-reflected.
struct Crc32Powers {
  std::uint32_t x2k[32];
};
constexpr Crc32Powers make_crc32_powers() {
  Crc32Powers r{};
  std::uint32_t p = 1u << 30;  // x^1
  for (auto& e : r.x2k) {
    e = p;
    p = crc32_multmodp(p, p);
  }
  return r;
}
inline constexpr Crc32Powers crc32_powers = make_crc32_powers();

/// x^(n·2^k) mod P (zlib's x2nmodp): x^(2^32) = x, so the table index wraps.
constexpr std::uint32_t crc32_x_power(std::uint64_t n, unsigned k) noexcept {
  std::uint32_t p = 1u << 31;  // x^0
  for (; n; n >>= 1, ++k)
    if (n & 1) p = crc32_multmodp(crc32_powers.x2k[k & 31], p);
  return p;
}

/// x^(8·n) mod P: the operator that shifts a CRC over n zero bytes (crc32_combine's `op`).
constexpr std::uint32_t crc32_shift_operator(std::uint64_t n) noexcept { return crc32_x_power(n, 3); }

/// CRC-32 of A followed by B from crc(A), crc(B) and op = crc32_shift_operator(|B|): the
/// pre- and post-inversions cancel, so this is one multiplication.
constexpr std::uint32_t crc32_combine_with(std::uint32_t crc_a, std::uint32_t crc_b, std::uint32_t op) noexcept {
  return crc32_multmodp(op, crc_a) ^ crc_b;
}

#if TD_CRC32_HAVE_CLMUL
/// crc32_combine_with by one carry-less multiply: crc32_clmul_reduce of the 64-bit product moved
/// up by 64 bits is a·b·x^33, so `op` here is crc32_x_power(8·|B| − 33, 0) (|B| ≥ 5 bytes).
TD_CRC32_CLMUL_TARGET inline std::uint32_t crc32_clmul_combine(std::uint32_t crc_a, std::uint32_t crc_b,
                                                               std::uint32_t op) noexcept {
  const __m128i product = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(op)),
                                               _mm_cvtsi32_si128(static_cast<int>(crc_a)), 0x00);
  return crc32_clmul_reduce(_mm_slli_si128(product, 8)) ^ crc_b;
}
#endif

}  // namespace detail
TD_NAMESPACE_END
