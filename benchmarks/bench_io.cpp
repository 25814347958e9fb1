// Reading speed: a 256 MiB float32 .npy from the page cache.
//
//   BM_MmapSum         baseline: open + mmap + sum of the raw floats (no parsing)
//   BM_NpyMappedSum    io::read_npy (mmap, zero-copy view) + the same sum over the view
//   BM_NpyMappedView   io::read_npy to a ready view only (header parse + mmap)
//   BM_NpyReadSum      io::read_npy with MapPolicy::never (read() into a buffer) + sum
//
// The bar: opening to a ready view and summing runs at >= 0.9x the
// speed of mmap+sum of the same file. The file is written once to
// $TD_BENCH_DIR (default /tmp) and read once before timing, so it is in the
// page cache.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <tensordiff/io/npy.hpp>

namespace {
namespace tio = tensordiff::io;

constexpr std::int64_t kFloats = 64ll << 20;  // 256 MiB

const std::string& bench_file() {
  static const std::string path = [] {
    const char* dir = std::getenv("TD_BENCH_DIR");
    std::string p = std::string(dir ? dir : "/tmp") + "/td_bench_io_256MiB.npy";
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || st.st_size < kFloats * 4) {
      std::vector<float> v(static_cast<std::size_t>(kFloats));
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000) * 0.5f;
      tio::save_npy(p, tensordiff::TensorView::of(v.data(), {kFloats}));
    }
    // Warm the page cache.
    const auto f = tio::MappedFile::open(p, tio::MapPolicy::never);
    benchmark::DoNotOptimize(f->data());
    return p;
  }();
  return path;
}

// Plain sum, vectorisable (8 independent lanes); the same loop for every case.
// Not inlined: the same code for every case (and gcc -O3 then stops warning
// about a tail loop it cannot bound).
__attribute__((noinline)) double sum_floats(const float* p, std::size_t n) {
  float acc[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) acc[k] += p[i + k];
  double s = 0;
  for (float a : acc) s += a;
  for (; i < n; ++i) s += p[i];
  return s;
}

void BM_MmapSum(benchmark::State& state) {
  const std::string& path = bench_file();
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    struct stat st {};
    ::fstat(fd, &st);
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    // The data starts after numpy's 128-byte header; sum the floats only.
    const auto* f = reinterpret_cast<const float*>(static_cast<const char*>(p) + 128);
    benchmark::DoNotOptimize(sum_floats(f, static_cast<std::size_t>(kFloats)));
    ::munmap(p, static_cast<std::size_t>(st.st_size));
  }
  state.SetBytesProcessed(state.iterations() * kFloats * 4);
}

void BM_NpyMappedSum(benchmark::State& state) {
  const std::string& path = bench_file();
  tio::LoadOptions o;
  o.map = tio::MapPolicy::always;
  for (auto _ : state) {
    const tio::LoadedTensor t = tio::read_npy(path, o);
    benchmark::DoNotOptimize(sum_floats(t.tensor.data<float>(), static_cast<std::size_t>(t.tensor.numel())));
  }
  state.SetBytesProcessed(state.iterations() * kFloats * 4);
}

void BM_NpyMappedView(benchmark::State& state) {
  const std::string& path = bench_file();
  tio::LoadOptions o;
  o.map = tio::MapPolicy::always;
  for (auto _ : state) {
    const tio::LoadedTensor t = tio::read_npy(path, o);
    benchmark::DoNotOptimize(t.tensor.view().data);
  }
}

void BM_NpyReadSum(benchmark::State& state) {
  const std::string& path = bench_file();
  tio::LoadOptions o;
  o.map = tio::MapPolicy::never;
  for (auto _ : state) {
    const tio::LoadedTensor t = tio::read_npy(path, o);
    benchmark::DoNotOptimize(sum_floats(t.tensor.data<float>(), static_cast<std::size_t>(t.tensor.numel())));
  }
  state.SetBytesProcessed(state.iterations() * kFloats * 4);
}

BENCHMARK(BM_MmapSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NpyMappedSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NpyMappedView)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_NpyReadSum)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// main() comes from bench_compare.cpp (one tensordiff_bench binary).
