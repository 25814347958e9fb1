// tensordiff_bench — speed and error of the fused compare, per backend.
//
// Names: BM_<metric>/<dtype>/<backend>/<input bytes>/t<threads>, where input
// bytes count both sides (what SetBytesProcessed reports, so bytes_per_second
// is GB/s of input read). Counters cos_err / l2_err: |cosine − ref| and the
// relative error of the Euclidean distance against a long-double reference.
// 512 MiB cases are registered only with TD_BENCH_LARGE=1 (see README.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <memory>
#include <new>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "tensordiff/metrics/compare.hpp"
#include "tensordiff/kernels/default.hpp"
#include "tensordiff/kernels/scalar.hpp"
#include "cpu_speeds.hpp"
#include "env_number.hpp"
#include "read_sweep.hpp"
#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
#include "tensordiff/kernels/highway.hpp"
#endif
#if defined(TD_HAS_XSIMD) && TD_HAS_XSIMD
#include "tensordiff/kernels/xsimd.hpp"
#endif
#if defined(TD_HAS_EIGEN) && TD_HAS_EIGEN
#include "tensordiff/kernels/eigen.hpp"
#endif
#if __has_include("tensordiff/metrics/md5.hpp")
#include "tensordiff/metrics/md5.hpp"
#define TD_BENCH_MD5 1
#endif
#if __has_include("tensordiff/metrics/crc32.hpp")
#include "tensordiff/metrics/crc32.hpp"
#define TD_BENCH_CRC32 1
#endif

namespace {
using namespace tensordiff;

/// Fast deterministic normal-ish values (sum of uniforms), so 512 MiB fills quickly.
struct Rng {
  std::uint64_t s;
  double next() {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return static_cast<double>(s >> 11) * 0x1p-53;
  }
  double normal() { return (next() + next() + next() + next() - 2.0) * 1.7320508075688772; }
};

/// Bytes past a 64-byte boundary where every data set starts: 0, or TD_BENCH_OFFSET (e.g. 16, the
/// alignment numpy's and glibc's allocators guarantee). A 64-byte vector load that straddles two
/// cache lines costs a second access: on the Zen 5 VM a 16-byte offset took the plain read sweep
/// from 35 to 25 G/s, so `new std::byte[]`'s 16-byte alignment made the baseline a slow read.
/// Any other value than 0..63 stops the run (env_number).
std::size_t data_offset() {
  static const std::size_t off = tensordiff_bench::env_number("TD_BENCH_OFFSET", 0, 63);
  return off;
}

/// A buffer of n bytes starting data_offset() past a 64-byte boundary.
class Bytes {
 public:
  void reset(std::size_t n) {
    const std::size_t off = data_offset();
    raw_.reset(static_cast<std::byte*>(std::aligned_alloc(64, (n + off + 127) / 64 * 64)));  // 64 bytes to spare, as before
    if (!raw_) throw std::bad_alloc();
    data_ = raw_.get() + off;
  }
  std::byte* get() const { return data_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> raw_;
  std::byte* data_ = nullptr;
};

/// One data set: bench values x, actual = x·(1 + 1e-3·noise), stored as TA/TB,
/// plus long-double reference metrics.
struct DataSet {
  std::string key;
  Bytes a, b;
  std::size_t n = 0;
  double cos_ref = 0, l2_ref = 0;
};

template <class T> T store(double x) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return T(static_cast<float>(x));
  // int8: ×30 keeps all but ~1 in 43,000 normal samples within ±127 (those wrap; ×1000, most);
  // uint8: the same around 128, as quantized images and activations are
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(std::llround(x * (sizeof(T) == 1 ? 30.0 : 1000.0) + (std::is_unsigned_v<T> ? 128.0 : 0.0)));
  else return static_cast<T>(x);
}

template <class TA, class TB> const DataSet& data(std::size_t n, const std::string& key) {
  static DataSet d;  // one at a time: the 512 MiB sets do not accumulate
  if (d.key == key) return d;
  d = DataSet{};
  d.key = key;
  d.n = n;
  d.a.reset(n * sizeof(TA));
  d.b.reset(n * sizeof(TB));
  TA* pa = reinterpret_cast<TA*>(d.a.get());
  TB* pb = reinterpret_cast<TB*>(d.b.get());
  Rng r{0x9E3779B97F4A7C15ull ^ n};
  long double dot = 0, na = 0, nb = 0, sq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = r.normal();
    pa[i] = store<TA>(x * (1 + 1e-3 * r.normal()));
    pb[i] = store<TB>(x);
    const long double u = detail::to_double(pa[i]), v = detail::to_double(pb[i]);
    dot += u * v, na += u * u, nb += v * v, sq += (u - v) * (u - v);
  }
  d.cos_ref = static_cast<double>(dot / std::sqrt(na * nb));
  d.l2_ref = static_cast<double>(std::sqrt(sq));
  return d;
}

