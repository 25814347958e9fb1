// TensorView / Tensor layout arithmetic and the run walkers that every kernel
// relies on.
#include "foundation_reference.hpp"

namespace {
using namespace tdref;

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TensorView, CheckedNumel) {
  EXPECT_EQ(checked_numel({}), 1u);
  EXPECT_EQ(checked_numel({2, 3, 4}), 24u);
  EXPECT_EQ(checked_numel({0, std::numeric_limits<std::int64_t>::max()}), 0u);
  EXPECT_EQ(checked_numel({std::int64_t{1} << 31, std::int64_t{1} << 31}), std::uint64_t{1} << 62);
  const std::int64_t big = std::int64_t{1} << 32;
  const std::string msg = what_of([&] { checked_numel({big, big}); });
  EXPECT_NE(msg.find("[4294967296, 4294967296]"), std::string::npos) << msg;
  EXPECT_NE(what_of([] { checked_numel({std::numeric_limits<std::int64_t>::max(), 2}); }), "");
  EXPECT_NE(what_of([] { checked_numel({3, -1}); }).find("[3, -1]"), std::string::npos);
  // the checks also guard view construction
  const float x = 0;
  EXPECT_THROW(TensorView(&x, DType::float32, {big, big, 4}), Error);
  EXPECT_THROW(TensorView(&x, DType::float32, {2, 2}, {1}), Error);  // stride rank
  try {
    Tensor::zeros(DType::float32, {big, big});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
  }
}

TEST(TensorView, StridesPermuteSqueeze) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({}), Strides{});
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (Strides{3, 3, 1}));
  const float x[24] = {};
  const TensorView v = TensorView::of(x, {2, 3, 4});
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.rank(), 3u);
  EXPECT_EQ(v.numel(), 24u);
  EXPECT_EQ(v.itemsize(), 4u);
  const TensorView p = v.permuted({2, 0, 1});
  EXPECT_EQ(p.shape, (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides, (Strides{1, 12, 4}));
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_THROW(v.permuted({0, 0, 1}), Error);
  EXPECT_THROW(v.permuted({0, 1}), Error);
  EXPECT_THROW(v.permuted({0, 1, 3}), Error);
  const TensorView s = TensorView(x, DType::float32, {1, 3, 1, 4}, {99, 4, 7, 1}).squeezed();
  EXPECT_EQ(s.shape, (Shape{3, 4}));
  EXPECT_EQ(s.strides, (Strides{4, 1}));
  EXPECT_TRUE(s.is_contiguous());
  EXPECT_EQ(TensorView::of(x, {1, 1}).squeezed().rank(), 0u);
  // extent-1 dimensions do not break contiguity whatever their stride
  EXPECT_TRUE(TensorView(x, DType::float32, {2, 1, 3}, {3, 1000, 1}).is_contiguous());
}

TEST(TensorView, OffsetAndUnravel) {
  const float x[1] = {};
  const TensorView v(x, DType::float32, {3, 4, 5}, {-7, 0, 11});
  for (std::uint64_t f = 0; f < 60; ++f) {
    const std::int64_t i = static_cast<std::int64_t>(f / 20), j = static_cast<std::int64_t>(f / 5 % 4),
                       k = static_cast<std::int64_t>(f % 5);
    EXPECT_EQ(v.offset_of(f), -7 * i + 11 * k);
    EXPECT_EQ(v.unravel(f), (Shape{i, j, k}));
  }
  const TensorView z(x, DType::float32, {});
  EXPECT_EQ(z.offset_of(0), 0);
  EXPECT_EQ(z.unravel(0), Shape{});
}

