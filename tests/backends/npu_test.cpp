// The ACL adapter (backends/npu.hpp) against the ACL test double in
// tests/fakes/acl: chunking, copy/compute overlap order, bounded host memory,
// error mapping, and results bit-identical to the host compare().
#include <tensordiff/backends/npu.hpp>

#include <algorithm>
#include <atomic>
#include <functional>

#include "../fakes/acl/fake_acl.hpp"
#include "backend_test_data.hpp"

namespace {
namespace td = tensordiff;
using td::DType;
using namespace td_backend_test;

std::atomic<int> g_reads_of_pending{0};

/// kernels::Default that logs each call and checks it never reads memory a
/// queued copy is still writing.
struct RecordingKernel {
  static constexpr const char* name = "recording";
  template <class TA, class TB>
  static void accumulate(const TA* a, const TB* b, std::size_t n, std::uint64_t first, const td::KernelParams& k,
                         td::Partial& out) {
    if (fake_acl::pending_write_overlaps(a, n * sizeof(TA)) || fake_acl::pending_write_overlaps(b, n * sizeof(TB)))
      ++g_reads_of_pending;
    fake_acl::Event e{"compute"};
    e.value = first;
    e.bytes = n;
    fake_acl::record(e);
    td::kernels::Default::accumulate(a, b, n, first, k, out);
  }
  template <class T> static void summarize(const T* x, std::size_t n, td::SideStats& out) {
    td::kernels::Default::summarize(x, n, out);
  }
};

class NpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_acl::reset();
    g_reads_of_pending = 0;
  }
  void TearDown() override {
    EXPECT_EQ(fake_acl::live_host_allocations(), 0u) << "pinned memory leaked";
    EXPECT_EQ(fake_acl::pending_copies(), 0u) << "copies left in flight";
    EXPECT_TRUE(fake_acl::violations().empty()) << fake_acl::violations().front();
    EXPECT_EQ(g_reads_of_pending, 0) << "the kernel read a buffer before its copy completed";
  }
  /// Host tensors standing in for device memory, registered with the double.
  std::pair<td::Tensor, td::Tensor> device_pair(const PairValues& v, DType ta, DType tb, td::Shape shape) {
    td::Tensor a = make_tensor(ta, v.a, shape), b = make_tensor(tb, v.b, shape);
    fake_acl::register_device(a.view().data, a.nbytes());
    fake_acl::register_device(b.view().data, b.nbytes());
    return {a, b};
  }
};

std::string describe(const fake_acl::Event& e) {
  if (e.op == "memcpy")
    return "memcpy d" + std::to_string(e.device_id) + "+" + std::to_string(e.device_offset) + " " +
           std::to_string(e.bytes) + " -> h" + std::to_string(e.host_id) + "+" + std::to_string(e.host_offset);
  if (e.op == "compute") return "compute " + std::to_string(e.value) + " " + std::to_string(e.bytes);
  return e.op;
}

TEST_F(NpuTest, BitIdenticalToHostCompareAcrossDtypesChunksAndThreads) {
  struct Case {
    DType a, b;
    NonFinite nf;
  };
  const Case cases[] = {
      {DType::float32, DType::float32, NonFinite::matched}, {DType::bfloat16, DType::float32, NonFinite::none},
      {DType::float16, DType::float16, NonFinite::matched}, {DType::float64, DType::float64, NonFinite::mismatched},
      {DType::int32, DType::int64, NonFinite::none},        {DType::uint8, DType::float32, NonFinite::none},
      {DType::int64, DType::uint64, NonFinite::none},       {DType::float32, DType::float64, NonFinite::mismatched},
  };
  for (const Case& cs : cases)
    for (std::size_t n : {std::size_t{7}, std::size_t{1000}, std::size_t{20011}})
      for (std::size_t chunk : {std::size_t{1000}, std::size_t{1} << 16})
        for (std::size_t transfer : {std::size_t{1}, std::size_t{2500}, std::size_t{1} << 20})
          for (unsigned threads : {1u, 3u, 0u}) {
            SCOPED_TRACE(std::string(td::dtype_name(cs.a)) + " vs " + td::dtype_name(cs.b) + " n=" + std::to_string(n) +
                         " chunk=" + std::to_string(chunk) + " transfer=" + std::to_string(transfer) +
                         " threads=" + std::to_string(threads));
            fake_acl::reset();
            const PairValues v = pair_values(n, cs.a, cs.b, cs.nf, static_cast<unsigned>(n));
            const td::Shape shape{static_cast<std::int64_t>(n)};
            auto [a, b] = device_pair(v, cs.a, cs.b, shape);
            td::CompareOptions o;
            o.chunk_elements = chunk;
            o.threads = threads;
            const td::Comparison host = td::compare(a.view(), b.view(), o);
            const td::Comparison dev = td::npu::compare(a.view(), b.view(), o, nullptr, td::npu::Options{transfer});
            expect_identical(dev, host);
            EXPECT_EQ(fake_acl::live_host_allocations(), 0u);
          }
}

