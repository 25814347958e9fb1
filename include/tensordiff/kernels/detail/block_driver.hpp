// tensordiff — the block driver every SIMD kernel shares (Highway, xsimd, Eigen).
//
// A kernel supplies the vector body of one block and, for the maxima, a way
// to find the first position in a block that holds a given value; the driver
// does the rest the same way for all of them:
// - cuts the whole vectors of the range into blocks (each lane's double sums
//   then stay short: the 1e-12 bound of the sums rests on it);
// - runs a block branch-free first; a block whose finiteness probe saw a NaN /
//   inf is re-run with a per-vector check that hands such vectors to the
//   scalar reference (non-finite values are rare);
// - keeps the first block (in index order) that reached each maximum and
//   rescans only that one for the index, instead of carrying indices in the
//   vector body or rescanning every record-breaking block — and not even that
//   one when the Partial it folds into already holds a maximum this range
//   cannot beat (a strided or transposed view arrives as many short runs into
//   one Partial: without this, every run paid a rescan);
// - runs the tail (less than one vector step) with the scalar reference, and
//   every block where a finite pair's relative error could be NaN (eps 0 or
//   inf: relative_error_can_be_nan), which no vector max skips portably.
// Maxima, indices and counts therefore come out as detail::accumulate_pair's,
// whatever the kernel; a tie between a rescanned block and a scalar fallback
// keeps the smaller index (Partial::take_max).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../partial.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// The largest |a − b| and relative error of one block's vector lanes, without indices; -1
/// where the block has no finite pair or the kernel's metric set skipped that maximum.
struct BlockMaxima {
  double abs = -1;
  double rel = -1;
  /// Set by the driver before the block runs: the best maxima so far. A block maximum that is
  /// not above its floor cannot be the first largest, so a kernel may report -1 for it instead
  /// of reducing its lanes.
  double abs_floor = -1, rel_floor = -1;
};

/// The first block (in index order) with the largest maximum seen so far.
struct BestBlock {
  double value = -1;
  std::size_t begin = 0, end = 0;
  void see(double v, std::size_t b, std::size_t e) {
    if (v > value) value = v, begin = b, end = e;
  }
};

/// Tags for a kernel's block body: Checked{} asks for the per-vector NaN / inf check.
using Unchecked = std::false_type;
using Checked = std::true_type;
/// Tags for a kernel's index rescan: which maximum to find.
using AbsTarget = std::false_type;
using RelTarget = std::true_type;

/// Whether the relative error of a finite pair can be NaN under `k` while the metric set asks for
/// its maximum: 0 / 0 where eps is 0 in the relative error's type (zero_bench_eps 0, or below
/// float's range under the float32 rule), inf − inf where it is not finite, and, under the
/// float32 rule, a float64 value beyond float's range. The reference skips such errors (numpy's
/// `>`); a vector lane's max would not portably (x86 keeps the second operand, Arm the NaN), so
/// drive_blocks runs those calls' blocks by the reference. compare() reaches them only through
/// an eps the user chose (it never passes 0) or float64 0-d values.
template <class TA, class TB> bool relative_error_can_be_nan(const KernelParams& k) {
  if (!pass_parts(k.metrics).rel_max) return false;  // Σ rel is NaN either way, counts agree
  const double eps = relative_error_eps(k);
  if (eps == 0 || !std::isfinite(eps)) return true;
  return k.rel_float32 && (std::is_same_v<TA, double> || std::is_same_v<TB, double>);
}

