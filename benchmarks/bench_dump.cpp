// End-to-end dump comparison: a generated pair of folders holding thousands
// of .npy files of mixed sizes and dtypes (TD_BENCH_DUMP_MB, default 2048 MiB
// for both sides together), compared with match::run_compare in tensor mode,
// against merely reading every file of both sides (opened as the readers do, then summed) in the same
// run. Page cache warm. Registered only when TD_BENCH_DUMP=1 (it writes the
// files under $TMPDIR/td_bench_dump once and reuses them).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <tensordiff/io/mapped_file.hpp>
#include <tensordiff/io/npy.hpp>
#include <tensordiff/match/compare_dumps.hpp>

#include "env_number.hpp"
#include "read_sweep.hpp"

namespace td = tensordiff;
namespace fs = std::filesystem;

namespace {

struct DumpPair {
  fs::path npu, bench;
  std::vector<fs::path> files;  // both sides
  std::uint64_t bytes = 0;
};

/// Writes (once) npu/ and bench/ folders: per side half of the budget in files
/// of 4 KiB .. 4 MiB, float32 / float16 / float64, bench = npu + small noise.
const DumpPair& dump_pair() {
  static DumpPair d = [] {
    DumpPair p;
    // at most the largest budget whose byte count fits in 64 bits
    const std::uint64_t budget = tensordiff_bench::env_number("TD_BENCH_DUMP_MB", 2048, ~std::uint64_t{0} >> 20) << 20;
    // v2: the file list no longer depends on whether the data was generated in this run
    const fs::path root = fs::temp_directory_path() / ("td_bench_dump_v2_" + std::to_string(budget >> 20));
    p.npu = root / "npu";
    p.bench = root / "bench";
    const bool exists = fs::exists(root / "complete");
    if (!exists) {
      fs::remove_all(root);
      fs::create_directories(p.npu);
      fs::create_directories(p.bench);
    }
    std::mt19937_64 rng(42);  // sizes only: the same list whether the files exist or not
    std::uint64_t per_side = 0;
    for (int i = 0; per_side < budget / 2; ++i) {
      const td::DType dt = i % 3 == 0 ? td::DType::float16 : i % 3 == 1 ? td::DType::float32 : td::DType::float64;
      const std::int64_t bytes = std::int64_t{4096} << (rng() % 11);  // 4 KiB .. 4 MiB
      const std::int64_t n = bytes / static_cast<std::int64_t>(td::dtype_size(dt));
      const std::string name = "Functional.op_" + std::to_string(i) + ".0.forward.output.0.npy";
      if (!exists) {
        std::mt19937_64 data_rng(static_cast<std::uint64_t>(i));
        std::normal_distribution<double> g;
        td::Tensor a = td::Tensor::zeros(td::DType::float64, {n}), b = td::Tensor::zeros(td::DType::float64, {n});
        for (std::int64_t k = 0; k < n; ++k) {
          const double x = g(data_rng);
          a.mutable_data<double>()[k] = x;
          b.mutable_data<double>()[k] = x * (1 + 1e-4 * g(data_rng));
        }
        auto cast = [&](const td::Tensor& t) {  // float64 -> dt, element by element
          td::Tensor o = td::Tensor::zeros(dt, {n});
          for (std::int64_t k = 0; k < n; ++k) {
            const double x = t.data<double>()[k];
            if (dt == td::DType::float16) o.mutable_data<td::float16>()[k] = td::float16(static_cast<float>(x));
            else if (dt == td::DType::float32) o.mutable_data<float>()[k] = static_cast<float>(x);
            else o.mutable_data<double>()[k] = x;
          }
          return o;
        };
        td::io::save_npy((p.npu / name).string(), cast(a).view());
        td::io::save_npy((p.bench / name).string(), cast(b).view());
      }
      p.files.push_back(p.npu / name);
      p.files.push_back(p.bench / name);
      per_side += static_cast<std::uint64_t>(bytes);
    }
    p.bytes = 2 * per_side;
    if (!exists) std::fclose(std::fopen((root / "complete").c_str(), "w"));
    return p;
  }();
  return d;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

/// Opens a file as the readers do (io::MappedFile: read() below 1 MiB, else mmap + MADV_WILLNEED)
/// and sums its 64-bit words with the read sweep of BM_read_bandwidth; throws when it cannot (a
/// missing file must not pass for a fast one). Until the twenty-seventh session it mapped every
/// file without advice and summed word by word: on the Zen 5 VM that floor read 4.1-4.5 GB/s
/// while the compare of the same files ran 6.0-6.2.
std::uint64_t read_file(const fs::path& f) {
  const auto m = td::io::MappedFile::open(f.string());
  return tensordiff_bench::sum_buffer(m->data(), static_cast<std::size_t>(m->size()));
}

/// The floor: open every file of both sides and sum its 64-bit words (read_file), on state.range(0) threads
/// (file i on thread i mod threads); /2 matches the compare's default worker count on 2 vCPUs.
void BM_dump_read_files(benchmark::State& state) {
  const DumpPair& d = dump_pair();
  const auto threads = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint64_t> sink(threads);
  std::vector<std::string> error(threads);
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          for (std::size_t i = t; i < d.files.size(); i += threads) sink[t] += read_file(d.files[i]);
        } catch (const std::exception& e) {
          error[t] = e.what();
        }
      });
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(sink.data());
    for (const auto& e : error)
      if (!e.empty()) return state.SkipWithError(e.c_str());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * d.bytes));
  state.counters["files"] = static_cast<double>(d.files.size());
}

/// tensordiff compare of the two folders (pairs by name, tensor mode, workers = default).
void BM_dump_compare(benchmark::State& state) {
  const DumpPair& d = dump_pair();
  std::size_t rows = 0;
  for (auto _ : state) {
    td::match::CompareRequest req;
    req.npu = d.npu;
    req.bench = d.bench;
    const auto r = td::match::run_compare(req);
    rows = r.row_count();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * d.bytes));
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

const bool registered = [] {
  if (!std::getenv("TD_BENCH_DUMP")) return false;
  benchmark::RegisterBenchmark("BM_dump_read_files", BM_dump_read_files)
      ->Arg(1)
      ->Arg(std::min(4u, std::max(1u, std::thread::hardware_concurrency())))  // the compare's workers
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_dump_compare", BM_dump_compare)->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
