// The plain read the benchmarks' ratios are taken against: a sum of 64-bit words, both buffers
// side by side, four independent accumulators (Highway's widest target when built).
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
#include "tensordiff/kernels/highway.hpp"
#endif

namespace tensordiff_bench {

/// Sum of n 64-bit words of both buffers, read side by side (as a compare reads its pair: on the
/// Zen 4 VM two interleaved streams read ~15 % faster than one buffer after the other), with four
/// independent accumulators (Highway when built).
inline std::uint64_t sum_words(const std::uint64_t* p, const std::uint64_t* q, std::size_t n) {
#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
  return tensordiff::kernels::Highway::read_words(p, q, n);
#else
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) s0 += p[i], s1 += q[i], s2 += p[i + 1], s3 += q[i + 1];
  for (; i < n; ++i) s0 += p[i] + q[i];
  return s0 + s1 + s2 + s3;
#endif
}

/// Sum of the whole 64-bit words of one buffer of `bytes` bytes: its halves read side by side.
inline std::uint64_t sum_buffer(const void* data, std::size_t bytes) {
  const auto* w = static_cast<const std::uint64_t*>(data);
  const std::size_t words = bytes / 8, half = words / 2;
  std::uint64_t s = sum_words(w, w + half, half);
  if (words % 2) s += w[words - 1];
  return s;
}

}  // namespace tensordiff_bench
