// tensordiff — a dump comparison spread over processes, on any transport.
//
// Every process computes the same Plan (plan.hpp). Process p > 0 reads only
// the runs it has rows in, computes its rows (on its own thread pool) and
// streams their compare columns (row_result.hpp) to process 0 in small
// batches as they finish, then says "done". Process 0 runs the ordinary
// run_compare() with a GatherExecutor: it computes its own rows and takes the
// others' from what arrived, so rules, analyses, the order of rows and the
// first divergence are exactly a one-process run's. Nothing is all-to-all:
// each row result crosses the network once, to process 0.
//
// A Channel is the transport: distributed/mpi.hpp is one (MPI), shard.hpp
// writes a process's share to a file instead (`tensordiff compare --shard`).
#pragma once
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "plan.hpp"
#include "row_result.hpp"

TD_NAMESPACE_BEGIN
namespace distributed {

/// Messages from every process to process 0.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual int size() const = 0;   ///< processes
  virtual int index() const = 0;  ///< this process, 0 … size()-1
  /// Processes > 0: sends `bytes` to process 0 (in order per sender).
  virtual void send(const std::string& bytes) = 0;
  /// Process 0: the next message from any other process, with its sender (blocks).
  virtual std::pair<int, std::string> receive() = 0;
};

/// Where a share's messages go: {"unit", "rows": [row_result…]} batches.
using ShareSink = std::function<void(const nlohmann::json& message)>;

/// Computes process `me`'s rows of each run it is handed and passes them to
/// `sink` in batches of about `batch_rows` rows, in row order.
class ShareExecutor : public match::RowExecutor {
 public:
  /// `plan` must outlive the executor.
  ShareExecutor(const Plan& plan, int me, ShareSink sink, std::size_t batch_rows = 64)
      : plan_(plan), me_(me), sink_(std::move(sink)), batch_(batch_rows ? batch_rows : 1) {}
  void compute(match::RankComparison& rc, const match::CompareRequest& req, std::size_t unit) override {
    const std::vector<int> owner = plan_.row_owners(rc, unit);
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < owner.size(); ++i)
      if (owner[i] == me_) mine.push_back(i);
    for (std::size_t b = 0; b < mine.size(); b += batch_) {
      const std::vector<std::size_t> part(mine.begin() + static_cast<std::ptrdiff_t>(b),
                                          mine.begin() + static_cast<std::ptrdiff_t>(std::min(mine.size(), b + batch_)));
      match::compute_tensor_rows(rc, req, &part);
      nlohmann::json rows = nlohmann::json::array();
      for (std::size_t i : part) rows.push_back(row_result(rc, i));
      sink_({{"unit", unit}, {"rows", std::move(rows)}});
      rows_ += part.size();
    }
  }
  std::size_t rows_sent() const noexcept { return rows_; }  ///< rows passed to the sink so far

 private:
  const Plan& plan_;
  int me_;
  ShareSink sink_;
  std::size_t batch_;
  std::size_t rows_ = 0;
};

/// Runs process `me`'s share of `req` under `plan`: only the runs it has rows
/// in are read. Returns the labels of those runs. Throws Error on bad input.
inline std::vector<std::string> run_share(const match::CompareRequest& req, const Plan& plan, int me, ShareSink sink,
                                          std::size_t* rows = nullptr) {
  const auto pairs = match::folder_pairs(req);
  if (pairs.size() != plan.units())
    throw Error(ErrorCategory::mismatch, "the dump has " + std::to_string(pairs.size()) + " runs, the plan " + std::to_string(plan.units()));
  auto ex = std::make_shared<ShareExecutor>(plan, me, std::move(sink));
  match::CompareRequest r = req;
  r.executor = ex;
  std::vector<std::string> labels;
  for (std::size_t u = 0; u < pairs.size(); ++u) {
    if (!plan.touches(u, me)) continue;
    match::compare_rank(pairs[u].npu, pairs[u].bench, r, pairs[u].plain, u);
    labels.push_back(unit_label(pairs[u]));
  }
  if (rows) *rows = ex->rows_sent();
  return labels;
}

/// Where process 0 gets a row computed elsewhere: (unit, row, owner) → row_result.
using RowSource = std::function<nlohmann::json(std::size_t unit, std::size_t row, int owner)>;

/// Process 0's executor: computes the rows `me` owns (none when me < 0, as in
/// `tensordiff merge`) and takes every other row from `source`, in row order.
class GatherExecutor : public match::RowExecutor {
 public:
  /// `plan` must outlive the executor.
  GatherExecutor(const Plan& plan, int me, RowSource source) : plan_(plan), me_(me), source_(std::move(source)) {}
  void compute(match::RankComparison& rc, const match::CompareRequest& req, std::size_t unit) override {
    const std::vector<int> owner = plan_.row_owners(rc, unit);
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < owner.size(); ++i)
      if (owner[i] == me_) mine.push_back(i);
    if (!mine.empty()) match::compute_tensor_rows(rc, req, &mine);
    for (std::size_t i = 0; i < owner.size(); ++i)
      if (owner[i] != me_) apply_row_result(rc, i, source_(unit, i, owner[i]));
  }

 private:
  const Plan& plan_;
  int me_;
  RowSource source_;
};

