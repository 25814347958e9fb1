// tensordiff — walking strided views as contiguous runs.
//
// Every kernel consumes contiguous runs. A view (or a pair of views of the same
// shape) is walked in C order; dimensions that are contiguous in every view are
// merged first, so a C-contiguous tensor is a single run and a transposed or
// broadcast one costs one small gather per block, never a full copy.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>
#include "../tensor_view.hpp"
#include "dims.hpp"
#include "transpose_tile.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// Shape and per-view strides after dropping extent-1 dimensions and merging
/// dimensions that are contiguous in every view. Rank is at least 1.
template <std::size_t K> struct CoalescedLayout {
  Dims shape;
  std::array<Dims, K> strides;
};

template <std::size_t K> CoalescedLayout<K> coalesce(const std::array<const TensorView*, K>& views) {
  CoalescedLayout<K> out;
  const Shape& shape = views[0]->shape;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    // Empty: other extents may be absurd (and their strides wrapped), so
    // describe it as one run of nothing instead of multiplying them.
    out.shape.push_back(0);
    for (std::size_t k = 0; k < K; ++k) out.strides[k].push_back(1);
    return out;
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !out.shape.empty();
    for (std::size_t k = 0; k < K && merge; ++k) {
      std::int64_t outer = 0;  // a stride whose product overflows cannot match
      merge = !__builtin_mul_overflow(views[k]->strides[d], shape[d], &outer) && out.strides[k].back() == outer;
    }
    if (merge) {
      out.shape.back() *= shape[d];
      for (std::size_t k = 0; k < K; ++k) out.strides[k].back() = views[k]->strides[d];
    } else {
      out.shape.push_back(shape[d]);
      for (std::size_t k = 0; k < K; ++k) out.strides[k].push_back(views[k]->strides[d]);
    }
  }
  if (out.shape.empty()) {  // 0-d or all extents 1: one element
    out.shape.push_back(1);
    for (std::size_t k = 0; k < K; ++k) out.strides[k].push_back(1);
  }
  return out;
}