TEST(TensorView, ByteExtentAndCheckWithin) {
  const double x[1] = {};
  const TensorView v(x, DType::float64, {3, 4}, {4, 1});
  EXPECT_EQ(v.byte_extent(), (std::pair<std::int64_t, std::int64_t>{0, 96}));
  EXPECT_NO_THROW(v.check_within(96));
  try {
    v.check_within(95, ErrorContext{"a.npy", "data", 128});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::format);
    const std::string m = e.what();
    EXPECT_NE(m.find("a.npy"), std::string::npos) << m;
    EXPECT_NE(m.find("[3, 4]"), std::string::npos) << m;
    EXPECT_NE(m.find("[0, 96)"), std::string::npos) << m;
  }
  const TensorView r(x, DType::float64, {3, 4}, {-4, 1});  // reaches before data
  EXPECT_EQ(r.byte_extent(), (std::pair<std::int64_t, std::int64_t>{-64, 32}));
  EXPECT_THROW(r.check_within(1000), Error);
  EXPECT_EQ(TensorView(x, DType::float64, {0, 5}, {5, 1}).byte_extent(), (std::pair<std::int64_t, std::int64_t>{0, 0}));
  EXPECT_EQ(TensorView(x, DType::float64, {}, {}).byte_extent(), (std::pair<std::int64_t, std::int64_t>{0, 8}));
  // absurd strides are refused, never wrapped
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_THROW(TensorView(x, DType::float64, {3}, {huge}).byte_extent(), Error);
  EXPECT_THROW(TensorView(x, DType::float64, {3}, {-huge}).byte_extent(), Error);
  EXPECT_THROW(TensorView(x, DType::float64, {2}, {std::numeric_limits<std::int64_t>::min()}).byte_extent(), Error);
  const Shape many(40, 2);
  EXPECT_THROW(TensorView(x, DType::float64, many, Strides(40, std::int64_t{1} << 56)).byte_extent(), Error);
  EXPECT_NO_THROW(TensorView(x, DType::float64, {2}, {std::int64_t{1} << 56}).byte_extent());
}

std::vector<long double> iota_values(std::size_t n) {
  std::vector<long double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<long double>(i) * 3 - 40;
  return v;
}

TEST(Tensor, CopyOfAnyLayout) {
  for (DType t : {DType::float32, DType::bfloat16, DType::int64, DType::uint8, DType::float64}) {
    for (Layout l : all_layouts) {
      const Held h = make_view(t, 5, 7, l, iota_values(35));
      const Tensor c = Tensor::copy_of(h.view);
      EXPECT_TRUE(c.view().is_contiguous());
      EXPECT_EQ(c.view().byte_order, native_byte_order);
      EXPECT_EQ(c.shape(), h.view.shape);
      EXPECT_EQ(c.nbytes(), 35 * dtype_size(t));
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c.view().data) % Tensor::alignment, 0u);
      for (std::uint64_t i = 0; i < 35; ++i)
        ASSERT_EQ(read(c.view(), i), read(h.view, i)) << dtype_name(t) << " " << layout_name(l) << " at " << i;
      // element_as_double agrees as well
      for (std::uint64_t i = 0; i < 35; ++i)
        ASSERT_EQ(element_as_double(h.view, i), static_cast<double>(read(h.view, i)));
    }
  }
  const Tensor e = Tensor::copy_of(TensorView::of(static_cast<const float*>(nullptr), {0, 3}));
  EXPECT_EQ(e.numel(), 0u);
  EXPECT_THROW(Tensor::from_values(std::vector<float>{1, 2, 3}, {2, 2}), Error);
  const Tensor fv = Tensor::from_values(std::vector<std::int16_t>{1, -2, 3, 4}, {2, 2});
  EXPECT_EQ(fv.dtype(), DType::int16);
  EXPECT_EQ(fv.data<std::int16_t>()[1], -2);
}

/// A random strided view over `storage` (values = slot index), in range.
TensorView random_view(std::mt19937_64& g, const std::vector<std::uint32_t>& storage, const Shape& shape) {
  const std::size_t r = shape.size();
  Strides st(r);
  std::int64_t span = 1;
  // build a permuted, possibly padded, contiguous-ish layout, then flip/zero some dims
  std::vector<std::size_t> order(r);
  for (std::size_t i = 0; i < r; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), g);
  for (std::size_t k = 0; k < r; ++k) {
    const std::size_t d = order[k];
    st[d] = span * (g() % 4 == 0 ? 2 : 1);
    span = st[d] * std::max<std::int64_t>(shape[d], 1);
  }
  std::int64_t base = 0;
  for (std::size_t d = 0; d < r; ++d) {
    const auto pick = g() % 6;
    if (pick == 0) st[d] = 0;  // broadcast
    else if (pick == 1 && shape[d] > 0) {  // reversed
      base += (shape[d] - 1) * st[d];
      st[d] = -st[d];
    }
  }
  EXPECT_LT(span + base, static_cast<std::int64_t>(storage.size()));
  return TensorView(storage.data() + base, DType::uint32, shape, st);
}