/// The fused pass over n contiguous pairs with a kernel's vector body (see the file comment).
///
/// - `step`: pairs per vector step (blocks are whole steps; the rest is the scalar tail);
/// - `block`: pairs per block, a multiple of `step`;
/// - `run(Unchecked{} | Checked{}, begin, end, Partial& p, BlockMaxima& m, Partial& fallback)`
///   folds the pairs [begin, end) into `p` (sums, counts, side statistics; never count, maxima
///   or indices; or into state of the kernel's own that it merges into `out` after the call)
///   and their maxima into `m`, and returns true. Unchecked: it may instead return
///   false, folding nothing, when the block holds a NaN / inf. Checked: vectors holding one go
///   to the scalar reference, into `fallback`;
/// - `index_of(AbsTarget{} | RelTarget{}, begin, end, value)`: the first position in [begin, end)
///   whose finite pair has that |a − b| / relative error (first_index_of is the reference one).
template <class TA, class TB, class Run, class IndexOf>
void drive_blocks(const TA* a, const TB* b, std::size_t n, std::size_t step, std::size_t block,
                  std::uint64_t first, const KernelParams& k, Partial& out, Run&& run, IndexOf&& index_of) {
  Partial p;
  const bool reference_only = relative_error_can_be_nan<TA, TB>(k);
  const std::size_t whole = n / step * step;
  BestBlock best_abs, best_rel;
  for (std::size_t begin = 0; begin < whole;) {
    const std::size_t end = begin + (whole - begin < block ? whole - begin : block);
    BlockMaxima m;
    m.abs_floor = best_abs.value;
    m.rel_floor = best_rel.value;
    Partial fallback;
    if (reference_only) {  // still block by block: the sums' error bound rests on short blocks
      for (std::size_t i = begin; i < end; ++i) accumulate_pair(fallback, a[i], b[i], first + i, k);
    } else if (!run(Unchecked{}, begin, end, p, m, fallback)) {
      run(Checked{}, begin, end, p, m, fallback);
    }
    best_abs.see(m.abs, begin, end);
    best_rel.see(m.rel, begin, end);
    if (fallback.count != 0) p.merge(fallback);  // checked blocks with a NaN / inf, reference_only
    begin = end;
  }
  // Every index of this range is ≥ first: a maximum below out's, or equal to it with out's
  // index before `first`, loses Partial::take_max whatever its index, so it needs no rescan.
  const auto can_win = [&](const BestBlock& best, double have, std::uint64_t have_index) {
    return best.value >= 0 && (best.value > have || (best.value == have && have_index > first));
  };
  if (can_win(best_abs, out.max_abs_diff, out.max_abs_index))
    Partial::take_max(p.max_abs_diff, p.max_abs_index, best_abs.value,
                      first + index_of(AbsTarget{}, best_abs.begin, best_abs.end, best_abs.value));
  if (can_win(best_rel, out.max_rel, out.max_rel_index))
    Partial::take_max(p.max_rel, p.max_rel_index, best_rel.value,
                      first + index_of(RelTarget{}, best_rel.begin, best_rel.end, best_rel.value));
  Partial tail;
  for (std::size_t i = whole; i < n; ++i) accumulate_pair(tail, a[i], b[i], first + i, k);
  p.count = n - tail.count;  // vector lanes and their scalar fallbacks
  p.merge(tail);
  out.merge(p);
}

/// The reference index rescan for drive_blocks: the first position in [begin, end) whose
/// finite pair has |a − b| (RelTarget: detail::relative_error) equal to `target`, in the
/// reference's own arithmetic (for kernels whose block maxima are the reference's values).
template <class Target, class TA, class TB>
std::size_t first_index_of(Target, const TA* a, const TB* b, std::size_t begin, std::size_t end, double target,
                           const KernelParams& k) {
  for (std::size_t i = begin; i < end; ++i) {
    const double x = to_double(a[i]), y = to_double(b[i]);
    if (!(std::isfinite(x) && std::isfinite(y))) continue;
    if ((Target::value ? relative_error(x, y, k) : std::fabs(x - y)) == target) return i;
  }
  return begin;  // unreachable: the target came from one of these pairs
}

/// drive_blocks with the reference index rescan (first_index_of), for kernels whose block
/// maxima are the reference's own values and that have no faster rescan.
template <class TA, class TB, class Run>
void drive_blocks(const TA* a, const TB* b, std::size_t n, std::size_t step, std::size_t block,
                  std::uint64_t first, const KernelParams& k, Partial& out, Run&& run) {
  drive_blocks(a, b, n, step, block, first, k, out, run, [&](auto target, std::size_t begin, std::size_t end, double v) {
    return first_index_of(target, a, b, begin, end, v, k);
  });
}

/// SideStats of n contiguous elements with a kernel's vector body: drive_blocks without
/// maxima. `run(Unchecked{} | Checked{}, begin, end, SideStats& s, SideStats& fallback)`.
template <class T, class Run>
void drive_side_blocks(const T* x, std::size_t n, std::size_t step, std::size_t block, SideStats& out, Run&& run) {
  SideStats s;
  const std::size_t whole = n / step * step;
  for (std::size_t begin = 0; begin < whole;) {
    const std::size_t end = begin + (whole - begin < block ? whole - begin : block);
    SideStats fallback;
    if (!run(Unchecked{}, begin, end, s, fallback)) run(Checked{}, begin, end, s, fallback);
    s.merge(fallback);
    begin = end;
  }
  for (std::size_t i = whole; i < n; ++i) s.add(to_double(x[i]));
  out.merge(s);
}

}  // namespace detail
TD_NAMESPACE_END
