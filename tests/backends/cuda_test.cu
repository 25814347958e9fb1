// The CUDA backend (backends/cuda.hpp) against the host compare() with the
// scalar reference kernel on the same data: every dtype pair class, sizes that
// exercise one and many blocks, grid-stride iterations and tails, strided
// views, nan/inf, every 16-bit pattern, the validation paths, argmax ties
// across blocks. Every test but the error-mapping one skips where no CUDA
// device is present.
#include <tensordiff/backends/cuda.hpp>
#include <tensordiff/kernels/scalar.hpp>

#include "backend_test_data.hpp"

namespace {
namespace td = tensordiff;
using td::DType;
using namespace td_backend_test;

bool have_gpu() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();  // clear cudaErrorNoDevice / InsufficientDriver
  return ok;
}

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  }
};

/// A device copy of a host tensor's whole buffer.
class DeviceCopy {
 public:
  explicit DeviceCopy(const td::Tensor& t) : host_(t.view().data), bytes_(t.nbytes()) {
    td::cuda::detail::check(cudaMalloc(&ptr_, bytes_ ? bytes_ : 1), "cudaMalloc");
    if (bytes_) td::cuda::detail::check(cudaMemcpy(ptr_, host_, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceCopy() { (void)cudaFree(ptr_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  /// The same view (dtype, shape, strides, offset) over the device copy.
  td::TensorView view(const td::TensorView& v) const {
    td::TensorView d = v;
    d.data = static_cast<const std::byte*>(ptr_) + (v.data - host_);
    return d;
  }

 private:
  const std::byte* host_;
  std::size_t bytes_;
  void* ptr_ = nullptr;
};

/// cuda::compare of device copies vs compare<Scalar> of the host views.
void check_views(const td::Tensor& ta, const td::TensorView& va, const td::Tensor& tb, const td::TensorView& vb,
                 double scale, const td::CompareOptions& o = {}) {
  const DeviceCopy da(ta), db(tb);
  const td::Comparison ref = td::compare<td::kernels::Scalar>(va, vb, o);
  const td::Comparison dev = td::cuda::compare(da.view(va), db.view(vb), o);
  expect_close(dev, ref, scale);
  // Deterministic: a second run gives the same bits.
  const td::Comparison again = td::cuda::compare(da.view(va), db.view(vb), o);
  EXPECT_EQ(0, std::memcmp(&dev.partial, &again.partial, sizeof(td::Partial)));
}

void check_pair(DType ta, DType tb, std::size_t n, NonFinite nf, unsigned seed = 7) {
  SCOPED_TRACE(std::string(td::dtype_name(ta)) + " vs " + td::dtype_name(tb) + " n=" + std::to_string(n));
  const PairValues v = pair_values(n, ta, tb, nf, seed);
  const td::Shape shape{static_cast<std::int64_t>(n)};
  const td::Tensor a = make_tensor(ta, v.a, shape), b = make_tensor(tb, v.b, shape);
  check_views(a, a.view(), b, b.view(), 250);
}

TEST(CudaErrors, RuntimeErrorsBecomeDeviceErrorsNamingTheCudaError) {
  try {
    td::cuda::detail::check(cudaErrorMemoryAllocation, "cudaMallocAsync");
    ADD_FAILURE() << "no error thrown";
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::device);
    EXPECT_NE(std::string(e.what()).find("cudaMallocAsync"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorMemoryAllocation"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(td::cuda::detail::check(cudaSuccess, "x"));
}

TEST(CudaLayout, GridDependsOnlyOnTheElementCount) {
  EXPECT_EQ(td::cuda::detail::grid_for(1), 1u);
  EXPECT_EQ(td::cuda::detail::grid_for(257), 2u);
  EXPECT_EQ(td::cuda::detail::grid_for(std::uint64_t{1} << 40), 1024u);
  // Dimensions contiguous in both views merge; a transpose does not.
  float x[12] = {};
  const td::TensorView c = td::TensorView::of(x, {3, 4}), t = c.permuted({1, 0});
  const auto lc = td::cuda::detail::make_layout<2>({&c, &c});
  EXPECT_TRUE(lc.contiguous);
  const auto lt = td::cuda::detail::make_layout<2>({&t, &c});
  EXPECT_FALSE(lt.contiguous);
  EXPECT_EQ(lt.rank, 2);
  EXPECT_EQ(lt.stride[0][0], 1);
  EXPECT_EQ(lt.stride[0][1], 4);
  EXPECT_EQ(lt.stride[1][1], 1);
}

TEST_F(CudaTest, FloatPairsAllCombinationsSizesAndNonFinite) {
  const DType floats[] = {DType::float32, DType::float16, DType::bfloat16, DType::float64};
  for (DType ta : floats)
    for (DType tb : floats)
      for (std::size_t n : {std::size_t{2}, std::size_t{33}, std::size_t{1029}, std::size_t{524365}}) {
        check_pair(ta, tb, n, NonFinite::none);
        check_pair(ta, tb, n, NonFinite::matched, 11);
      }
}

TEST_F(CudaTest, IntegerAndPromotedPairs) {
  const std::pair<DType, DType> pairs[] = {
      {DType::int32, DType::int32},  {DType::int64, DType::int64},   {DType::int32, DType::int64},
      {DType::int64, DType::uint64}, {DType::uint64, DType::uint64}, {DType::uint8, DType::int16},
      {DType::boolean, DType::boolean}, {DType::int32, DType::float32}, {DType::float16, DType::int64},
      {DType::uint32, DType::int8}};
  for (auto [ta, tb] : pairs)
    for (std::size_t n : {std::size_t{3}, std::size_t{1029}, std::size_t{524365}}) check_pair(ta, tb, n, NonFinite::none);
}

TEST_F(CudaTest, Int64BeyondDoublePrecisionStaysExact) {
  const std::vector<std::int64_t> a = {(std::int64_t{1} << 62) + 1, -(std::int64_t{1} << 62), 5, 7};
  const std::vector<std::uint64_t> b = {std::uint64_t{1} << 62, std::uint64_t{1} << 63, 5, 9};
  const td::Tensor ta = td::Tensor::from_values(a, {4}), tb = td::Tensor::from_values(b, {4});
  check_views(ta, ta.view(), tb, tb.view(), 1e19, {});
}

TEST_F(CudaTest, ManyGridStrideIterations) {
  check_pair(DType::float32, DType::float32, 5'000'011, NonFinite::matched, 3);
  check_pair(DType::bfloat16, DType::float32, 3'000'017, NonFinite::none, 4);
}

TEST_F(CudaTest, NonFiniteMismatchFindsTheFirstPosition) {
  for (auto [ta, tb] : {std::pair{DType::float32, DType::float16}, std::pair{DType::float64, DType::float64},
                        std::pair{DType::bfloat16, DType::bfloat16}})
    for (std::size_t n : {std::size_t{100}, std::size_t{300007}}) check_pair(ta, tb, n, NonFinite::mismatched);
}

TEST_F(CudaTest, EveryHalfAndBfloat16BitPattern) {
  // All 65,536 patterns of each 16-bit type (subnormals, ±0, ±inf, NaN payloads) through the
  // device conversions: f16 vs bf16 of the same bits, then the bits reversed against
  // themselves; statistics of each side by summarize().
  std::vector<std::uint16_t> bits(65536), reversed(65536);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = reversed[bits.size() - 1 - i] = static_cast<std::uint16_t>(i);
  const td::Shape shape{65536};
  auto tensor = [&](DType t, const std::vector<std::uint16_t>& b) {
    td::Tensor x = td::Tensor::zeros(t, shape);
    std::memcpy(x.mutable_data<std::uint16_t>(), b.data(), b.size() * sizeof(std::uint16_t));
    return x;
  };
  const td::Tensor f16 = tensor(DType::float16, bits), bf16 = tensor(DType::bfloat16, bits),
                   f16r = tensor(DType::float16, reversed);
  const double f16_max = 65504, bf16_max = 3.39e38;  // the sums' scale; extremes and counts stay exact
  check_views(f16, f16.view(), bf16, bf16.view(), bf16_max);
  check_views(f16, f16.view(), f16r, f16r.view(), f16_max);
  for (auto [t, scale] : {std::pair{&f16, f16_max}, std::pair{&bf16, bf16_max}}) {
    const DeviceCopy d(*t);
    expect_side_close(td::cuda::summarize(d.view(t->view())).stats, td::summarize<td::kernels::Scalar>(t->view()).stats,
                      65536, scale, 1e-13);
  }
}

TEST_F(CudaTest, StridedViews) {
  const std::size_t rows = 97, cols = 613;
  for (auto [ta, tb] : {std::pair{DType::float32, DType::float32}, std::pair{DType::bfloat16, DType::float64},
                        std::pair{DType::int32, DType::int64}}) {
    SCOPED_TRACE(std::string(td::dtype_name(ta)) + " vs " + td::dtype_name(tb));
    const PairValues v = pair_values(rows * cols, ta, tb, NonFinite::matched, 5);
    const td::Shape shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
    const td::Tensor a = make_tensor(ta, v.a, shape), b = make_tensor(tb, v.b, shape);
    const td::TensorView va = a.view(), vb = b.view();
    const auto R = static_cast<std::int64_t>(rows), C = static_cast<std::int64_t>(cols);
    // transposes (one side and both), every other column, reversed rows,
    // a broadcast row, and a 3-d permutation
    check_views(a, va.permuted({1, 0}), b, vb.permuted({1, 0}), 250);
    check_views(a, va.permuted({1, 0}), b, td::TensorView(vb.data, tb, {C, R}), 250);
    check_views(a, td::TensorView(va.data, ta, {R, C / 2}, {C, 2}), b, td::TensorView(vb.data, tb, {R, C / 2}, {C, 2}), 250);
    const std::int64_t last = (R - 1) * C;
    check_views(a, td::TensorView(va.data + last * static_cast<std::int64_t>(va.itemsize()), ta, {R, C}, {-C, 1}), b, vb, 250);
    check_views(a, td::TensorView(va.data, ta, {R, C}, {0, 1}), b, vb, 250);
    check_views(a, td::TensorView(va.data, ta, {R, 1, C}, {C, C, 1}).permuted({2, 0, 1}), b,
                td::TensorView(vb.data, tb, {R, 1, C}, {C, C, 1}).permuted({2, 0, 1}), 250);
  }
}

TEST_F(CudaTest, ValidationPaths) {
  // 0-d (the values at index 0 come from the device), length 1, empty.
  {
    const td::Tensor a = make_tensor(DType::float32, {3.0}, {}), b = make_tensor(DType::float16, {2.0}, {});
    check_views(a, a.view(), b, b.view(), 3);
    const td::Tensor a1 = make_tensor(DType::float32, {3.0}, {1, 1}), b1 = make_tensor(DType::float32, {2.0}, {1});
    td::CompareOptions keep;
    keep.squeeze = false;
    check_views(a1, a1.view(), b1, td::TensorView(b1.view().data, DType::float32, {1, 1}), 3, keep);
    const td::Tensor e = make_tensor(DType::float32, {}, {0, 4});
    EXPECT_EQ(td::cuda::compare(e.view(), e.view()).validation, td::Validation::empty);
  }
  // Shape mismatch: each side's statistics from the summarize kernel.
  {
    const PairValues v = pair_values(70001, DType::float32, DType::float32, NonFinite::matched);
    const td::Tensor a = make_tensor(DType::float32, v.a, {70001});
    const td::Tensor b = make_tensor(DType::bfloat16, {v.b.begin(), v.b.begin() + 7000}, {70, 100});
    const DeviceCopy da(a), db(b);
    const td::Comparison dev = td::cuda::compare(da.view(a.view()), db.view(b.view()));
    const td::Comparison ref = td::compare<td::kernels::Scalar>(a.view(), b.view());
    EXPECT_EQ(dev.validation, td::Validation::shape_unmatched);
    EXPECT_EQ(dev.messages, ref.messages);
    expect_side_close(dev.actual.stats, ref.actual.stats, 70001, 250, 1e-13);
    expect_side_close(dev.expected.stats, ref.expected.stats, 7000, 250, 1e-13);
    EXPECT_EQ(dev.expected.shape, ref.expected.shape);
    const td::Summary s = td::cuda::summarize(db.view(b.view().permuted({1, 0})));
    expect_side_close(s.stats, td::summarize<td::kernels::Scalar>(b.view()).stats, 7000, 250, 1e-13);
  }
}

TEST_F(CudaTest, RefusesHostPointersForeignByteOrderAndComplex) {
  std::vector<float> host(1000, 1.0f);
  const td::TensorView h = td::TensorView::of(host.data(), {1000});
  auto expect_error = [](auto&& f, td::ErrorCategory cat) {
    try {
      f();
      ADD_FAILURE() << "no error thrown";
    } catch (const td::Error& e) {
      EXPECT_EQ(e.category(), cat) << e.what();
    }
  };
  expect_error([&] { td::cuda::compare(h, h); }, td::ErrorCategory::invalid_argument);
  const td::Tensor t = make_tensor(DType::float32, std::vector<double>(8, 1.0), {8});
  const DeviceCopy d(t);
  td::TensorView be = d.view(t.view());
  be.byte_order = td::native_byte_order == td::ByteOrder::little ? td::ByteOrder::big : td::ByteOrder::little;
  expect_error([&] { td::cuda::compare(be, be); }, td::ErrorCategory::invalid_argument);
  td::TensorView cx = d.view(t.view());
  cx.dtype = DType::complex64;
  cx.shape = cx.strides = {4};
  cx.strides = {1};
  expect_error([&] { td::cuda::compare(cx, cx); }, td::ErrorCategory::unsupported);
}

TEST_F(CudaTest, RunsOnAUserStream) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  const PairValues v = pair_values(100003, DType::float16, DType::float32, NonFinite::none);
  const td::Tensor a = make_tensor(DType::float16, v.a, {100003}), b = make_tensor(DType::float32, v.b, {100003});
  const DeviceCopy da(a), db(b);
  const td::Comparison on_stream = td::cuda::compare(da.view(a.view()), db.view(b.view()), {}, s);
  const td::Comparison on_default = td::cuda::compare(da.view(a.view()), db.view(b.view()));
  EXPECT_EQ(0, std::memcmp(&on_stream.partial, &on_default.partial, sizeof(td::Partial)));
  expect_close(on_stream, td::compare<td::kernels::Scalar>(a.view(), b.view()), 250);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

}  // namespace