/// compare() of a metric set (see metric::): all of them (BM_compare, with the cos_err /
/// l2_err counters), or a lean set (BM_compare_set: assert_close's, cosine + max abs, statistics).
template <class Kernel, class TA, class TB>
void bm_compare_set(benchmark::State& st, std::size_t bytes, unsigned threads, MetricSet set) {
  const std::size_t n = bytes / (sizeof(TA) + sizeof(TB));
  const DataSet& d = data<TA, TB>(n, std::string(dtype_name(dtype_of<TA>())) + dtype_name(dtype_of<TB>()) + std::to_string(n));
  const Shape shape{static_cast<std::int64_t>(n)};
  const TensorView va(d.a.get(), dtype_of<TA>(), shape), vb(d.b.get(), dtype_of<TB>(), shape);
  CompareOptions o;
  o.threads = threads;
  o.metrics = set;
  Comparison c;
  for (auto _ : st) {
    c = compare<Kernel>(va, vb, o);
    benchmark::DoNotOptimize(c.partial.count);
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(n * (sizeof(TA) + sizeof(TB))));
  if (set == metric::all) {
    st.counters["cos_err"] = std::fabs(c.cosine.value - d.cos_ref);
    st.counters["l2_err"] = d.l2_ref > 0 ? std::fabs(c.euclidean_distance.value - d.l2_ref) / d.l2_ref : 0.0;
  }
}

template <class Kernel, class TA, class TB> void bm_compare(benchmark::State& st, std::size_t bytes, unsigned threads) {
  bm_compare_set<Kernel, TA, TB>(st, bytes, threads, metric::all);
}

/// A contiguous 1024-row view and a transposed one of `bytes` in all: the expected side is the
/// same buffer read as the transpose of a rows × cols column-major matrix (the tiled walker).
template <class T> std::pair<TensorView, TensorView> transposed_pair(std::size_t bytes) {
  const std::size_t n = bytes / (2 * sizeof(T));
  const DataSet& d = data<T, T>(n, std::string(dtype_name(dtype_of<T>())) + dtype_name(dtype_of<T>()) + std::to_string(n));
  const std::int64_t rows = 1024, cols = static_cast<std::int64_t>(n) / rows;
  return {TensorView(d.a.get(), dtype_of<T>(), Shape{rows, cols}),
          TensorView(d.b.get(), dtype_of<T>(), Shape{rows, cols}, Strides{1, rows})};
}

/// compare() of a contiguous side against a transposed one (transposed_pair).
template <class Kernel, class T> void bm_compare_transposed(benchmark::State& st, std::size_t bytes, unsigned threads) {
  const auto [va, vb] = transposed_pair<T>(bytes);
  CompareOptions o;
  o.threads = threads;
  for (auto _ : st) benchmark::DoNotOptimize(compare<Kernel>(va, vb, o).partial.count);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(va.numel() * 2 * sizeof(T)));
}

/// The tiled walk alone, on BM_compare_transposed's views: the transposed side gathered band by
/// band as compare() does, the contiguous side not read, no kernel. Per byte of the pair, so it
/// reads against BM_compare: a transposed compare costs at least this walk plus the contiguous
/// kernel, so it reaches 0.5x the contiguous compare only when this walk is at least as fast.
template <class T> void bm_tiled_walk(benchmark::State& st, std::size_t bytes) {
  const auto [va, vb] = transposed_pair<T>(bytes);
  for (auto _ : st)
    detail::for_each_run_pair<T, T>(va, vb, 0, va.numel(),
                                    [](const T*, const T* pb, std::size_t m, std::uint64_t) { benchmark::DoNotOptimize(pb[m - 1]); });
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(va.numel() * 2 * sizeof(T)));
}

