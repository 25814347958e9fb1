// tensordiff_bench — the transposition bound of a transposed compare (issue #12, point 9).
//
// A compare of a contiguous view against a transposed one costs at least the band fill of the
// transposed side (core/detail/runs.hpp) plus the kernel. These cases time the band fill alone,
// for f32, over the transposed side of BM_compare_transposed (a 1024-row view of a column-major
// matrix: each view column is 4 KiB contiguous), with other band shapes and tile orders than the
// library's, so the README can say how fast any of them transposes:
//   BM_transpose_fill/<order>/<band rows>x<band columns>/<bytes of the transposed side>
// orders: strip   the library's fill_band (4 x 4 SSE2 tiles down one 4-column strip at a time)
//         line    4 x 4 tiles across one cache line of output (16 columns), then down
//         block   16 x 16 blocks of 4 x 4 tiles (each source and output line used whole)
//         avx512  one 16 x 16 AVX-512 register transpose per tile (when compiled for AVX-512)
// bytes_per_second counts the transposed side only: double it to read it against BM_compare
// (which counts both sides). 256 MiB cases need TD_BENCH_LARGE=1.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "tensordiff/core/detail/runs.hpp"

namespace {
using namespace tensordiff;
using detail::transpose_tile;

constexpr std::size_t kRows = 1024;  // view rows = items per source column

#if defined(__AVX512F__)
// GCC 12 warns inside its own headers (_mm512_undefined_ps) once these shuffles are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
/// 16 x 16 f32 tile: column j (16 items) at src + j·col; row k of the result at dst + k·pitch.
void tile16(const float* src, std::size_t col, float* dst, std::size_t pitch) {
  __m512 r[16], t[16];
  for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_ps(src + j * col);
  for (int j = 0; j < 16; j += 2) {
    t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]);
  }
  for (int j = 0; j < 16; j += 4) {
    r[j] = _mm512_shuffle_ps(t[j], t[j + 2], 0x44);
    r[j + 1] = _mm512_shuffle_ps(t[j], t[j + 2], 0xEE);
    r[j + 2] = _mm512_shuffle_ps(t[j + 1], t[j + 3], 0x44);
    r[j + 3] = _mm512_shuffle_ps(t[j + 1], t[j + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm512_shuffle_f32x4(r[j], r[j + 4], 0x88);
    t[j + 4] = _mm512_shuffle_f32x4(r[j], r[j + 4], 0xDD);
    t[j + 8] = _mm512_shuffle_f32x4(r[j + 8], r[j + 12], 0x88);
    t[j + 12] = _mm512_shuffle_f32x4(r[j + 8], r[j + 12], 0xDD);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xDD);
    r[j + 4] = _mm512_shuffle_f32x4(t[j + 4], t[j + 12], 0x88);
    r[j + 12] = _mm512_shuffle_f32x4(t[j + 4], t[j + 12], 0xDD);
  }
  for (int k = 0; k < 16; ++k) _mm512_storeu_ps(dst + k * pitch, r[k]);
}
#pragma GCC diagnostic pop
#endif

enum class Order { strip, line, block, avx512 };

/// One band: rows × cols items of the view, (k, j) at src[j·kRows + k], into out (pitch items).
void fill(Order order, const float* src, std::size_t rows, std::size_t cols, float* out, std::size_t pitch) {
  auto tile = [&](std::size_t k, std::size_t j) {
    transpose_tile<4>(reinterpret_cast<const std::byte*>(src + j * kRows + k), kRows * 4,
                      reinterpret_cast<std::byte*>(out + k * pitch + j), pitch * 4);
  };
  switch (order) {
    case Order::strip: {
      std::vector<std::int64_t> off(rows);
      std::iota(off.begin(), off.end(), std::int64_t{0});
      detail::fill_band(reinterpret_cast<const std::byte*>(src), off.data(), rows, kRows, cols, true, 0, out, pitch);
      return;
    }
    case Order::line:
      for (std::size_t j0 = 0; j0 < cols; j0 += 16)
        for (std::size_t k = 0; k < rows; k += 4)
          for (std::size_t j = j0; j < j0 + 16; j += 4) tile(k, j);
      return;
    case Order::block:
      for (std::size_t j0 = 0; j0 < cols; j0 += 16)
        for (std::size_t k0 = 0; k0 < rows; k0 += 16)
          for (std::size_t j = j0; j < j0 + 16; j += 4)
            for (std::size_t k = k0; k < k0 + 16; k += 4) tile(k, j);
      return;
    case Order::avx512:
#if defined(__AVX512F__)
      for (std::size_t j0 = 0; j0 < cols; j0 += 16)
        for (std::size_t k = 0; k < rows; k += 16) tile16(src + j0 * kRows + k, kRows, out + k * pitch + j0, pitch);
#endif
      return;
  }
}

void bm_fill(benchmark::State& st, Order order, std::size_t rows, std::size_t cols, std::size_t bytes) {
  const std::size_t width = bytes / 4 / kRows;  // view columns
  const auto src = std::make_unique<float[]>(width * kRows);
  for (std::size_t i = 0; i < width * kRows; ++i) src[i] = static_cast<float>(i % 977);
  const std::size_t pitch = cols + 16;  // as the library: rows of a band in distinct L1 sets
  const auto buf = std::make_unique<float[]>(rows * pitch);
  for (auto _ : st) {
    for (std::size_t r0 = 0; r0 < kRows; r0 += rows)
      for (std::size_t c0 = 0; c0 < width; c0 += cols) {
        fill(order, src.get() + c0 * kRows + r0, rows, cols, buf.get(), pitch);
        benchmark::DoNotOptimize(buf[pitch + 1]);
      }
  }
  // a wrong tile order would pass silently: check the last band against the source
  for (std::size_t k = 0; k < rows; ++k)
    for (std::size_t j = 0; j < cols; ++j)
      if (buf[k * pitch + j] != src[(width - cols + j) * kRows + (kRows - rows + k)]) {
        st.SkipWithError("band differs from the source");
        return;
      }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(width * kRows * 4));
}

int register_all() {
  std::vector<std::size_t> sizes = {std::size_t{8} << 20};
  const char* large = std::getenv("TD_BENCH_LARGE");
  if (large && *large && *large != '0') sizes.push_back(std::size_t{256} << 20);
  std::vector<std::pair<const char*, Order>> orders = {{"strip", Order::strip}};
  if (detail::has_transpose_tile<4>) {
    orders.emplace_back("line", Order::line);
    orders.emplace_back("block", Order::block);
  }
#if defined(__AVX512F__)
  orders.emplace_back("avx512", Order::avx512);
#endif
  const std::pair<std::size_t, std::size_t> shapes[] = {{64, 2048}, {128, 1024}, {256, 512}, {1024, 128}};
  for (std::size_t bytes : sizes)
    for (const auto& [name, order] : orders)
      for (const auto& [rows, cols] : shapes) {
        const std::string id = std::string("BM_transpose_fill/") + name + "/" + std::to_string(rows) + "x" +
                               std::to_string(cols) + "/" + std::to_string(bytes);
        auto* b = benchmark::RegisterBenchmark(id.c_str(), bm_fill, order, rows, cols, bytes);
        b->Unit(benchmark::kMicrosecond)->UseRealTime();
        if (bytes >= (std::size_t{256} << 20)) b->Iterations(3);
      }
  return 0;
}
const int registered = register_all();

}  // namespace