TEST_F(NpuTest, TiedMaximaAcrossTransfersAndChunksKeepTheFirstIndex) {
  // |a - b| = 1 and relative error 1 at four positions spread over transfers and chunks,
  // everything else equal: both maxima belong to the first position, as in one pass, whatever
  // order the chunks finish in (the chunks start from the maxima found before them).
  const std::size_t n = 40009;
  const std::size_t tied[] = {25013, 9001, 39999, 17000};
  std::vector<double> va(n, 0.5), vb(n, 0.5);
  for (std::size_t i : tied) va[i] = 2, vb[i] = 1;
  const PairValues v{va, vb};
  for (DType t : {DType::float32, DType::bfloat16})
    for (unsigned threads : {1u, 3u})
      for (std::size_t transfer : {std::size_t{3000}, std::size_t{1} << 20}) {
        SCOPED_TRACE(std::string(td::dtype_name(t)) + " threads=" + std::to_string(threads) +
                     " transfer=" + std::to_string(transfer));
        fake_acl::reset();
        auto [a, b] = device_pair(v, t, t, td::Shape{static_cast<std::int64_t>(n)});
        td::CompareOptions o;
        o.chunk_elements = 1000;
        o.threads = threads;
        const td::Comparison dev = td::npu::compare(a.view(), b.view(), o, nullptr, td::npu::Options{transfer});
        expect_identical(dev, td::compare(a.view(), b.view(), o));
        const std::size_t first = *std::min_element(std::begin(tied), std::end(tied));
        EXPECT_EQ(dev.max_abs_index, first);
        EXPECT_EQ(dev.max_rel_index, first);
      }
}

TEST_F(NpuTest, CopiesOfTheNextChunkAreIssuedBeforeTheCurrentChunkIsComputed) {
  const std::size_t n = 10000;
  const PairValues v = pair_values(n, DType::float32, DType::float32, NonFinite::none);
  auto [a, b] = device_pair(v, DType::float32, DType::float32, {100, 100});
  td::CompareOptions o;
  o.chunk_elements = 1000;
  o.threads = 1;  // RecordingKernel logs from the calling thread only
  const td::Comparison dev = td::npu::compare<RecordingKernel>(a.view(), b.view(), o, nullptr, td::npu::Options{3400});
  expect_identical(dev, td::compare(a.view(), b.view(), o));

  // Transfer chunks of 3000 (3400 rounded down to whole compare chunks):
  // [0,3000) [3000,6000) [6000,9000) [9000,10000), alternating pinned buffers h0/h1
  // that hold a at +0 and b at +12032 (12000 rounded up to 64 bytes).
  std::vector<std::string> expected;
  auto copies = [&](std::size_t c) {
    const std::size_t begin = c * 3000, m = std::min<std::size_t>(3000, n - begin), h = c % 2;
    for (int side : {0, 1})
      expected.push_back("memcpy d" + std::to_string(side) + "+" + std::to_string(begin * 4) + " " + std::to_string(m * 4) +
                         " -> h" + std::to_string(h) + "+" + std::to_string(side * 12032));
  };
  copies(0);
  for (std::size_t c = 0; c < 4; ++c) {
    expected.push_back("sync");
    if (c + 1 < 4) copies(c + 1);
    for (std::size_t first = c * 3000; first < std::min<std::size_t>(n, (c + 1) * 3000); first += 1000)
      expected.push_back("compute " + std::to_string(first) + " 1000");
  }
  std::vector<std::string> actual;
  std::size_t frees = 0, mallocs = 0;
  for (const fake_acl::Event& e : fake_acl::log()) {
    if (e.op == "malloc_host") {
      if (actual.empty()) {
        ++mallocs;
        EXPECT_EQ(e.bytes, 12032u + 12032u);
      }
      continue;
    }
    if (e.op == "free_host") {
      ++frees;
      break;  // the streaming buffers are released; then the argmax elements are fetched
    }
    actual.push_back(describe(e));
  }
  EXPECT_EQ(mallocs, 2u);
  EXPECT_EQ(frees, 1u);
  EXPECT_EQ(actual, expected);
  EXPECT_LE(fake_acl::peak_host_bytes(), 2u * (12032u + 12032u));
}

TEST_F(NpuTest, PartialCopiesAreNeverReadBeforeSynchronisation) {
  fake_acl::set_partial_copies(true);
  const std::size_t n = 5000;
  const PairValues v = pair_values(n, DType::bfloat16, DType::float32, NonFinite::none);
  auto [a, b] = device_pair(v, DType::bfloat16, DType::float32, {static_cast<std::int64_t>(n)});
  td::CompareOptions o;
  o.chunk_elements = 512;
  o.threads = 1;
  expect_identical(td::npu::compare<RecordingKernel>(a.view(), b.view(), o, nullptr, td::npu::Options{1024}),
                   td::compare(a.view(), b.view(), o));
}

