// Thread pool, threaded compare() (bitwise identical for any thread count),
// strided views through the default kernel, and compare_many().
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tensordiff/core/thread_pool.hpp"
#include "tensordiff/core/element_access.hpp"
#include "tensordiff/metrics/compare_many.hpp"

#include "foundation_reference.hpp"

namespace {
using namespace tensordiff;

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

void expect_identical(const Partial& x, const Partial& y) {
  EXPECT_EQ(x.count, y.count);
  EXPECT_TRUE(same_bits(x.dot, y.dot));
  EXPECT_TRUE(same_bits(x.sum_sq_diff, y.sum_sq_diff));
  EXPECT_TRUE(same_bits(x.sum_abs_diff, y.sum_abs_diff));
  EXPECT_TRUE(same_bits(x.sum_rel, y.sum_rel));
  EXPECT_TRUE(same_bits(x.max_abs_diff, y.max_abs_diff));
  EXPECT_EQ(x.max_abs_index, y.max_abs_index);
  EXPECT_TRUE(same_bits(x.max_rel, y.max_rel));
  EXPECT_EQ(x.max_rel_index, y.max_rel_index);
  EXPECT_EQ(x.rel_below[0], y.rel_below[0]);
  EXPECT_EQ(x.rel_below[1], y.rel_below[1]);
  EXPECT_TRUE(same_bits(x.a.sum, y.a.sum));
  EXPECT_TRUE(same_bits(x.a.sum_sq, y.a.sum_sq));
  EXPECT_TRUE(same_bits(x.b.sum, y.b.sum));
  EXPECT_TRUE(same_bits(x.b.sum_sq, y.b.sum_sq));
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd;
  std::vector<float> v(n);
  for (auto& x : v) x = nd(rng);
  return v;
}

TEST(ThreadPool, RunsEveryItemOnceAndNests) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3u);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(1000, [&](std::uint64_t i) {
    hits[i]++;
    pool.parallel_for(3, [&](std::uint64_t) {});  // nested use must not deadlock
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  ThreadPool inline_pool(1);
  EXPECT_EQ(inline_pool.size(), 1u);
  int count = 0;
  inline_pool.parallel_for(10, [&](std::uint64_t) { ++count; });  // no threads: no race
  EXPECT_EQ(count, 10);
}

TEST(ThreadPool, RethrowsTheError) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(100, [](std::uint64_t i) {
    if (i == 57) throw std::runtime_error("x");
  }), std::runtime_error);
}

TEST(ParallelCompare, BitwiseIdenticalForAnyThreadCount) {
  const std::size_t n = 1'000'003;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  CompareOptions o;
  o.threads = 1;
  const Comparison one = compare(a.data(), b.data(), n, o);
  for (unsigned t : {2u, 3u, 0u}) {
    o.threads = t;
    const Comparison c = compare(a.data(), b.data(), n, o);
    SCOPED_TRACE(t);
    expect_identical(c.partial, one.partial);
  }
  set_default_threads(4);  // more threads than cores: still identical
  o.threads = 0;
  expect_identical(compare(a.data(), b.data(), n, o).partial, one.partial);
  // The defaults: threads on a tensor this big (above parallel_min_elements), same result.
  ASSERT_GE(n, CompareOptions{}.parallel_min_elements);
  expect_identical(compare(a.data(), b.data(), n).partial, one.partial);
  // Below the threshold: the calling thread alone, same result.
  o.parallel_min_elements = n + 1;
  expect_identical(compare(a.data(), b.data(), n, o).partial, one.partial);
  set_default_threads(0);
}

// Chunks share the maxima found so far (MaximaFloor) so that a block that cannot win skips its
// index rescan: ties across chunks must still keep the first index, and a later, larger maximum
// must still win, for any thread count, metric set and chunk size (odd sizes: chunk borders
// inside vectors and blocks), against the independent long-double reference.
template <class T> void check_tied_maxima(DType dtype) {
  SCOPED_TRACE(dtype_name(dtype));
  const std::size_t n = 200'003;
  std::vector<T> a(n), b(n);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  for (std::size_t i = 0; i < n; ++i) b[i] = a[i] = T(u(rng));
  // The same largest |a − b| and relative error (b = 1, a = 1.5) at several positions in
  // different chunks, smaller ones around them; then (second round) a larger one near the end.
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i : {std::size_t{9'000}, std::size_t{9'001}, std::size_t{77'777}, std::size_t{150'000}}) {
      b[i] = T(1.0f);
      a[i] = T(1.5f);
      b[i - 5] = T(1.0f);
      a[i - 5] = T(1.25f);
    }
    if (round == 1) b[199'990] = T(1.0f), a[199'990] = T(1.75f);
    const TensorView va(a.data(), dtype, Shape{static_cast<std::int64_t>(n)});
    const TensorView vb(b.data(), dtype, Shape{static_cast<std::int64_t>(n)});
    const tdref::PairRef want = tdref::reference_pair(va, vb, 0, n);
    ASSERT_EQ(want.max_abs_index, round == 0 ? 9'000u : 199'990u);
    for (std::size_t chunk : {std::size_t{4'099}, std::size_t{65'537}, std::size_t{1} << 18}) {
      for (unsigned t : {1u, 2u, 4u}) {
        SCOPED_TRACE("chunk " + std::to_string(chunk) + ", threads " + std::to_string(t));
        CompareOptions o;
        o.chunk_elements = chunk;
        o.threads = t;
        o.parallel_min_elements = 0;
        for (const Comparison& c : {compare(va, vb, o), compare<metric::assert_close>(va, vb, o)}) {
          EXPECT_EQ(c.partial.max_abs_index, want.max_abs_index);
          EXPECT_EQ(c.partial.max_rel_index, want.max_rel_index);
        }
        EXPECT_EQ((compare<metric::max_abs | metric::cosine>(va, vb, o).partial.max_abs_index), want.max_abs_index);
      }
    }
  }
}

