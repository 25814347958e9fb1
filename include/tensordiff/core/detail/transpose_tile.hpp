// tensordiff — register transposes of small square tiles, for the tiled walk of transposed views.
//
// A tile is L × L items of `Item` bytes, L = 16 / Item (one 128-bit vector per column): L column
// vectors are loaded (each L consecutive items of one source column), transposed in registers,
// and stored as L row vectors. SSE2 is the x86-64 baseline, so this needs no dispatch; other
// targets (and 1-byte items) take fill_band's scalar path.
#pragma once
#include <cstddef>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../config.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

#if defined(__SSE2__)
/// Whether transpose_tile<Item> exists.
template <std::size_t Item> inline constexpr bool has_transpose_tile = Item == 2 || Item == 4 || Item == 8;

/// Transposes L × L items of `Item` bytes in registers: on entry v[j] holds items k = 0 … L−1 of
/// column j, on return v[k] holds items j = 0 … L−1 of row k.
template <std::size_t Item> inline void transpose_tile_in_registers(__m128i* v) {
  if constexpr (Item == 8) {
    const __m128i r0 = _mm_unpacklo_epi64(v[0], v[1]), r1 = _mm_unpackhi_epi64(v[0], v[1]);
    v[0] = r0, v[1] = r1;
  } else if constexpr (Item == 4) {
    // _MM_TRANSPOSE4_PS on integer lanes: pairs of columns interleaved by 32, then by 64 bits.
    const __m128i t0 = _mm_unpacklo_epi32(v[0], v[1]), t1 = _mm_unpacklo_epi32(v[2], v[3]);
    const __m128i t2 = _mm_unpackhi_epi32(v[0], v[1]), t3 = _mm_unpackhi_epi32(v[2], v[3]);
    v[0] = _mm_unpacklo_epi64(t0, t1), v[1] = _mm_unpackhi_epi64(t0, t1);
    v[2] = _mm_unpacklo_epi64(t2, t3), v[3] = _mm_unpackhi_epi64(t2, t3);
  } else {
    // 8 × 8 of 16-bit items: interleave by 16, 32, then 64 bits.
    __m128i b[8], c[8];
    for (int q = 0; q < 4; ++q) {
      b[2 * q] = _mm_unpacklo_epi16(v[2 * q], v[2 * q + 1]);
      b[2 * q + 1] = _mm_unpackhi_epi16(v[2 * q], v[2 * q + 1]);
    }
    for (int h = 0; h < 2; ++h)  // h: columns 0-3 or 4-7
      for (int q = 0; q < 2; ++q) {
        c[4 * h + 2 * q] = _mm_unpacklo_epi32(b[4 * h + q], b[4 * h + q + 2]);
        c[4 * h + 2 * q + 1] = _mm_unpackhi_epi32(b[4 * h + q], b[4 * h + q + 2]);
      }
    for (int k = 0; k < 4; ++k) {
      v[2 * k] = _mm_unpacklo_epi64(c[k], c[k + 4]);
      v[2 * k + 1] = _mm_unpackhi_epi64(c[k], c[k + 4]);
    }
  }
}

/// Loads the L columns of one tile (column j starts at src + j·col_bytes) into v.
template <std::size_t Item> inline void load_tile_columns(const std::byte* src, std::int64_t col_bytes, __m128i* v) {
  for (int j = 0; j < static_cast<int>(16 / Item); ++j)
    v[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j * col_bytes));
}

/// Transposes one tile: column j (j < L) starts at src + j·col_bytes and holds items k = 0 … L−1
/// of that column; row k of the result goes to dst + k·row_bytes, items j = 0 … L−1.
template <std::size_t Item>
inline void transpose_tile(const std::byte* src, std::int64_t col_bytes, std::byte* dst, std::size_t row_bytes) {
  constexpr int L = static_cast<int>(16 / Item);
  __m128i v[L];
  load_tile_columns<Item>(src, col_bytes, v);
  transpose_tile_in_registers<Item>(v);
  for (int k = 0; k < L; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + k * row_bytes), v[k]);
}
#else
template <std::size_t Item> inline constexpr bool has_transpose_tile = false;
template <std::size_t Item> inline void transpose_tile(const std::byte*, std::int64_t, std::byte*, std::size_t) {}
#endif

}  // namespace detail
TD_NAMESPACE_END