/// Process 0's mailbox: row results by (unit, row) as they arrive, and which
/// senders finished or failed. A sender's rows arrive in order.
class Inbox {
 public:
  /// A mailbox for processes 0 … senders-1 (process 0 counts: it files its own "done").
  explicit Inbox(int senders) : state_(static_cast<std::size_t>(senders), State::running), error_(static_cast<std::size_t>(senders)) {}
  /// Files one message from `from` ({"unit","rows"}, {"done"} or {"error"}).
  void put(int from, const nlohmann::json& msg) {
    std::lock_guard<std::mutex> lock(m_);
    const auto f = static_cast<std::size_t>(from);
    if (msg.contains("error")) {
      state_.at(f) = State::failed;
      error_.at(f) = msg["error"].get<std::string>();
    } else if (msg.contains("done")) {
      state_.at(f) = State::done;
    } else {
      // Kept as CBOR (a few hundred bytes a row) until process 0 reaches the run.
      const auto unit = msg.at("unit").get<std::size_t>();
      for (const auto& r : msg.at("rows")) rows_[{unit, r.at("row").get<std::size_t>()}] = nlohmann::json::to_cbor(r);
    }
    cv_.notify_all();
  }
  /// True once every sender said done or failed.
  bool all_finished() const {
    std::lock_guard<std::mutex> lock(m_);
    for (auto s : state_)
      if (s == State::running) return false;
    return true;
  }
  /// Waits for row `row` of run `unit` from `owner`. Throws Error when the
  /// owner failed, or finished without sending it.
  nlohmann::json take(std::size_t unit, std::size_t row, int owner) {
    std::unique_lock<std::mutex> lock(m_);
    const auto o = static_cast<std::size_t>(owner);
    for (;;) {
      auto it = rows_.find({unit, row});
      if (it != rows_.end()) {
        const std::vector<std::uint8_t> bytes = std::move(it->second);
        rows_.erase(it);
        lock.unlock();
        return nlohmann::json::from_cbor(bytes);
      }
      if (state_.at(o) == State::failed) throw Error(ErrorCategory::io, "process " + std::to_string(owner) + " failed: " + error_[o]);
      if (state_.at(o) == State::done)
        throw Error(ErrorCategory::mismatch, "process " + std::to_string(owner) + " finished without row " + std::to_string(row) +
                                                 " of run " + std::to_string(unit) + " (do all processes see the same dump?)");
      cv_.wait(lock);
    }
  }

 private:
  enum class State { running, done, failed };
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::uint8_t>> rows_;
  std::vector<State> state_;
  std::vector<std::string> error_;
};

/// Runs `req` spread over `ch`'s processes. Process 0 returns the whole
/// comparison (byte-identical outputs to run_compare(req)); the others return
/// nullopt once their share is sent. Every process must call it with the
/// same request. On process 0 it throws Error on bad input or when another
/// process failed (the caller should then end the job: MPI_Abort); the
/// others send their failure to process 0 and return nullopt.
inline std::optional<match::DumpComparison> distributed_compare(const match::CompareRequest& req, Channel& ch) {
  const int me = ch.index();
  auto encode = [](const nlohmann::json& j) {
    const auto v = nlohmann::json::to_cbor(j);
    return std::string(v.begin(), v.end());
  };
  if (me != 0) {
    try {
      const Plan plan = Plan::of(match::folder_pairs(req), ch.size());
      match::CompareRequest r = req;
      r.progress = nullptr;
      run_share(r, plan, me, [&](const nlohmann::json& m) { ch.send(encode(m)); });
      ch.send(encode({{"done", true}}));
    } catch (const std::exception& e) {
      ch.send(encode({{"error", e.what()}}));
    }
    return std::nullopt;
  }
  const Plan plan = Plan::of(match::folder_pairs(req), ch.size());
  auto inbox = std::make_shared<Inbox>(ch.size());
  inbox->put(0, {{"done", true}});
  // Receive on a thread of its own so that senders never wait for process 0's compute.
  std::thread receiver([inbox, &ch] {
    while (!inbox->all_finished()) {
      auto [from, bytes] = ch.receive();
      nlohmann::json msg;
      try {
        msg = nlohmann::json::from_cbor(bytes);
      } catch (const nlohmann::json::exception& e) {
        msg = {{"error", std::string("unreadable message: ") + e.what()}};
      }
      try {
        inbox->put(from, msg);
      } catch (const std::exception& e) {
        inbox->put(from, {{"error", std::string("malformed message: ") + e.what()}});
      }
    }
  });
  match::CompareRequest r = req;
  r.executor = std::make_shared<GatherExecutor>(plan, 0, [inbox](std::size_t u, std::size_t i, int o) { return inbox->take(u, i, o); });
  try {
    match::DumpComparison out = match::run_compare(r);
    receiver.join();  // every sender has finished: all its rows were taken
    return out;
  } catch (...) {
    receiver.detach();  // it may wait on a sender for ever; the caller ends the job
    throw;
  }
}

}  // namespace distributed
TD_NAMESPACE_END