TEST(ParallelCompare, TiedMaximaAcrossChunksKeepTheFirstIndex) {
  set_default_threads(4);
  check_tied_maxima<float>(DType::float32);
  check_tied_maxima<bfloat16>(DType::bfloat16);
  check_tied_maxima<float16>(DType::float16);
  set_default_threads(0);
}

// MaximaFloor hands a chunk only maxima from before its first index: a tie found later (by
// another thread) would otherwise keep the later index in that chunk's reference loop.
TEST(ParallelCompare, MaximaFloorSeedsOnlyEarlierMaxima) {
  detail::MaximaFloor found;
  EXPECT_EQ(found.seed(0).max_abs_index, no_index);
  Partial p;
  p.max_abs_diff = 2, p.max_abs_index = 500;
  p.max_rel = 3, p.max_rel_index = 700;
  found.see(p);
  const Partial before = found.seed(500), between = found.seed(501), after = found.seed(701);
  EXPECT_EQ(before.max_abs_index, no_index);
  EXPECT_EQ(before.max_abs_diff, -1);
  EXPECT_EQ(between.max_abs_index, 500u);
  EXPECT_EQ(between.max_abs_diff, 2);
  EXPECT_EQ(between.max_rel_index, no_index);
  EXPECT_EQ(after.max_rel_index, 700u);
  EXPECT_EQ(after.max_rel, 3);
  EXPECT_EQ(after.count, 0u);  // nothing but the maxima
  p.max_abs_index = 100;  // the same value earlier: the earlier index wins
  found.see(p);
  EXPECT_EQ(found.seed(501).max_abs_index, 100u);
}

TEST(ParallelCompare, StridedViewsMatchScalar) {
  // A transposed 300 x 401 view against a contiguous copy, and a column-step view.
  const std::int64_t r = 300, c = 401;
  auto base = random_floats(static_cast<std::size_t>(r * c), 3);
  std::vector<float> t(base.size());
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) t[static_cast<std::size_t>(j * r + i)] = base[static_cast<std::size_t>(i * c + j)] * 1.001f;
  const TensorView va(base.data(), DType::float32, Shape{r, c});
  const TensorView vt(t.data(), DType::float32, Shape{r, c}, Strides{1, r});  // transposed storage
  CompareOptions o;
  o.chunk_elements = 1000;
  const Comparison got = compare(va, vt, o);
  const Comparison want = compare<kernels::Scalar>(va, vt, o);
  EXPECT_EQ(got.partial.max_abs_index, want.partial.max_abs_index);
  EXPECT_EQ(got.partial.max_rel_index, want.partial.max_rel_index);
  EXPECT_EQ(got.partial.max_abs_diff, want.partial.max_abs_diff);
  EXPECT_EQ(got.partial.rel_below[0], want.partial.rel_below[0]);
  EXPECT_NEAR(got.partial.sum_abs_diff, want.partial.sum_abs_diff, 1e-12 * want.partial.sum_abs_diff);
  EXPECT_NEAR(got.cosine.value, want.cosine.value, 1e-12);
  // every other column
  const TensorView half(base.data(), DType::float32, Shape{r, c / 2}, Strides{c, 2});
  const TensorView half_t(t.data(), DType::float32, Shape{r, c / 2}, Strides{1, 2 * r});
  const Comparison g2 = compare(half, half_t, o), w2 = compare<kernels::Scalar>(half, half_t, o);
  EXPECT_EQ(g2.partial.max_abs_index, w2.partial.max_abs_index);
  EXPECT_EQ(g2.partial.rel_below[1], w2.partial.rel_below[1]);
  EXPECT_NEAR(g2.partial.dot, w2.partial.dot, 1e-12 * std::fabs(w2.partial.dot) + 1e-9);
}

