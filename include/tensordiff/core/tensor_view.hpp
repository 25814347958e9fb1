// tensordiff — TensorView: a non-owning, strided, typed window on memory.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"

TD_NAMESPACE_BEGIN

using Shape = std::vector<std::int64_t>;  ///< extents, outermost first
using Strides = std::vector<std::int64_t>;  ///< in elements, not bytes; 0 and negatives allowed

/// Byte order of the elements of a view (files may hold either): `little` (x86, ARM, every
/// file tensordiff writes) or `big` (e.g. a '>f4' npy); native_byte_order is the host's.
enum class ByteOrder : std::uint8_t { little, big };

/// The byte order of this machine.
inline constexpr ByteOrder native_byte_order =
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    ByteOrder::big;
#else
    ByteOrder::little;
#endif

/// "[2, 3, 4]" — the spelling msprobe uses in its tables.
inline std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// Number of elements, with every multiplication checked: an absurd shape
/// (negative extent, product beyond 2^63) throws instead of wrapping.
inline std::uint64_t checked_numel(const Shape& shape, const ErrorContext& where = {}) {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0)
      throw Error(ErrorCategory::invalid_argument, "negative dimension in shape " + shape_to_string(shape), where);
    if (d != 0 && n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / static_cast<std::uint64_t>(d))
      throw Error(ErrorCategory::invalid_argument, "element count of shape " + shape_to_string(shape) + " overflows 64 bits", where);
    n *= static_cast<std::uint64_t>(d);
  }
  return n;
}

/// Row-major (C order) strides for a shape.
inline Strides contiguous_strides(const Shape& shape) {
  Strides s(shape.size());
  // Unsigned, so an absurd shape wraps instead of overflowing (undefined
  // behaviour); views reject such shapes through checked_numel anyway.
  std::uint64_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = static_cast<std::int64_t>(step);
    step *= shape[i] > 0 ? static_cast<std::uint64_t>(shape[i]) : 1u;
  }
  return s;
}

/// A non-owning view: pointer, dtype, shape, strides (in elements) and byte
/// order. Views never own memory; keep the owner (Tensor, mapped file, caller
/// buffer) alive while a view is used.
struct TensorView {
  const std::byte* data = nullptr;  ///< the element at index (0, …, 0)
  DType dtype = DType::float32;      ///< element type
  Shape shape;                       ///< extents
  Strides strides;                   ///< in elements, one per extent
  ByteOrder byte_order = native_byte_order;  ///< of every element

  TensorView() = default;
  /// A strided view; throws Error{invalid_argument} when the ranks differ or the element count overflows.
  TensorView(const void* ptr, DType t, Shape shp, Strides str, ByteOrder order = native_byte_order)
      : data(static_cast<const std::byte*>(ptr)), dtype(t), shape(std::move(shp)), strides(std::move(str)), byte_order(order) {
    if (strides.size() != shape.size())
      throw Error(ErrorCategory::invalid_argument, "strides rank " + std::to_string(strides.size()) +
                                                       " differs from shape rank " + std::to_string(shape.size()));
    checked_numel(shape);
  }
  /// C-contiguous view.
  TensorView(const void* ptr, DType t, Shape shp) : TensorView(ptr, t, shp, contiguous_strides(shp)) {}

  /// Typed convenience: `TensorView::of(v.data(), {2, 3})`.
  template <class T> static TensorView of(const T* ptr, Shape shp) { return TensorView(ptr, dtype_of<T>(), std::move(shp)); }
  /// Typed strided view: `TensorView::of(p, {2, 3}, {1, 2})` (strides in elements).
  template <class T> static TensorView of(const T* ptr, Shape shp, Strides str) {
    return TensorView(ptr, dtype_of<T>(), std::move(shp), std::move(str));
  }

  std::size_t rank() const noexcept { return shape.size(); }  ///< number of extents
  std::uint64_t numel() const { return checked_numel(shape); }  ///< number of elements
  std::size_t itemsize() const noexcept { return dtype_size(dtype); }  ///< bytes per element
  /// The elements can be read without swapping bytes.
  bool is_native_order() const noexcept { return byte_order == native_byte_order || itemsize() == 1; }

  /// C-contiguous (row-major, no gaps); extents of 1 may have any stride.
  bool is_contiguous() const noexcept {
    std::uint64_t step = 1;  // unsigned: an empty view's absurd extents wrap, never overflow
    for (std::size_t i = shape.size(); i-- > 0;) {
      if (shape[i] != 1 && strides[i] != static_cast<std::int64_t>(step)) return false;
      step *= static_cast<std::uint64_t>(shape[i]);
    }
    return true;
  }

