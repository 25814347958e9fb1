// tensordiff — a progress bar for long runs (tensors and bytes done, rate,
// ETA) drawn on a terminal stream, throttled, safe to update from workers.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include "../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// True when `f` is an interactive terminal (progress is drawn only there).
inline bool is_terminal(std::FILE* f) {
#if defined(__unix__) || defined(__APPLE__)
  return ::isatty(::fileno(f)) != 0;
#else
  (void)f;
  return false;
#endif
}

/// "1.5 GB", "12.0 MB": decimal units as disks and bandwidth are quoted.
inline std::string human_bytes(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000 && u < 4) b /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, units[u]);
  return buf;
}

/// Counts work done and redraws one status line at most every 100 ms.
/// Disabled (a no-op) when the stream is not a terminal or `enabled` is false.
class Progress {
 public:
  /// Totals to count against (0: unknown); draws on `out` only when it is a terminal.
  Progress(std::uint64_t total_items, std::uint64_t total_bytes, bool enabled = true, std::FILE* out = stderr)
      : total_items_(total_items), total_bytes_(total_bytes), out_(out),
        enabled_(enabled && is_terminal(out)), start_(clock::now()) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { finish(); }

  /// One item of `bytes` bytes finished.
  void advance(std::uint64_t bytes) {
    items_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
    if (enabled_) draw(false);
  }

  /// Sets absolute progress (for producers that report "done of total").
  void set(std::uint64_t items_done, std::uint64_t items_total) {
    total_items_.store(items_total, std::memory_order_relaxed);
    items_.store(items_done, std::memory_order_relaxed);
    if (enabled_) draw(false);
  }

  /// Draws the final state and ends the line (idempotent).
  void finish() {
    if (!enabled_ || finished_.exchange(true)) return;
    draw(true);
    std::fputc('\n', out_);
    std::fflush(out_);
  }

  /// The status line as drawn (for tests and logs).
  std::string line() const {
    const double secs = std::chrono::duration<double>(clock::now() - start_).count();
    const double done = double(bytes_.load()), rate = secs > 0 ? done / secs : 0;
    const std::uint64_t items = items_.load();
    const std::uint64_t total_items = total_items_.load();
    const double frac = total_bytes_ ? done / double(total_bytes_) : total_items ? double(items) / double(total_items) : 1;
    const int width = 24, fill = int(frac * width + 0.5);
    std::string bar(std::size_t(fill < 0 ? 0 : fill > width ? width : fill), '#');
    bar.resize(width, '.');
    char buf[256];
    const double item_rate = secs > 0 ? double(items) / secs : 0;
    const double eta = rate > 0 && total_bytes_ > done  ? (double(total_bytes_) - done) / rate
                       : item_rate > 0 && total_items > items ? double(total_items - items) / item_rate
                                                              : 0;
    std::snprintf(buf, sizeof buf, "[%s] %3.0f%%  %llu/%llu tensors  %s/%s  %s/s  ETA %.0fs", bar.c_str(), frac * 100,
                  (unsigned long long)items, (unsigned long long)total_items, human_bytes(done).c_str(),
                  human_bytes(double(total_bytes_)).c_str(), human_bytes(rate).c_str(), eta);
    return buf;
  }

 private:
  using clock = std::chrono::steady_clock;

  void draw(bool force) {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = clock::now();
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    std::fprintf(out_, "\r%s\x1b[K", line().c_str());
    std::fflush(out_);
  }

  std::atomic<std::uint64_t> total_items_;
  std::uint64_t total_bytes_;
  std::FILE* out_;
  bool enabled_;
  clock::time_point start_;
  clock::time_point last_draw_{};
  std::atomic<std::uint64_t> items_{0}, bytes_{0};
  std::atomic<bool> finished_{false};
  std::mutex mutex_;
};

}  // namespace report
TD_NAMESPACE_END
