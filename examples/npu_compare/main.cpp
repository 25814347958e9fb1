// Uploads two float32 tensors to an Ascend NPU and compares them there with
// tensordiff::npu::compare (streamed to the host in double-buffered chunks).
//
//   td_npu_compare [n] [device]
#include <tensordiff/backends/npu.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace td = tensordiff;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 24;
  const int device = argc > 2 ? std::atoi(argv[2]) : 0;
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = std::sin(0.001f * static_cast<float>(i)) * 10.0f;
    b[i] = a[i] * (1.0f + 1e-4f * std::cos(static_cast<float>(i)));
  }
  aclrtStream stream = nullptr;
  void* da = nullptr;
  void* db = nullptr;
  int rc = 0;
  try {
    using td::npu::detail::check;
    check(aclInit(nullptr), "aclInit");
    check(aclrtSetDevice(device), "aclrtSetDevice");
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    check(aclrtMalloc(&da, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&db, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMemcpy(da, n * sizeof(float), a.data(), n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
    check(aclrtMemcpy(db, n * sizeof(float), b.data(), n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");

    const td::Shape shape{static_cast<std::int64_t>(n)};
    td::npu::Options transfer;
    transfer.transfer_elements = std::size_t{1} << 22;  // 2 × 4 Mi × 8 bytes = 64 MiB of pinned memory
    const td::Comparison c = td::npu::compare(td::TensorView(da, td::DType::float32, shape),
                                              td::TensorView(db, td::DType::float32, shape), {}, stream, transfer);
    // The same numbers as td::compare() on host copies, bit for bit:
    const td::Comparison host = td::compare(td::TensorView::of(a.data(), shape), td::TensorView::of(b.data(), shape));
    std::printf("cosine       %.12f (host %.12f)\n", c.cosine.value, host.cosine.value);
    std::printf("max abs err  %.6g at %llu\n", c.max_abs_err.value, static_cast<unsigned long long>(c.max_abs_index));
    std::printf("max rel err  %.6g\n", c.max_rel_err.value);
    std::printf("rmse         %.6g\n", c.rmse.value);
  } catch (const td::Error& e) {
    std::fprintf(stderr, "td_npu_compare: %s\n", e.what());
    rc = 1;
  }
  if (da) aclrtFree(da);
  if (db) aclrtFree(db);
  if (stream) aclrtDestroyStream(stream);
  aclrtResetDevice(device);
  aclFinalize();
  return rc;
}