  /// Element offset (in elements from `data`) of a C-order flat index.
  std::int64_t offset_of(std::uint64_t flat) const noexcept {
    std::int64_t off = 0;
    for (std::size_t i = shape.size(); i-- > 0;) {
      const auto d = static_cast<std::uint64_t>(shape[i]);
      off += static_cast<std::int64_t>(flat % d) * strides[i];
      flat /= d;
    }
    return off;
  }

  /// Multi-dimensional index of a C-order flat index (for messages).
  Shape unravel(std::uint64_t flat) const {
    Shape idx(shape.size());
    for (std::size_t i = shape.size(); i-- > 0;) {
      const auto d = static_cast<std::uint64_t>(shape[i]);
      idx[i] = static_cast<std::int64_t>(flat % d);
      flat /= d;
    }
    return idx;
  }

  /// Lowest and one-past-highest byte offsets touched, relative to `data`.
  /// Readers check these against the buffer before handing a view out.
  std::pair<std::int64_t, std::int64_t> byte_extent() const {
    if (numel() == 0) return {0, 0};
    std::int64_t lo = 0, hi = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      // |span| <= 2^58 each (checked without a wider type), so the sums over
      // at most a few dimensions and the byte scaling below cannot overflow.
      constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 32;
      const std::int64_t ext = shape[i] - 1, st = strides[i];
      const std::uint64_t mag = st < 0 ? 0 - static_cast<std::uint64_t>(st) : static_cast<std::uint64_t>(st);
      if (ext != 0 && mag > static_cast<std::uint64_t>(limit) / static_cast<std::uint64_t>(ext))
        throw Error(ErrorCategory::invalid_argument, "strides reach beyond 2^58 elements");
      const std::int64_t span = ext * st;
      std::int64_t& side = span < 0 ? lo : hi;
      if (span < 0 ? side < -limit - span : side > limit - span)
        throw Error(ErrorCategory::invalid_argument, "strides reach beyond 2^58 elements");
      side += span;
    }
    const auto item = static_cast<std::int64_t>(itemsize());
    return {lo * item, (hi + 1) * item};
  }

  /// Throws unless every element lies within [0, buffer_bytes) of `data`.
  void check_within(std::uint64_t buffer_bytes, const ErrorContext& where = {}) const {
    const auto [lo, hi] = byte_extent();
    if (lo < 0 || static_cast<std::uint64_t>(hi) > buffer_bytes)
      throw Error(ErrorCategory::format,
                  "tensor of shape " + shape_to_string(shape) + " and " + dtype_name(dtype) + " needs bytes [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + ") but the buffer holds " +
                      std::to_string(buffer_bytes),
                  where);
  }

  /// Same memory, dimensions of extent 1 removed (numpy.squeeze).
  TensorView squeezed() const {
    TensorView v = *this;
    v.shape.clear();
    v.strides.clear();
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != 1) {
        v.shape.push_back(shape[i]);
        v.strides.push_back(strides[i]);
      }
    return v;
  }

  /// Same memory, dimensions permuted (axes[i] = source dimension of output i).
  TensorView permuted(const std::vector<std::size_t>& axes) const {
    if (axes.size() != rank()) throw Error(ErrorCategory::invalid_argument, "permutation rank differs from view rank");
    TensorView v = *this;
    std::vector<bool> seen(rank());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] >= rank() || seen[axes[i]]) throw Error(ErrorCategory::invalid_argument, "axes are not a permutation");
      seen[axes[i]] = true;
      v.shape[i] = shape[axes[i]];
      v.strides[i] = strides[axes[i]];
    }
    return v;
  }
};

namespace detail {
/// `v` squeezed (TensorView::squeezed) when `squeeze` is set and `v` has an extent of 1, else `v`
/// itself, uncopied: a copy is two heap allocations, measurable on small tensors' compare().
/// Refers to `v`: keep it alive; neither copyable nor movable (it may refer to its own copy).
class SqueezedView {
 public:
  SqueezedView(const TensorView& v, bool squeeze) : view_(&v) {
    if (squeeze && std::find(v.shape.begin(), v.shape.end(), 1) != v.shape.end()) {
      own_ = v.squeezed();
      view_ = &own_;
    }
  }
  SqueezedView(const SqueezedView&) = delete;
  SqueezedView& operator=(const SqueezedView&) = delete;
  const TensorView& operator*() const noexcept { return *view_; }

 private:
  TensorView own_;
  const TensorView* view_;
};
}  // namespace detail

TD_NAMESPACE_END
