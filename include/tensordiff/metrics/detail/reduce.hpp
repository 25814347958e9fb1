// tensordiff — deterministic chunked reduction.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../core/config.hpp"
#include "../../core/thread_pool.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// Splits [0, n) into fixed chunks, runs `fn(begin, end) -> Acc` on up to
/// `threads` threads of default_thread_pool() (0 = all of them, 1 = the
/// calling thread only) and merges the results in chunk order. The chunk grid
/// depends only on n and `chunk`, so the result is bitwise identical for any
/// thread count.
template <class Acc, class Fn>
Acc chunked_reduce(std::uint64_t n, std::size_t chunk, unsigned threads, Fn&& fn) {
  chunk = std::max<std::size_t>(chunk, 1);
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  if (chunks <= 1 || threads == 1) {
    Acc total;
    for (std::uint64_t c = 0; c < chunks; ++c) total.merge(fn(c * chunk, std::min<std::uint64_t>(n, (c + 1) * chunk)));
    return total;
  }
  std::vector<Acc> parts(static_cast<std::size_t>(chunks));
  default_thread_pool().parallel_for(
      chunks,
      [&](std::uint64_t c) {
        parts[static_cast<std::size_t>(c)] = fn(c * chunk, std::min<std::uint64_t>(n, (c + 1) * chunk));
      },
      threads);
  Acc total;
  for (const Acc& p : parts) total.merge(p);
  return total;
}

}  // namespace detail
TD_NAMESPACE_END