/// Equal, or both NaN (byte-swapped random floats are often NaN).
bool same_value(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

/// The walkers against element_as_double: every flat position of [begin, end) exactly once,
/// with its value; for_each_run (hashing) also in C order. T: the views' storage type.
template <class T> void check_walk(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end) {
  SCOPED_TRACE("range " + std::to_string(begin) + ".." + std::to_string(end));
  std::vector<int> seen(end - begin, 0);
  detail::for_each_run_pair<T, T>(a, b, begin, end, [&](const T* pa, const T* pb, std::size_t n, std::uint64_t pos) {
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_LT(pos + i, end);
      ASSERT_GE(pos + i, begin);
      ++seen[pos + i - begin];
      ASSERT_PRED2(same_value, static_cast<double>(pa[i]), element_as_double(a, pos + i)) << pos + i;
      ASSERT_PRED2(same_value, static_cast<double>(pb[i]), element_as_double(b, pos + i)) << pos + i;
    }
  });
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "position " << begin + i;
  std::uint64_t next = begin;
  detail::for_each_run<T>(a, begin, end, [&](const T* p, std::size_t n, std::uint64_t pos) {
    ASSERT_EQ(pos, next);  // C order
    for (std::size_t i = 0; i < n; ++i) ASSERT_PRED2(same_value, static_cast<double>(p[i]), element_as_double(a, pos + i));
    next = pos + n;
  });
  EXPECT_EQ(next, end);
}

/// check_walk over views of random bytes read as `dtype` (storage T): transposed 37 x 301,
/// both sides and one side (register-transposed tiles with rows and columns left over for every
/// tile size); a wide transposed 20 x 9000 (rows in pieces); a tall and wide 70 x 4200 (several
/// bands and pieces); a permuted 3-d view; byte-swapped transposed; ranges that start and end
/// inside rows.
template <class T> void check_layouts(DType dtype) {
  SCOPED_TRACE(dtype_name(dtype));
  std::vector<std::uint64_t> words(1000000);
  std::mt19937_64 rng(5);
  for (auto& w : words) w = rng();
  T* base = reinterpret_cast<T*>(words.data());
  const TensorView t1(base, dtype, Shape{37, 301}, Strides{1, 37});
  const TensorView c1(base + 20000, dtype, Shape{37, 301});
  const TensorView wide(base, dtype, Shape{20, 9000}, Strides{1, 20});
  const TensorView wide_c(base + 200000, dtype, Shape{20, 9000});
  const TensorView tall(base, dtype, Shape{70, 4200}, Strides{1, 70});
  const TensorView tall_c(base + 300000, dtype, Shape{70, 4200});
  const TensorView perm(base, dtype, Shape{6, 35, 40}, Strides{1, 6 * 40, 6});
  const TensorView perm_c(base + 100000, dtype, Shape{6, 35, 40});
  TensorView swapped = t1;
  swapped.byte_order = t1.is_native_order() ? ByteOrder::big : ByteOrder::little;
  for (auto [a, b] : {std::pair{t1, c1}, std::pair{c1, t1}, std::pair{t1, t1}, std::pair{wide, wide_c},
                      std::pair{tall_c, tall}, std::pair{perm, perm_c}, std::pair{swapped, c1}}) {
    const std::uint64_t n = a.numel();
    for (auto [lo, hi] : {std::pair<std::uint64_t, std::uint64_t>{0, n}, {5, n - 7}, {301 * 3 + 1, 301 * 9}, {0, 1}})
      check_walk<T>(a, b, lo, hi);
  }
}

TEST(TiledWalk, TransposedPermutedAndWideViews) {
  check_layouts<std::int8_t>(DType::int8);  // no register tile: the scalar band fill
  check_layouts<std::int16_t>(DType::int16);
  check_layouts<float>(DType::float32);
  check_layouts<double>(DType::float64);
}

TEST(CompareMany, SameAsOneByOne) {
  std::vector<std::vector<float>> store;
  std::vector<ViewPair> pairs;
  for (int i = 0; i < 200; ++i) {
    store.push_back(random_floats(static_cast<std::size_t>(17 * i + 1), 10 + i));
    store.push_back(random_floats(static_cast<std::size_t>(17 * i + 1), 1000 + i));
  }
  for (int i = 0; i < 200; ++i) {
    const Shape s{static_cast<std::int64_t>(17 * i + 1)};
    pairs.push_back({TensorView(store[2 * i].data(), DType::float32, s), TensorView(store[2 * i + 1].data(), DType::float32, s)});
  }
  const auto many = compare_many(pairs);
  ASSERT_EQ(many.size(), pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Comparison one = compare(pairs[i].actual, pairs[i].expected);
    EXPECT_EQ(many[i].validation, one.validation);
    expect_identical(many[i].partial, one.partial);
  }
}

TEST(CompareMany, PropagatesErrors) {
  std::vector<float> x(4);
  std::vector<ViewPair> pairs(3, ViewPair{TensorView(x.data(), DType::float32, Shape{4}),
                                          TensorView(x.data(), DType::float32, Shape{4})});
  pairs[1].actual = TensorView(x.data(), DType::complex64, Shape{2});
  pairs[1].expected = pairs[1].actual;
  EXPECT_THROW(compare_many(pairs), Error);
}

}  // namespace
