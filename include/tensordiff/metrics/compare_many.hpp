// tensordiff — compare_many(): many (small) tensor pairs in parallel.
#pragma once
#include <utility>
#include <vector>

#include "../core/thread_pool.hpp"
#include "compare.hpp"

TD_NAMESPACE_BEGIN

/// One pair of compare_many(), in compare()'s order.
struct ViewPair {
  TensorView actual;    ///< the NPU side of a dump
  TensorView expected;  ///< the bench side, the reference
};

/// Compares every pair, spreading the pairs over up to `o.threads` threads of
/// default_thread_pool() (0 = all). Each pair runs single-threaded, so a dump
/// of thousands of small tensors keeps every core busy; results are in input
/// order and bitwise identical to compare() of each pair (compare() results do
/// not depend on the thread count). If a pair throws (e.g. a complex dtype),
/// the first exception caught is rethrown once the running comparisons finish
/// and the pairs not started yet are skipped.
template <class Kernel = kernels::Default>
std::vector<Comparison> compare_many(const ViewPair* pairs, std::size_t n, const CompareOptions& o = {}) {
  std::vector<Comparison> out(n);
  CompareOptions inner = o;
  inner.threads = 1;
  default_thread_pool().parallel_for(
      n, [&](std::uint64_t i) { out[static_cast<std::size_t>(i)] = compare<Kernel>(pairs[i].actual, pairs[i].expected, inner); },
      o.threads);
  return out;
}

/// compare_many() over a vector of pairs.
template <class Kernel = kernels::Default>
std::vector<Comparison> compare_many(const std::vector<ViewPair>& pairs, const CompareOptions& o = {}) {
  return compare_many<Kernel>(pairs.data(), pairs.size(), o);
}

TD_NAMESPACE_END
