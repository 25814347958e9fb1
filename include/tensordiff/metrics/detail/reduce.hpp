// tensordiff — deterministic chunked reduction.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "../../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// Splits [0, n) into fixed chunks, runs `fn(begin, end) -> Acc` on up to
/// `threads` threads and merges the results in chunk order. The chunk grid
/// depends only on n and `chunk`, so the result is bitwise identical for any
/// thread count.
template <class Acc, class Fn>
Acc chunked_reduce(std::uint64_t n, std::size_t chunk, unsigned threads, Fn&& fn) {
  chunk = std::max<std::size_t>(chunk, 1);
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  if (chunks <= 1 || threads <= 1) {
    Acc total;
    for (std::uint64_t c = 0; c < chunks; ++c) total.merge(fn(c * chunk, std::min<std::uint64_t>(n, (c + 1) * chunk)));
    return total;
  }
  std::vector<Acc> parts(static_cast<std::size_t>(chunks));
  std::atomic<std::uint64_t> next{0};
  auto worker = [&] {
    for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;)
      parts[static_cast<std::size_t>(c)] = fn(c * chunk, std::min<std::uint64_t>(n, (c + 1) * chunk));
  };
  const unsigned t = static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  Acc total;
  for (const Acc& p : parts) total.merge(p);
  return total;
}

}  // namespace detail
TD_NAMESPACE_END