TEST_F(NpuTest, TheDoubleExposesReadsBeforeSynchronisation) {
  // Negative control: the double really makes an early read visible.
  std::vector<float> dev(64, 1.5f);
  fake_acl::register_device(dev.data(), dev.size() * 4);
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 256), ACL_SUCCESS);
  fake_acl::set_partial_copies(true);
  ASSERT_EQ(aclrtMemcpyAsync(host, 256, dev.data(), 256, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_SUCCESS);
  const float* h = static_cast<const float*>(host);
  EXPECT_EQ(h[0], 1.5f);           // first half landed
  EXPECT_TRUE(std::isnan(h[63]));  // second half still poisoned
  EXPECT_TRUE(fake_acl::pending_write_overlaps(h + 63, 4));
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(h[63], 1.5f);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  // Bad copies are refused, not performed.
  float outside[4];
  EXPECT_EQ(aclrtMemcpyAsync(outside, 16, dev.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(fake_acl::violations().size(), 1u);
  fake_acl::reset();
}

void expect_device_error(const std::function<void()>& f, const std::string& call, const std::string& code) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::device);
    EXPECT_NE(std::string(e.what()).find(call), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ACL error " + code), std::string::npos) << e.what();
  }
}

TEST_F(NpuTest, AclErrorsBecomeDeviceErrorsWithTheAclCodeAndReleaseEverything) {
  const std::size_t n = 10000;
  const PairValues v = pair_values(n, DType::float32, DType::float16, NonFinite::none);
  auto [a, b] = device_pair(v, DType::float32, DType::float16, {static_cast<std::int64_t>(n)});
  td::CompareOptions o;
  o.chunk_elements = 1000;
  auto run = [&] { td::npu::compare(a.view(), b.view(), o, nullptr, td::npu::Options{2000}); };
  struct Fault {
    const char* call;
    int nth;
    int code;
  };
  for (const Fault& f : {Fault{"aclrtMemcpyAsync", 1, 507899}, Fault{"aclrtMemcpyAsync", 4, 507011},
                         Fault{"aclrtMemcpyAsync", 11, 107000}, Fault{"aclrtSynchronizeStream", 3, 507035},
                         Fault{"aclrtMallocHost", 2, 207001}}) {
    SCOPED_TRACE(std::string(f.call) + " #" + std::to_string(f.nth));
    fake_acl::fail_call(f.call, f.nth, f.code);
    expect_device_error(run, f.call, std::to_string(f.code));
    EXPECT_EQ(fake_acl::live_host_allocations(), 0u);
    EXPECT_EQ(fake_acl::pending_copies(), 0u);
  }
  // And after the faults, the same call works.
  expect_identical(td::npu::compare(a.view(), b.view(), o, nullptr, td::npu::Options{2000}),
                   td::compare(a.view(), b.view(), o));
}

TEST_F(NpuTest, ValidationPathsMatchTheHost) {
  // 0-d: the values come from device memory.
  {
    const PairValues v{{3.0}, {2.0}};
    auto [a, b] = device_pair(v, DType::float32, DType::float64, {});
    expect_identical(td::npu::compare(a.view(), b.view()), td::compare(a.view(), b.view()));
  }
  // Empty: no ACL call at all.
  {
    const std::size_t before = fake_acl::log().size();
    const td::Tensor a = make_tensor(DType::float32, {}, {0, 3});
    const td::Comparison c = td::npu::compare(a.view(), a.view());
    EXPECT_EQ(c.validation, td::Validation::empty);
    EXPECT_EQ(fake_acl::log().size(), before);
  }
  // Shape mismatch: per-side summaries streamed (sums may differ in the last bits only).
  {
    const PairValues v = pair_values(3000, DType::float32, DType::float32, NonFinite::matched);
    td::Tensor a = make_tensor(DType::float32, v.a, {3000});
    td::Tensor b = make_tensor(DType::float32, {v.b.begin(), v.b.begin() + 2000}, {2000});
    fake_acl::register_device(a.view().data, a.nbytes());
    fake_acl::register_device(b.view().data, b.nbytes());
    const td::Comparison dev = td::npu::compare(a.view(), b.view(), {}, nullptr, td::npu::Options{700});
    const td::Comparison host = td::compare(a.view(), b.view());
    EXPECT_EQ(dev.validation, td::Validation::shape_unmatched);
    EXPECT_EQ(dev.messages, host.messages);
    expect_side_close(dev.actual.stats, host.actual.stats, 3000, 100, 1e-14);
    expect_side_close(dev.expected.stats, host.expected.stats, 2000, 100, 1e-14);
    EXPECT_EQ(dev.actual.nan_count, host.actual.nan_count);
    EXPECT_EQ(dev.expected.shape, host.expected.shape);
  }
  // Strided device views are refused with a clear error.
  {
    const PairValues v = pair_values(12, DType::float32, DType::float32, NonFinite::none);
    auto [a, b] = device_pair(v, DType::float32, DType::float32, {3, 4});
    const td::TensorView at = a.view().permuted({1, 0});
    try {
      td::npu::compare(at, b.view().permuted({1, 0}));
      ADD_FAILURE() << "no error thrown";
    } catch (const td::Error& e) {
      EXPECT_EQ(e.category(), td::ErrorCategory::unsupported);
      EXPECT_NE(std::string(e.what()).find("contiguous"), std::string::npos);
    }
  }
}

}  // namespace