#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
/// The ablation of the float-lane pass on one thread (kernels::Highway::ablation; stage 4 is the
/// whole kernel, Highway::accumulate over the buffer, with NaN / inf handling and indices; 5, 6
/// and 7 are the probes described there).
template <class T> void bm_ablation(benchmark::State& st, std::size_t bytes, int stage) {
  const std::size_t n = bytes / (2 * sizeof(T));
  const DataSet& d = data<T, T>(n, std::string(dtype_name(dtype_of<T>())) + dtype_name(dtype_of<T>()) + std::to_string(n));
  const T* a = reinterpret_cast<const T*>(d.a.get());
  const T* b = reinterpret_cast<const T*>(d.b.get());
  KernelParams k;
  for (double& t : k.rel_thresholds) t = static_cast<float>(t);
  for (auto _ : st) {
    if (stage != 4) {
      benchmark::DoNotOptimize(kernels::Highway::ablation(stage, a, b, n));
    } else {
      Partial p;
      kernels::Highway::accumulate(a, b, n, 0, k, p);
      benchmark::DoNotOptimize(p.dot);
    }
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(n * 2 * sizeof(T)));
}
#endif

/// Threads that each sweep one contiguous share of both buffers per round.
/// They are started before the timed loop and poll between rounds (yielding,
/// so a busy machine does not starve the sweeping thread), so the baseline
/// pays no task dispatch: the fastest plain read this machine does.
class SweepTeam {
 public:
  SweepTeam(const std::uint64_t* a, const std::uint64_t* b, std::size_t words, unsigned threads)
      : a_(a), b_(b), words_(words), threads_(threads), sums_(threads) {
    for (unsigned k = 1; k < threads; ++k) workers_.emplace_back([this, k] { work(k); });
  }
  ~SweepTeam() {
    stop_.store(true, std::memory_order_release);
    round_.fetch_add(1, std::memory_order_acq_rel);
    for (auto& w : workers_) w.join();
  }
  std::uint64_t round() {
    done_.store(0, std::memory_order_relaxed);
    round_.fetch_add(1, std::memory_order_acq_rel);
    sweep(0);
    while (done_.load(std::memory_order_acquire) != threads_ - 1) std::this_thread::yield();
    std::uint64_t s = 0;
    for (auto v : sums_) s += v;
    return s;
  }

 private:
  void sweep(unsigned k) {
    const std::size_t lo = words_ * k / threads_, hi = words_ * (k + 1) / threads_;
    sums_[k] = tensordiff_bench::sum_words(a_ + lo, b_ + lo, hi - lo);
  }
  void work(unsigned k) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t r;
      while ((r = round_.load(std::memory_order_acquire)) == seen) std::this_thread::yield();
      seen = r;
      if (stop_.load(std::memory_order_acquire)) return;
      sweep(k);
      done_.fetch_add(1, std::memory_order_acq_rel);
    }
  }
  const std::uint64_t *a_, *b_;
  std::size_t words_;
  unsigned threads_;
  std::vector<std::uint64_t> sums_;
  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> round_{0};
  std::atomic<unsigned> done_{0};
  std::atomic<bool> stop_{false};
};

/// The read-bandwidth baseline: the f32 pair's very buffers of this size, read
/// as 64-bit words, one contiguous sweep per thread.
void bm_read(benchmark::State& st, std::size_t bytes, unsigned threads) {
  const std::size_t n = bytes / 8;
  const DataSet& d = data<float, float>(n, std::string("float32float32") + std::to_string(n));
  const std::size_t words = n * 4 / 8;
  SweepTeam team(reinterpret_cast<const std::uint64_t*>(d.a.get()), reinterpret_cast<const std::uint64_t*>(d.b.get()),
                 words, threads == 0 ? 1 : threads);
  for (auto _ : st) benchmark::DoNotOptimize(team.round());
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(words * 16));
}

#if defined(TD_BENCH_MD5) || defined(TD_BENCH_CRC32)
template <class F> void bm_hash(benchmark::State& st, std::size_t bytes, F&& f) {
  const std::size_t n = bytes / 8;
  const DataSet& d = data<float, float>(n, std::string("float32float32") + std::to_string(n));
  for (auto _ : st) benchmark::DoNotOptimize(f(d.a.get(), n * 4));
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(n * 4));
}
#endif

