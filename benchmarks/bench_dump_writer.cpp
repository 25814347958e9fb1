// io::DumpWriter throughput: calls per second in statistics mode (summary +
// JSON text, a flush every 1000 entries as msprobe does) and in tensor mode
// (plus one .pt file per tensor), one API call = 2 inputs + 1 output of N
// float32 elements. Files go to $TMPDIR/td_bench_dump_writer (removed after).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include <tensordiff/io/dump_writer.hpp>

namespace td = tensordiff;
namespace io = tensordiff::io;
namespace fs = std::filesystem;

namespace {

void run_calls(benchmark::State& state, io::DumpTask task) {
  const auto n = static_cast<std::int64_t>(state.range(0));
  std::vector<float> a(static_cast<std::size_t>(n)), b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 97) * 0.01f, b[i] = float(i % 89) * -0.02f;
  const fs::path root = fs::temp_directory_path() / "td_bench_dump_writer";
  fs::remove_all(root);
  io::DumpWriterOptions o;
  o.task = task;
  o.rank = 0;
  std::int64_t calls = 0;
  {
    io::DumpWriter w(root, o);
    for (auto _ : state) {
      auto s = w.api("Functional.add");
      s.input(td::TensorView::of(a.data(), {n})).input(td::TensorView::of(b.data(), {n}));
      s.output(td::TensorView::of(a.data(), {n}));
      ++calls;
    }
    w.flush();
  }
  fs::remove_all(root);
  state.SetItemsProcessed(calls);
  state.SetBytesProcessed(calls * 3 * n * static_cast<std::int64_t>(sizeof(float)));
}

void BM_DumpWriterStatistics(benchmark::State& state) { run_calls(state, io::DumpTask::statistics); }
void BM_DumpWriterTensor(benchmark::State& state) { run_calls(state, io::DumpTask::tensor); }

}  // namespace

BENCHMARK(BM_DumpWriterStatistics)->Arg(256)->Arg(65536)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DumpWriterTensor)->Arg(256)->Arg(65536)->Unit(benchmark::kMicrosecond)->UseRealTime();