/// The pair walk, the single walk and the native blocks of views a and b over [begin, end) visit
/// every element once, in C order, with the values read() finds.
void check_walks(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end, int trial) {
  const std::uint64_t n = numel_of(a.shape);
  std::uint64_t next = begin;
  detail::for_each_run_pair<std::uint32_t, std::uint32_t>(
      a, b, begin, end, [&](const std::uint32_t* pa, const std::uint32_t* pb, std::size_t m, std::uint64_t pos) {
        ASSERT_EQ(pos, next) << "runs out of order or overlapping";
        ASSERT_GT(m, 0u);
        for (std::size_t i = 0; i < m; ++i) {
          ASSERT_EQ(pa[i], static_cast<std::uint32_t>(read(a, pos + i))) << "trial " << trial;
          ASSERT_EQ(pb[i], static_cast<std::uint32_t>(read(b, pos + i))) << "trial " << trial;
        }
        next += m;
      });
  ASSERT_EQ(next, end) << "trial " << trial << ": elements missed";
  next = begin;
  detail::for_each_run<std::uint32_t>(a, begin, end, [&](const std::uint32_t* p, std::size_t m, std::uint64_t pos) {
    ASSERT_EQ(pos, next);
    for (std::size_t i = 0; i < m; ++i) ASSERT_EQ(p[i], static_cast<std::uint32_t>(read(a, pos + i)));
    next += m;
  });
  ASSERT_EQ(next, end);
  // native blocks of the whole view concatenate to its C-order elements
  std::vector<std::uint32_t> flat;
  detail::for_each_native_block(a, [&](const std::byte* p, std::size_t bytes) {
    const std::size_t old = flat.size();
    flat.resize(old + bytes / 4);
    std::memcpy(flat.data() + old, p, bytes);
  });
  ASSERT_EQ(flat.size(), n);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(flat[i], static_cast<std::uint32_t>(read(a, i)));
}

/// A random sub-range [begin, end) of n elements.
std::pair<std::uint64_t, std::uint64_t> random_range(std::mt19937_64& g, std::uint64_t n) {
  const std::uint64_t begin = n ? g() % (n + 1) : 0, end = begin + (n - begin ? g() % (n - begin + 1) : 0);
  return {begin, end};
}

TEST(Runs, RunPairVisitsEveryElementOnceInCOrder) {
  std::mt19937_64 g(77);
  std::vector<std::uint32_t> sa(1 << 16), sb(1 << 16);
  for (std::uint32_t i = 0; i < sa.size(); ++i) sa[i] = i, sb[i] = i ^ 0xabcdef;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = g() % 5;
    Shape shape(rank);
    for (auto& d : shape) d = static_cast<std::int64_t>(g() % 6 == 0 ? 1 : g() % 7);
    if (trial % 10 == 0 && rank > 0) shape[0] = 600;  // longer than a gather block
    const TensorView a = random_view(g, sa, shape), b = random_view(g, sb, shape);
    const auto [begin, end] = random_range(g, numel_of(shape));
    check_walks(a, b, begin, end, trial);
  }
}

// Ranks 9 and 10 whose dimensions do not merge: the coalesced layout (detail::Dims) holds more
// dimensions than it keeps inline and moves them to the heap.
TEST(Runs, LayoutsBeyondTheInlineRank) {
  std::mt19937_64 g(78);
  std::vector<std::uint32_t> sa(1 << 21), sb(1 << 21);
  for (std::uint32_t i = 0; i < sa.size(); ++i) sa[i] = i, sb[i] = i ^ 0xabcdef;
  int spilled = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Shape shape(9 + trial % 2, 2);
    const TensorView a = random_view(g, sa, shape), b = random_view(g, sb, shape);
    spilled += detail::coalesce<2>({&a, &b}).shape.size() > detail::Dims::kInline;
    const auto [begin, end] = random_range(g, numel_of(shape));
    check_walks(a, b, begin, end, trial);
  }
  EXPECT_GT(spilled, 10) << "too few layouts beyond the inline rank to test the spill";
}

TEST(Runs, ByteSwappedViewsAreNative) {
  const std::uint32_t raw[3] = {0x01020304u, 0xa0b0c0d0u, 0x00000001u};
  const TensorView be(raw, DType::uint32, {3}, {1}, native_byte_order == ByteOrder::little ? ByteOrder::big : ByteOrder::little);
  std::vector<std::uint32_t> got;
  detail::for_each_run<std::uint32_t>(be, 0, 3, [&](const std::uint32_t* p, std::size_t m, std::uint64_t) {
    got.insert(got.end(), p, p + m);
  });
  EXPECT_EQ(got, (std::vector<std::uint32_t>{0x04030201u, 0xd0c0b0a0u, 0x01000000u}));
  EXPECT_EQ(element_as_double(be, 2), 16777216.0);
}

}  // namespace