/// Calls f(offsets, inner_strides, n, flat_pos) for each inner run of the flat
/// C-order range [begin, end); offsets are in elements from each view's data.
template <std::size_t K, class F>
void walk_runs(const CoalescedLayout<K>& L, std::uint64_t begin, std::uint64_t end, F&& f) {
  if (begin >= end) return;
  const std::size_t r = L.shape.size();
  Dims idx(r);
  std::array<std::int64_t, K> off{};
  std::uint64_t rest = begin;
  for (std::size_t d = r; d-- > 0;) {
    const auto ext = static_cast<std::uint64_t>(L.shape[d]);
    idx[d] = static_cast<std::int64_t>(rest % ext);
    rest /= ext;
    for (std::size_t k = 0; k < K; ++k) off[k] += idx[d] * L.strides[k][d];
  }
  std::array<std::int64_t, K> inner{};
  for (std::size_t k = 0; k < K; ++k) inner[k] = L.strides[k][r - 1];
  for (std::uint64_t pos = begin; pos < end;) {
    const std::uint64_t n = std::min<std::uint64_t>(static_cast<std::uint64_t>(L.shape[r - 1] - idx[r - 1]), end - pos);
    f(off, inner, n, pos);
    pos += n;
    idx[r - 1] += static_cast<std::int64_t>(n);
    for (std::size_t k = 0; k < K; ++k) off[k] += static_cast<std::int64_t>(n) * inner[k];
    for (std::size_t d = r - 1; d > 0 && idx[d] == L.shape[d]; --d) {
      for (std::size_t k = 0; k < K; ++k) off[k] += L.strides[k][d - 1] - L.shape[d] * L.strides[k][d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

/// Bytes of each word a foreign-order element is swapped in: the whole item,
/// but each half of a complex number (real and imaginary swap separately).
constexpr std::size_t swap_word_size(DType t) noexcept {
  return is_complex(t) ? dtype_size(t) / 2 : dtype_size(t);
}

/// Copies `n` elements of `size` bytes, `stride` elements apart, into `out`
/// contiguously. A non-zero `swap_word` reverses the bytes of every word of
/// that many bytes (see swap_word_size); 0 copies as is.
inline void gather_bytes(const std::byte* src, std::int64_t stride, std::size_t size, std::size_t n,
                         std::size_t swap_word, std::byte* out) {
  const std::int64_t step = stride * static_cast<std::int64_t>(size);
  for (std::size_t i = 0; i < n; ++i, src += step, out += size) {
    if (swap_word)
      for (std::size_t w = 0; w < size; w += swap_word)
        for (std::size_t j = 0; j < swap_word; ++j) out[w + j] = src[w + swap_word - 1 - j];
    else
      std::memcpy(out, src, size);
  }
}

/// Elements per gather block: small enough for the stack, big enough that a
/// kernel call amortises.
inline constexpr std::size_t gather_block = 512;

/// Bytes of one side's band buffer in the tiled pair walk: half an L2 of the server cores
/// measured (1 MiB), 64 rows of a 2,048-wide f32 matrix. Against 256 KiB × 32 rows: +8–10 % on
/// a transposed f32 compare, within noise for bf16 (AMD EPYC Zen 4, seventh session).
inline constexpr std::size_t tile_bytes = std::size_t{512} << 10;
/// Rows of a band in the tiled pair walk, at least: each column is read in runs this long.
inline constexpr std::size_t tile_rows = 64;
/// Bytes of the band buffer of the single-view walk, which gathers whole rows (C order).
inline constexpr std::size_t row_band_bytes = std::size_t{2} << 20;

/// Whether view k of L reads faster across rows than along them (a transposed or
/// column-major layout): its inner stride is not 1 and its row stride is smaller.
template <std::size_t K> bool reads_across_rows(const CoalescedLayout<K>& L, std::size_t k) {
  const std::size_t r = L.shape.size();
  if (r < 2) return false;
  const std::int64_t in = L.strides[k][r - 1], row = L.strides[k][r - 2];
  return in != 1 && (row < 0 ? -row : row) < (in < 0 ? -in : in);
}

/// Element offsets of the C-order flat position `flat` in each view of L.
template <std::size_t K> std::array<std::int64_t, K> offsets_of(const CoalescedLayout<K>& L, std::uint64_t flat) {
  std::array<std::int64_t, K> off{};
  for (std::size_t d = L.shape.size(); d-- > 0;) {
    const auto ext = static_cast<std::uint64_t>(L.shape[d]);
    const auto i = static_cast<std::int64_t>(flat % ext);
    flat /= ext;
    for (std::size_t k = 0; k < K; ++k) off[k] += i * L.strides[k][d];
  }
  return off;
}

/// An uninitialised band buffer of n items (every item is written before it is read; a
/// value-initialised std::vector cleared up to 2 × 512 KiB per chunk, a third of a transposed
/// bf16 pass).
template <class T> std::unique_ptr<T[]> band_buffer(std::size_t n) {
  static_assert(std::is_trivially_default_constructible_v<T>);
  return std::unique_ptr<T[]>(n ? new T[n] : nullptr);
}

/// Gathers `rows` rows of `w` elements of T (row k starting at element offset row_off[k], inner
/// stride `in`) into out[k·pitch + j]. A layout that reads across rows is walked column by column,
/// so consecutive reads hit the same cache lines; others row by row.
template <class T>
void fill_band(const std::byte* data, const std::int64_t* row_off, std::size_t rows, std::int64_t in, std::size_t w,
               bool across, std::size_t swap, T* out, std::size_t pitch) {
  const auto size = static_cast<std::int64_t>(sizeof(T));
  if (!across || swap) {
    for (std::size_t k = 0; k < rows; ++k)
      gather_bytes(data + row_off[k] * size, in, sizeof(T), w, swap, reinterpret_cast<std::byte*>(out + k * pitch));
    return;
  }
  if constexpr (has_transpose_tile<sizeof(T)>) {
    // Rows that are consecutive in memory (a transposed matrix): L × L tiles transposed in
    // registers, L column streams read sequentially.
    bool unit_rows = true;
    for (std::size_t k = 1; k < rows && unit_rows; ++k) unit_rows = row_off[k] == row_off[0] + static_cast<std::int64_t>(k);
    if (unit_rows) {
      constexpr std::size_t L = 16 / sizeof(T);
      const std::byte* base = data + row_off[0] * size;  // (k, j) at base + (k + j·in)·size
      const std::int64_t col = in * size;
      const std::size_t kl = rows / L * L, jl = w / L * L;
      auto item = [&](std::size_t k, std::size_t j) {
        std::memcpy(out + k * pitch + j, base + static_cast<std::int64_t>(j) * col + static_cast<std::int64_t>(k) * size,
                    sizeof(T));
      };
      for (std::size_t j0 = 0; j0 < jl; j0 += L) {
        const std::byte* c = base + static_cast<std::int64_t>(j0) * col;
        for (std::size_t k0 = 0; k0 < kl; k0 += L)
          transpose_tile<sizeof(T)>(c + static_cast<std::int64_t>(k0) * size, col,
                                    reinterpret_cast<std::byte*>(out + k0 * pitch + j0), pitch * sizeof(T));
        for (std::size_t k = kl; k < rows; ++k)
          for (std::size_t j = j0; j < j0 + L; ++j) item(k, j);
      }
      for (std::size_t j = jl; j < w; ++j)
        for (std::size_t k = 0; k < rows; ++k) item(k, j);
      return;
    }
  }
  // Blocks of 16 columns, rows outer: 16 source streams run down their columns (each cache
  // line read is used whole) and every write lands in one destination line, whatever the pitch
  // (a power-of-two pitch walked column-wise thrashes one L1 set).
  for (std::size_t j0 = 0; j0 < w; j0 += 16) {
    const std::size_t j1 = j0 + 16 < w ? j0 + 16 : w;
    for (std::size_t k = 0; k < rows; ++k) {
      const std::byte* src = data + row_off[k] * size;
      T* dst = out + k * pitch;
      for (std::size_t j = j0; j < j1; ++j) std::memcpy(dst + j, src + static_cast<std::int64_t>(j) * in * size, sizeof(T));
    }
  }
}

/// The run-by-run walk of [begin, end) behind for_each_run_pair (see there).
template <class TA, class TB, class F>
void walk_pair_runs(const TensorView& a, const TensorView& b, const CoalescedLayout<2>& L, std::size_t swap_a,
                    std::size_t swap_b, std::uint64_t begin, std::uint64_t end, F& f) {
  walk_runs<2>(L, begin, end, [&](const auto& off, const auto& inner, std::uint64_t n, std::uint64_t pos) {
    const std::byte* pa = a.data + off[0] * static_cast<std::int64_t>(sizeof(TA));
    const std::byte* pb = b.data + off[1] * static_cast<std::int64_t>(sizeof(TB));
    const bool direct_a = inner[0] == 1 && !swap_a, direct_b = inner[1] == 1 && !swap_b;
    if (direct_a && direct_b) {
      f(reinterpret_cast<const TA*>(pa), reinterpret_cast<const TB*>(pb), static_cast<std::size_t>(n), pos);
      return;
    }
    alignas(64) TA buf_a[gather_block];
    alignas(64) TB buf_b[gather_block];
    for (std::uint64_t done = 0; done < n;) {
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(gather_block, n - done));
      const std::byte* qa = pa + static_cast<std::int64_t>(done) * inner[0] * static_cast<std::int64_t>(sizeof(TA));
      const std::byte* qb = pb + static_cast<std::int64_t>(done) * inner[1] * static_cast<std::int64_t>(sizeof(TB));
      if (!direct_a) gather_bytes(qa, inner[0], sizeof(TA), m, swap_a, reinterpret_cast<std::byte*>(buf_a));
      if (!direct_b) gather_bytes(qb, inner[1], sizeof(TB), m, swap_b, reinterpret_cast<std::byte*>(buf_b));
      f(direct_a ? reinterpret_cast<const TA*>(qa) : buf_a, direct_b ? reinterpret_cast<const TB*>(qb) : buf_b, m,
        pos + done);
      done += m;
    }
  });
}

/// Calls f(const TA* a, const TB* b, n, flat_pos) over [begin, end) of two
/// same-shape views with contiguous native-order pointers, gathering strided,
/// broadcast or byte-swapped runs into small buffers. TA/TB are the storage
/// types (same size as the dtypes' items).
///
/// Tiled walk: when a view reads faster across rows than along them (a
/// transposed matrix, a column-major or permuted tensor), element-by-element
/// gathering would touch one cache line per element. The whole rows of the
/// range are then gathered in bands of tile_rows rows or more (fill_band: column by column,
/// so consecutive reads share cache lines) and handed to f row by row (rows wider
/// than a band in column pieces, so f sees whole rows in C order only when they
/// fit: kernels merge in any order); partial rows at the range's ends take the
/// run-by-run path.
template <class TA, class TB, class F>
void for_each_run_pair(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end, F&& f) {
  const auto L = coalesce<2>({&a, &b});
  const std::size_t swap_a = a.is_native_order() ? 0 : swap_word_size(a.dtype);
  const std::size_t swap_b = b.is_native_order() ? 0 : swap_word_size(b.dtype);
  const std::size_t r = L.shape.size();
  const bool across_a = reads_across_rows(L, 0), across_b = reads_across_rows(L, 1);
  const auto w = static_cast<std::uint64_t>(L.shape[r - 1]);
  constexpr std::size_t item = sizeof(TA) > sizeof(TB) ? sizeof(TA) : sizeof(TB);
  const std::uint64_t first_row = w ? (begin + w - 1) / w : 0, last_row = w ? end / w : 0;  // whole rows
  if (!(across_a || across_b) || last_row <= first_row + 1) {
    walk_pair_runs<TA, TB>(a, b, L, swap_a, swap_b, begin, end, f);
    return;
  }
  walk_pair_runs<TA, TB>(a, b, L, swap_a, swap_b, begin, first_row * w, f);  // head of a row
  // A band is `band` rows × `cw` columns: ≥ tile_rows rows unless the range has fewer, so
  // each column is read in contiguous runs of whole cache lines; rows wider than cw are
  // handed over in column pieces (kernels merge in any order).
  const std::size_t cw = static_cast<std::size_t>(std::min<std::uint64_t>(w, std::max<std::size_t>(16, tile_bytes / (tile_rows * item))));
  const std::size_t band = static_cast<std::size_t>(  // no taller than the range's whole rows
      std::min<std::uint64_t>(last_row - first_row, std::max<std::size_t>(tile_rows, tile_bytes / (cw * item))));
  const bool direct_a = L.strides[0][r - 1] == 1 && !swap_a, direct_b = L.strides[1][r - 1] == 1 && !swap_b;
  const std::size_t pitch = cw + 64 / item;  // not a power of two: rows of a band in distinct L1 sets
  const auto buf_a = band_buffer<TA>(direct_a ? 0 : band * pitch);
  const auto buf_b = band_buffer<TB>(direct_b ? 0 : band * pitch);
  std::vector<std::int64_t> off_a(band), off_b(band);
  const std::int64_t in_a = L.strides[0][r - 1], in_b = L.strides[1][r - 1];
  for (std::uint64_t row = first_row; row < last_row; row += band) {
    const std::size_t rows = static_cast<std::size_t>(std::min<std::uint64_t>(band, last_row - row));
    for (std::size_t k = 0; k < rows; ++k) {
      const auto off = offsets_of(L, (row + k) * w);
      off_a[k] = off[0];
      off_b[k] = off[1];
    }
    for (std::uint64_t c0 = 0; c0 < w; c0 += cw) {
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(cw, w - c0));
      const auto c = static_cast<std::int64_t>(c0);
      if (!direct_a)
        fill_band(a.data + c * in_a * static_cast<std::int64_t>(sizeof(TA)), off_a.data(), rows, in_a, m, across_a,
                  swap_a, buf_a.get(), pitch);
      if (!direct_b)
        fill_band(b.data + c * in_b * static_cast<std::int64_t>(sizeof(TB)), off_b.data(), rows, in_b, m, across_b,
                  swap_b, buf_b.get(), pitch);
      for (std::size_t k = 0; k < rows; ++k) {
        const TA* pa = direct_a ? reinterpret_cast<const TA*>(a.data) + off_a[k] + c : buf_a.get() + k * pitch;
        const TB* pb = direct_b ? reinterpret_cast<const TB*>(b.data) + off_b[k] + c : buf_b.get() + k * pitch;
        f(pa, pb, m, (row + k) * w + c0);
      }
    }
  }
  walk_pair_runs<TA, TB>(a, b, L, swap_a, swap_b, last_row * w, end, f);  // tail of a row
}

/// Single-view walk: f(const T* p, n, flat_pos) over [begin, end), in C order. A view that reads
/// faster across rows (transposed) is gathered in bands of whole rows, as for_each_run_pair does.
template <class T, class F>
void for_each_run(const TensorView& v, std::uint64_t begin, std::uint64_t end, F&& f) {
  const auto L = coalesce<1>({&v});
  const std::size_t swap = v.is_native_order() ? 0 : swap_word_size(v.dtype);
  const std::size_t r = L.shape.size();
  const auto w = static_cast<std::uint64_t>(L.shape[r - 1]);
  const std::uint64_t first_row = w ? (begin + w - 1) / w : 0, last_row = w ? end / w : 0;
  auto runs = [&](std::uint64_t lo, std::uint64_t hi) {
    walk_runs<1>(L, lo, hi, [&](const auto& off, const auto& inner, std::uint64_t n, std::uint64_t pos) {
      const std::byte* p = v.data + off[0] * static_cast<std::int64_t>(sizeof(T));
      if (inner[0] == 1 && !swap) {
        f(reinterpret_cast<const T*>(p), static_cast<std::size_t>(n), pos);
        return;
      }
      alignas(64) T buf[gather_block];
      for (std::uint64_t done = 0; done < n;) {
        const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(gather_block, n - done));
        gather_bytes(p + static_cast<std::int64_t>(done) * inner[0] * static_cast<std::int64_t>(sizeof(T)), inner[0],
                     sizeof(T), m, swap, reinterpret_cast<std::byte*>(buf));
        f(static_cast<const T*>(buf), m, pos + done);
        done += m;
      }
    });
  };
  if (!reads_across_rows(L, 0) || w * sizeof(T) > row_band_bytes / 4 || last_row <= first_row + 1) {
    runs(begin, end);
    return;
  }
  runs(begin, first_row * w);
  const std::size_t band = static_cast<std::size_t>(std::min<std::uint64_t>(last_row - first_row, row_band_bytes / (w * sizeof(T))));
  const std::size_t wn = static_cast<std::size_t>(w);
  const std::size_t pitch = wn + 64 / sizeof(T);  // see for_each_run_pair
  const auto buf = band_buffer<T>(band * pitch);
  std::vector<std::int64_t> off(band);
  for (std::uint64_t row = first_row; row < last_row; row += band) {
    const std::size_t rows = static_cast<std::size_t>(std::min<std::uint64_t>(band, last_row - row));
    for (std::size_t k = 0; k < rows; ++k) off[k] = offsets_of(L, (row + k) * w)[0];
    fill_band(v.data, off.data(), rows, L.strides[0][r - 1], wn, true, swap, buf.get(), pitch);
    for (std::size_t k = 0; k < rows; ++k) f(static_cast<const T*>(buf.get() + k * pitch), wn, (row + k) * w);
  }
  runs(last_row * w, end);
}

/// Raw storage of `size` bytes: lets byte-level walkers (hashing, copying)
/// reuse the typed walk without knowing the dtype.
template <std::size_t Size> struct RawItem {
  std::byte b[Size];
};

/// f(const std::byte* bytes, std::size_t nbytes): the view's elements in C
/// order, each in native byte order, as contiguous byte blocks.
template <class F> void for_each_native_block(const TensorView& v, F&& f) {
  const std::uint64_t n = v.numel();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    for_each_run<T>(v, 0, n, [&](const T* p, std::size_t m, std::uint64_t) {
      f(reinterpret_cast<const std::byte*>(p), m * sizeof(T));
    });
  };
  switch (v.itemsize()) {
    case 1: return run(RawItem<1>{});
    case 2: return run(RawItem<2>{});
    case 4: return run(RawItem<4>{});
    case 8: return run(RawItem<8>{});
    case 16: return run(RawItem<16>{});
    default: throw Error(ErrorCategory::unsupported, "item size not supported");
  }
}


}  // namespace detail
TD_NAMESPACE_END
