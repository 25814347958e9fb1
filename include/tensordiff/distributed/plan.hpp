// tensordiff — how a dump comparison is split over processes, by bytes.
//
// The runs ((step, rank) folder pairs) are laid end to end on one line of
// bytes, each as long as its files on disk; process p of P owns the p-th of P
// equal stretches. A run inside one stretch goes to one process whole; a run
// that straddles stretches (a large rank) is split by its tensor pairs: each
// row sits at the middle of its own bytes (NPU file + bench file) inside the
// run's stretch. The split depends only on file sizes, so every process, and
// every shard of a job array, computes the same one without talking.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "../match/compare_dumps.hpp"

TD_NAMESPACE_BEGIN
namespace distributed {

namespace detail {
__extension__ typedef unsigned __int128 u128;  ///< bytes × processes overflow 64 bits at exabytes
}  // namespace detail

/// Bytes of the regular files under a folder (of the folder holding a file).
inline std::uint64_t folder_bytes(const std::filesystem::path& p) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::is_regular_file(p, ec) ? p.parent_path() : p;
  std::uint64_t n = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2)) {
      const auto s = it->file_size(e2);
      if (!e2) n += s;
    }
  }
  return n;
}

/// The label run_compare gives a run ("step3/rank0", "rank1", or the folder name).
inline std::string unit_label(const match::detail::FolderPair& p) {
  return (p.step.empty() ? "" : p.step + "/") + (p.rank >= 0 ? "rank" + std::to_string(p.rank) : p.npu.filename().string());
}

/// A deterministic split of the runs of one compare over `parts` processes.
class Plan {
 public:
  /// `unit_bytes`: the size of each run, in execution order.
  Plan(std::vector<std::uint64_t> unit_bytes, int parts) : bytes_(std::move(unit_bytes)), parts_(parts < 1 ? 1 : parts) {
    start_.reserve(bytes_.size());
    for (auto b : bytes_) {
      start_.push_back(total_);
      total_ += b;
    }
  }
  /// The plan for `pairs` (folder_pairs()): each run weighs its two folders' bytes.
  static Plan of(const std::vector<match::detail::FolderPair>& pairs, int parts) {
    std::vector<std::uint64_t> b;
    b.reserve(pairs.size());
    for (const auto& p : pairs) b.push_back(folder_bytes(p.npu) + folder_bytes(p.bench));
    return Plan(std::move(b), parts);
  }

  int parts() const noexcept { return parts_; }                                      ///< processes (or shards)
  std::size_t units() const noexcept { return bytes_.size(); }                       ///< runs
  const std::vector<std::uint64_t>& unit_bytes() const noexcept { return bytes_; }   ///< size of each run
  std::uint64_t total_bytes() const noexcept { return total_; }                      ///< all runs

  /// The process owning byte `x` of the line.
  int owner_at(std::uint64_t x) const noexcept {
    if (total_ == 0) return 0;
    const auto p = static_cast<detail::u128>(x) * static_cast<unsigned>(parts_) / total_;
    return static_cast<int>(p >= static_cast<unsigned>(parts_) ? parts_ - 1 : p);
  }
  /// First and last process owning rows of run `u`.
  std::pair<int, int> owners(std::size_t u) const noexcept {
    const std::uint64_t s = start_[u], w = bytes_[u];
    return {owner_at(s), owner_at(w ? s + w - 1 : s)};
  }
  /// Whether process `p` computes any row of run `u` (it must then read the run's dump.json).
  bool touches(std::size_t u, int p) const noexcept {
    const auto [a, b] = owners(u);
    return p >= a && p <= b;
  }

  /// The process computing each row of `rc`, the `u`-th run.
  std::vector<int> row_owners(const match::RankComparison& rc, std::size_t u) const {
    const auto [first, last] = owners(u);
    std::vector<int> out(rc.rows.size(), first);
    if (first == last || rc.rows.empty()) return out;
    std::vector<std::uint64_t> rb(rc.rows.size(), 0);
    detail::u128 sum = 0;
    for (std::size_t i = 0; i < rc.rows.size(); ++i) {
      rb[i] = row_bytes(rc, rc.rows[i]);
      sum += rb[i];
    }
    const detail::u128 s = start_[u], w = bytes_[u];
    detail::u128 cum = 0;
    for (std::size_t i = 0; i < rc.rows.size(); ++i) {
      // The middle of the row, scaled onto the run's stretch [s, s + w).
      const detail::u128 mid2 = sum ? 2 * cum + rb[i] : 2 * static_cast<detail::u128>(i) + 1;
      const detail::u128 den = sum ? 2 * sum : 2 * static_cast<detail::u128>(rc.rows.size());
      const detail::u128 x = w * mid2 / den;  // < w, but a zero-byte last row sits at w
      out[i] = owner_at(static_cast<std::uint64_t>(s + (x < w ? x : w - 1)));
      cum += rb[i];
    }
    return out;
  }

 private:
  static std::uint64_t file_bytes(const std::string& f) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(f, ec);
    return ec ? 0 : n;
  }
  static std::uint64_t row_bytes(const match::RankComparison& rc, const match::Row& r) {
    const match::Item& n = rc.npu_items[r.npu];
    const match::Item* b = rc.bench_item(r);
    if (!b || n.data_name == "-1" || b->data_name == "-1") return 0;  // no tensor to read
    return file_bytes(match::detail::file_of(rc, n, true)) + file_bytes(match::detail::file_of(rc, *b, false));
  }

  std::vector<std::uint64_t> bytes_, start_;
  std::uint64_t total_ = 0;
  int parts_ = 1;
};

}  // namespace distributed
TD_NAMESPACE_END