template <class Kernel> void register_backend(const char* backend, std::size_t bytes, unsigned t) {
  const std::string tail = "/" + std::string(backend) + "/" + std::to_string(bytes) + "/t" + std::to_string(t);
  auto reg = [&](const char* dt, auto fn) {
    auto* b = benchmark::RegisterBenchmark(("BM_compare/" + std::string(dt) + tail).c_str(), fn);
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
    if (bytes >= (std::size_t{256} << 20)) b->Iterations(3);
  };
  reg("f32", [bytes, t](benchmark::State& s) { bm_compare<Kernel, float, float>(s, bytes, t); });
  reg("bf16", [bytes, t](benchmark::State& s) { bm_compare<Kernel, bfloat16, bfloat16>(s, bytes, t); });
  reg("f16", [bytes, t](benchmark::State& s) { bm_compare<Kernel, float16, float16>(s, bytes, t); });
  reg("f32_bf16", [bytes, t](benchmark::State& s) { bm_compare<Kernel, float, bfloat16>(s, bytes, t); });
  reg("int32", [bytes, t](benchmark::State& s) { bm_compare<Kernel, std::int32_t, std::int32_t>(s, bytes, t); });
  reg("f64", [bytes, t](benchmark::State& s) { bm_compare<Kernel, double, double>(s, bytes, t); });
}

/// The lean metric sets and the transposed view, for one backend.
template <class Kernel> void register_lean(const char* backend, std::size_t bytes, unsigned t) {
  const std::string tail = "/" + std::string(backend) + "/" + std::to_string(bytes) + "/t" + std::to_string(t);
  auto reg = [&](const std::string& name, auto fn) {
    auto* b = benchmark::RegisterBenchmark((name + tail).c_str(), fn);
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
    if (bytes >= (std::size_t{256} << 20)) b->Iterations(3);
  };
  const std::pair<const char*, MetricSet> sets[] = {{"assert_close", metric::assert_close},
                                                    {"cosine_max_abs", metric::cosine | metric::max_abs},
                                                    {"statistics", metric::statistics}};
  for (const auto& [name, set] : sets) {
    const MetricSet m = set;
    reg(std::string("BM_compare_set/") + name + "/f32",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, float, float>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/bf16",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, bfloat16, bfloat16>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/f16",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, float16, float16>(s, bytes, t, m); });
    // The double-lane pass (no float-lane relative error): the "every dtype".
    reg(std::string("BM_compare_set/") + name + "/f64",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, double, double>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/int32",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, std::int32_t, std::int32_t>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/int16",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, std::int16_t, std::int16_t>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/int8",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, std::int8_t, std::int8_t>(s, bytes, t, m); });
    reg(std::string("BM_compare_set/") + name + "/uint8",
        [bytes, t, m](benchmark::State& s) { bm_compare_set<Kernel, std::uint8_t, std::uint8_t>(s, bytes, t, m); });
  }
  reg("BM_compare_transposed/f32", [bytes, t](benchmark::State& s) { bm_compare_transposed<Kernel, float>(s, bytes, t); });
  reg("BM_compare_transposed/bf16",
      [bytes, t](benchmark::State& s) { bm_compare_transposed<Kernel, bfloat16>(s, bytes, t); });
}

/// The tiled walk without a kernel (one thread: the walk itself is serial within a chunk).
void register_tiled_walk(std::size_t bytes) {
  for (auto [name, fn] : {std::pair{"BM_tiled_walk/f32/", &bm_tiled_walk<float>},
                          std::pair{"BM_tiled_walk/bf16/", &bm_tiled_walk<bfloat16>}}) {
    auto* b = benchmark::RegisterBenchmark((name + std::to_string(bytes)).c_str(), fn, bytes);
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
    if (bytes >= (std::size_t{256} << 20)) b->Iterations(3);
  }
}

