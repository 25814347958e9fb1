// tensordiff_cuda_bench: td::cuda::compare() / summarize() on device memory
// against the same run's device read bandwidth (see benchmarks/README.md).
//
// Names: BM_cuda_read_bandwidth/<input bytes>, BM_cuda_compare/<pair>/<input
// bytes>, BM_cuda_summarize/f32/<bytes>. Input bytes count both sides, as in
// tensordiff_bench; bytes_per_second is input read per wall-clock second of the
// whole call (launch, block merge and the argmax values' copies included: what
// a caller waits for). The data is pseudo-random, never zeros, with a few
// relative errors across msprobe's thresholds.
#include <benchmark/benchmark.h>

#include <tensordiff/backends/cuda.hpp>

#include <cstdint>
#include <string>

namespace {
namespace td = tensordiff;
using td::cuda::detail::check;
using td::cuda::detail::DeviceBuffer;  // device memory on the default stream, as every launch here

__device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// a[i] in [-4, 4); b[i] = a[i] · (1 + d) with |d| < 2^-8 (relative errors on both
/// sides of 0.001 and 0.005), each rounded to its own type.
template <class TA, class TB> __global__ void fill_pair(TA* a, TB* b, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t r = mix(i + 0x9e3779b97f4a7c15ull);
    const double x = static_cast<double>(r >> 11) * 0x1p-53 * 8.0 - 4.0;
    const double d = (static_cast<double>(r & 0x7ff) / 2048.0 - 0.5) * 0x1p-7;
    a[i] = static_cast<TA>(x);
    b[i] = static_cast<TB>(x * (1.0 + d));
  }
}

/// The plainest fast read: 16-byte loads of both buffers, four in flight per
/// thread, folded into one word per block so nothing is optimised away.
__global__ void read_kernel(const uint4* a, const uint4* b, std::uint64_t words, unsigned* out) {
  unsigned acc = 0;
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  for (; i + 3 * step < words; i += 4 * step) {
    const uint4 x0 = a[i], x1 = a[i + step], x2 = a[i + 2 * step], x3 = a[i + 3 * step];
    const uint4 y0 = b[i], y1 = b[i + step], y2 = b[i + 2 * step], y3 = b[i + 3 * step];
    acc += (x0.x ^ x1.y ^ x2.z ^ x3.w) + (y0.x ^ y1.y ^ y2.z ^ y3.w) + (x0.w ^ x1.z ^ x2.y ^ x3.x) +
           (y0.w ^ y1.z ^ y2.y ^ y3.x) + (x0.y ^ x1.x ^ x2.w ^ x3.z) + (y0.y ^ y1.x ^ y2.w ^ y3.z) +
           (x0.z ^ x1.w ^ x2.x ^ x3.y) + (y0.z ^ y1.w ^ y2.x ^ y3.y);
  }
  for (; i < words; i += step) acc += a[i].x ^ a[i].y ^ a[i].z ^ a[i].w ^ b[i].x ^ b[i].y ^ b[i].z ^ b[i].w;
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31u) == 0) atomicAdd(out + blockIdx.x, acc);
}

int sm_count() {
  int dev = 0, sms = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  return sms;
}

void bm_read(benchmark::State& st, std::size_t bytes) {
  const DeviceBuffer a(bytes / 2, nullptr), b(bytes / 2, nullptr);
  const unsigned blocks = static_cast<unsigned>(sm_count()) * 8;
  const DeviceBuffer out(blocks * sizeof(unsigned), nullptr);
  for (auto _ : st) {
    read_kernel<<<blocks, 256>>>(a.as<uint4>(), b.as<uint4>(), bytes / 2 / sizeof(uint4), out.as<unsigned>());
    check(cudaGetLastError(), "read_kernel launch");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(bytes));
}

