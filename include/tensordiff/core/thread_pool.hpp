// tensordiff — a small thread pool for chunked reductions and batches.
//
// Deliberately minimal: persistent workers, one task queue, and
// parallel_for(n, f) in which the calling thread works too. A parallel_for
// issued from inside a worker (nested use) cannot deadlock: the caller claims
// items itself and only waits for items another thread has already started.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "config.hpp"

TD_NAMESPACE_BEGIN

/// Hardware concurrency, at least 1.
inline unsigned hardware_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

/// Fixed-size pool. size() counts the calling thread: ThreadPool(1) starts no
/// thread and runs everything inline; ThreadPool(0) uses hardware_threads().
class ThreadPool {
 public:
  /// Starts `threads` - 1 workers (the caller is the last thread); 0 means hardware_threads().
  /// Workers wait for work and live until the pool is destroyed, which joins them.
  explicit ThreadPool(unsigned threads = 0) {
    const unsigned n = threads ? threads : hardware_threads();
    for (unsigned i = 1; i < n; ++i) workers_.emplace_back([this] { run(); });
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

  /// Threads that run work, the caller included.
  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls f(i) for every i in [0, n) on up to `max_threads` threads (0 = all),
  /// the caller included; returns when all calls are done. The first
  /// exception thrown by f is rethrown here (remaining items are skipped).
  template <class F> void parallel_for(std::uint64_t n, F&& f, unsigned max_threads = 0) {
    if (n == 0) return;
    unsigned t = max_threads ? std::min(max_threads, size()) : size();
    if (t <= 1 || n == 1) {
      for (std::uint64_t i = 0; i < n; ++i) f(i);
      return;
    }
    struct Job {
      std::atomic<std::uint64_t> next{0}, done{0};
      std::uint64_t n = 0;
      std::mutex m;
      std::condition_variable cv;
      std::exception_ptr error;
      std::atomic<bool> failed{false};
    };
    auto job = std::make_shared<Job>();
    job->n = n;
    // `f` outlives the job: the caller waits below for every claimed item.
    auto body = [job, &f] {
      for (std::uint64_t i; (i = job->next.fetch_add(1)) < job->n;) {
        if (!job->failed.load(std::memory_order_relaxed)) {
          try {
            f(i);
          } catch (...) {
            std::lock_guard<std::mutex> lock(job->m);
            if (!job->error) job->error = std::current_exception();
            job->failed = true;
          }
        }
        if (job->done.fetch_add(1) + 1 == job->n) {
          std::lock_guard<std::mutex> lock(job->m);
          job->cv.notify_all();
        }
      }
    };
    const std::uint64_t helpers = std::min<std::uint64_t>(t - 1, n - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::uint64_t h = 0; h < helpers; ++h) tasks_.emplace_back(body);
    }
    if (helpers == 1) cv_.notify_one();
    else cv_.notify_all();
    body();
    std::unique_lock<std::mutex> lock(job->m);
    job->cv.wait(lock, [&] { return job->done.load() == job->n; });
    if (job->error) std::rethrow_exception(job->error);
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stop_ and drained
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> tasks_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
};

namespace detail {
inline std::unique_ptr<ThreadPool>& default_pool_slot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}
inline std::mutex& default_pool_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace detail

/// The process-wide pool used by compare() and compare_many(); created on
/// first use with hardware_threads() threads.
inline ThreadPool& default_thread_pool() {
  std::lock_guard<std::mutex> lock(detail::default_pool_mutex());
  auto& slot = detail::default_pool_slot();
  if (!slot) slot = std::make_unique<ThreadPool>(0);
  return *slot;
}

/// Resizes the process-wide pool (0 = hardware concurrency, 1 = no threads).
/// Call it while no comparison is running.
inline void set_default_threads(unsigned threads) {
  std::lock_guard<std::mutex> lock(detail::default_pool_mutex());
  detail::default_pool_slot() = std::make_unique<ThreadPool>(threads);
}

TD_NAMESPACE_END
