// tensordiff — Dims: extents or strides of a walk, inline up to a rank of 8.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../config.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// The few std::vector operations the walks use, without a heap allocation up to kInline
/// dimensions (more spill to a vector). compare() of a small tensor coalesced its layout twice
/// and walked it once: seven allocations of 8 bytes, about a fifth of the call.
class Dims {
 public:
  static constexpr std::size_t kInline = 8;

  Dims() = default;
  /// `n` zeros.
  explicit Dims(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) push_back(0);
  }

  void push_back(std::int64_t x) {
    if (n_ < kInline) {
      inline_[n_] = x;
    } else {
      if (heap_.empty()) heap_.assign(inline_.begin(), inline_.end());
      heap_.push_back(x);
    }
    ++n_;
  }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  std::int64_t& back() noexcept { return data()[n_ - 1]; }
  std::int64_t back() const noexcept { return data()[n_ - 1]; }

 private:
  std::int64_t* data() noexcept { return n_ > kInline ? heap_.data() : inline_.data(); }
  const std::int64_t* data() const noexcept { return n_ > kInline ? heap_.data() : inline_.data(); }

  std::array<std::int64_t, kInline> inline_{};
  std::vector<std::int64_t> heap_;  // all n_ values once n_ > kInline
  std::size_t n_ = 0;
};

}  // namespace detail
TD_NAMESPACE_END