int register_all() {
  // The header of every run names the SIMD target the default kernel dispatched to.
  benchmark::AddCustomContext("tensordiff_kernel", kernels::default_kernel_description());
  benchmark::AddCustomContext("data_offset", std::to_string(data_offset()) + " bytes past 64-byte alignment");
  if (const std::string speeds = tensordiff_bench::cpu_speeds(); !speeds.empty())
    benchmark::AddCustomContext("cpu_speeds", speeds + " (dependent adds per ns)");
  std::vector<std::size_t> sizes = {32u << 10, 1u << 20, 16u << 20};
  const char* large = std::getenv("TD_BENCH_LARGE");
  if (large && *large && *large != '0') sizes.push_back(std::size_t{512} << 20);
  for (std::size_t bytes : sizes) {
    for (unsigned t : {1u, 2u}) {
      const std::string tail = "/" + std::to_string(bytes) + "/t" + std::to_string(t);
      auto* rb = benchmark::RegisterBenchmark(("BM_read_bandwidth" + tail).c_str(),
                                              [bytes, t](benchmark::State& s) { bm_read(s, bytes, t); });
      rb->Unit(benchmark::kMicrosecond)->UseRealTime();
      if (bytes >= (std::size_t{256} << 20)) rb->Iterations(5);
      register_backend<kernels::Scalar>("scalar", bytes, t);
#if defined(TD_HAS_HIGHWAY) && TD_HAS_HIGHWAY
      register_backend<kernels::Highway>("highway", bytes, t);
      register_lean<kernels::Highway>("highway", bytes, t);
      if (t == 1) register_tiled_walk(bytes);
      if (t == 1) {
        for (int stage = 0; stage <= 8; ++stage) {
          const std::string tail = "/s" + std::to_string(stage) + "/" + std::to_string(bytes) + "/t1";
          auto reg = [&](const char* dt, auto fn) {
            auto* b = benchmark::RegisterBenchmark(("BM_ablation/" + std::string(dt) + tail).c_str(), fn);
            b->Unit(benchmark::kMicrosecond)->UseRealTime();
            if (bytes >= (std::size_t{256} << 20)) b->Iterations(3);
          };
          reg("f32", [bytes, stage](benchmark::State& s) { bm_ablation<float>(s, bytes, stage); });
          reg("bf16", [bytes, stage](benchmark::State& s) { bm_ablation<bfloat16>(s, bytes, stage); });
          reg("f16", [bytes, stage](benchmark::State& s) { bm_ablation<float16>(s, bytes, stage); });
        }
      }
#endif
#if defined(TD_HAS_XSIMD) && TD_HAS_XSIMD
      register_backend<kernels::Xsimd>("xsimd", bytes, t);
#endif
#if defined(TD_HAS_EIGEN) && TD_HAS_EIGEN
      register_backend<kernels::Eigen>("eigen", bytes, t);
#endif
    }
#ifdef TD_BENCH_MD5
    benchmark::RegisterBenchmark(("BM_md5/bytes/" + std::to_string(bytes / 2)).c_str(),
                                 [bytes](benchmark::State& s) {
                                   bm_hash(s, bytes, [](const void* p, std::size_t m) { return md5_hex(p, m); });
                                 })->Unit(benchmark::kMicrosecond);
#endif
#ifdef TD_BENCH_CRC32
    benchmark::RegisterBenchmark(("BM_crc32/bytes/" + std::to_string(bytes / 2)).c_str(),
                                 [bytes](benchmark::State& s) {
                                   bm_hash(s, bytes, [](const void* p, std::size_t m) { return crc32(p, m); });
                                 })->Unit(benchmark::kMicrosecond);
    // CRC-32 of a view, contiguous vs transposed (1024 rows): the transposed view folds its rows
    // side by side (metrics/detail/crc32_transposed.hpp), per item size.
    auto crc32_view = [bytes](auto tag, const char* name) {
      using T = decltype(tag);
      for (bool transposed : {false, true})
        benchmark::RegisterBenchmark((std::string("BM_crc32_view/") + (transposed ? "transposed/" : "contiguous/") + name +
                                      "/" + std::to_string(bytes / 2))
                                         .c_str(),
                                     [bytes, transposed, name](benchmark::State& s) {
                                       const std::size_t n = bytes / 2 / sizeof(T);
                                       const DataSet& d = data<T, T>(n, std::string(name) + std::to_string(n));
                                       const std::int64_t rows = 1024, cols = static_cast<std::int64_t>(n) / rows;
                                       const TensorView v =
                                           transposed ? TensorView(d.a.get(), dtype_of<T>(), Shape{rows, cols}, Strides{1, rows})
                                                      : TensorView(d.a.get(), dtype_of<T>(), Shape{rows, cols});
                                       for (auto _ : s) benchmark::DoNotOptimize(crc32(v));
                                       s.SetBytesProcessed(static_cast<std::int64_t>(s.iterations()) * rows * cols *
                                                           static_cast<std::int64_t>(sizeof(T)));
                                     })
            ->Unit(benchmark::kMicrosecond);
    };
    crc32_view(bfloat16{}, "bf16");
    crc32_view(float{}, "f32");
    crc32_view(double{}, "f64");
#endif
  }
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