/// cuda::compare of an n-element pair; `transposed` views side a as the
/// transpose of a square-ish matrix (the strided path of the kernel).
template <class TA, class TB> void bm_compare(benchmark::State& st, std::size_t bytes, bool transposed) {
  const std::size_t n = bytes / (sizeof(TA) + sizeof(TB));
  const DeviceBuffer a(n * sizeof(TA), nullptr), b(n * sizeof(TB), nullptr);
  fill_pair<<<1024, 256>>>(a.as<TA>(), b.as<TB>(), n);
  check(cudaDeviceSynchronize(), "fill_pair");
  const td::DType dt_a = td::dtype_of<TA>(), dt_b = td::dtype_of<TB>();
  td::TensorView va(a.as<TA>(), dt_a, {static_cast<std::int64_t>(n)});
  const td::TensorView vb(b.as<TB>(), dt_b, {static_cast<std::int64_t>(n)});
  td::TensorView vb2 = vb;
  if (transposed) {  // rows x cols, a read column by column
    const std::int64_t rows = 1024, cols = static_cast<std::int64_t>(n) / rows;
    va = td::TensorView(a.as<TA>(), dt_a, {cols, rows}).permuted({1, 0});
    vb2 = td::TensorView(b.as<TB>(), dt_b, {rows, cols});
  }
  double cosine = 0;
  for (auto _ : st) cosine = td::cuda::compare(va, vb2).cosine.value;
  st.counters["cosine"] = cosine;
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(va.numel() * (sizeof(TA) + sizeof(TB))));
}

void bm_summarize(benchmark::State& st, std::size_t bytes) {
  const std::size_t n = bytes / sizeof(float);
  const DeviceBuffer a(bytes, nullptr);
  fill_pair<<<1024, 256>>>(a.as<float>(), a.as<float>(), n);  // one buffer: b[i] = a[i](1 + d) lands last
  check(cudaDeviceSynchronize(), "fill_pair");
  const td::TensorView v(a.as<float>(), td::DType::float32, {static_cast<std::int64_t>(n)});
  for (auto _ : st) benchmark::DoNotOptimize(td::cuda::summarize(v).stats.sum);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(bytes));
}

template <class F> void add(const std::string& name, F f) {
  benchmark::RegisterBenchmark(name.c_str(), f)->Unit(benchmark::kMicrosecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("tensordiff_cuda_bench: no CUDA device");
    return 0;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  benchmark::AddCustomContext("cuda_device", prop.name);
  for (std::size_t bytes : {std::size_t{16} << 20, std::size_t{256} << 20, std::size_t{2} << 30}) {
    const std::string tail = "/" + std::to_string(bytes);
    add("BM_cuda_read_bandwidth" + tail, [bytes](benchmark::State& s) { bm_read(s, bytes); });
    add("BM_cuda_compare/f32" + tail, [bytes](benchmark::State& s) { bm_compare<float, float>(s, bytes, false); });
    add("BM_cuda_compare/bf16" + tail,
        [bytes](benchmark::State& s) { bm_compare<td::bfloat16, td::bfloat16>(s, bytes, false); });
    add("BM_cuda_compare/f16" + tail,
        [bytes](benchmark::State& s) { bm_compare<td::float16, td::float16>(s, bytes, false); });
    add("BM_cuda_compare/f32_bf16" + tail,
        [bytes](benchmark::State& s) { bm_compare<float, td::bfloat16>(s, bytes, false); });
    add("BM_cuda_compare/f64" + tail, [bytes](benchmark::State& s) { bm_compare<double, double>(s, bytes, false); });
    add("BM_cuda_compare/int32" + tail,
        [bytes](benchmark::State& s) { bm_compare<std::int32_t, std::int32_t>(s, bytes, false); });
    add("BM_cuda_compare_transposed/f32" + tail,
        [bytes](benchmark::State& s) { bm_compare<float, float>(s, bytes, true); });
    add("BM_cuda_summarize/f32" + tail, [bytes](benchmark::State& s) { bm_summarize(s, bytes / 2); });
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
