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
#include <vector>

#include "../tensor_view.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

/// Shape and per-view strides after dropping extent-1 dimensions and merging
/// dimensions that are contiguous in every view. Rank is at least 1.
template <std::size_t K> struct CoalescedLayout {
  std::vector<std::int64_t> shape;
  std::array<std::vector<std::int64_t>, K> strides;
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
  std::vector<std::int64_t> idx(r);
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

/// Calls f(const TA* a, const TB* b, n, flat_pos) over [begin, end) of two
/// same-shape views with contiguous native-order pointers, gathering strided,
/// broadcast or byte-swapped runs into small buffers. TA/TB are the storage
/// types (same size as the dtypes' items).
template <class TA, class TB, class F>
void for_each_run_pair(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end, F&& f) {
  const auto L = coalesce<2>({&a, &b});
  const std::size_t swap_a = a.is_native_order() ? 0 : swap_word_size(a.dtype);
  const std::size_t swap_b = b.is_native_order() ? 0 : swap_word_size(b.dtype);
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

/// Single-view walk: f(const T* p, n, flat_pos) over [begin, end).
template <class T, class F>
void for_each_run(const TensorView& v, std::uint64_t begin, std::uint64_t end, F&& f) {
  const auto L = coalesce<1>({&v});
  const std::size_t swap = v.is_native_order() ? 0 : swap_word_size(v.dtype);
  walk_runs<1>(L, begin, end, [&](const auto& off, const auto& inner, std::uint64_t n, std::uint64_t pos) {
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
