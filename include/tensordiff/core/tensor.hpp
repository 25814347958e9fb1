// tensordiff — Tensor: an owning TensorView (aligned heap buffer or any
// shared owner such as a memory-mapped file).
#pragma once
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "tensor_view.hpp"

TD_NAMESPACE_BEGIN

/// Owns the memory its view points into. Copies share the storage (like a
/// torch tensor); use clone() for a deep copy.
class Tensor {
 public:
  static constexpr std::size_t alignment = 64;  ///< cache line and AVX-512 vector

  Tensor() = default;

  /// Zero-filled, C-contiguous, 64-byte aligned.
  static Tensor zeros(DType dtype, Shape shape) {
    const std::uint64_t n = checked_numel(shape);
    const std::uint64_t item = dtype_size(dtype);
    if (n > std::numeric_limits<std::uint64_t>::max() / item)
      throw Error(ErrorCategory::invalid_argument, "tensor byte size overflows 64 bits");
    const std::uint64_t bytes = n * item;
    const std::size_t padded = static_cast<std::size_t>((bytes + alignment - 1) / alignment * alignment);
    void* p = padded ? std::aligned_alloc(alignment, padded) : nullptr;
    if (padded && !p) throw std::bad_alloc();
    if (p) std::memset(p, 0, padded);
    Tensor t;
    t.owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    t.view_ = TensorView(p, dtype, std::move(shape));
    t.bytes_ = bytes;
    return t;
  }

  /// Adopts memory kept alive by `owner` (e.g. a mapped file); `view` must
  /// lie inside it.
  static Tensor adopt(std::shared_ptr<const void> owner, TensorView view) {
    Tensor t;
    t.owner_ = std::const_pointer_cast<void>(std::move(owner));
    t.view_ = std::move(view);
    const auto ext = t.view_.byte_extent();
    t.bytes_ = static_cast<std::uint64_t>(ext.second);
    return t;
  }

  /// Copy of any view into a fresh native-order, C-contiguous buffer.
  static Tensor copy_of(const TensorView& v);

  /// A tensor of `values` (C order) with `shape`; throws when the counts differ.
  template <class T> static Tensor from_values(const std::vector<T>& values, Shape shape) {
    if (checked_numel(shape) != values.size())
      throw Error(ErrorCategory::invalid_argument, "value count does not match shape " + shape_to_string(shape));
    Tensor t = zeros(dtype_of<T>(), std::move(shape));
    if (!values.empty()) std::memcpy(t.mutable_data<T>(), values.data(), values.size() * sizeof(T));
    return t;
  }

  const TensorView& view() const noexcept { return view_; }  ///< the view of the owned (or mapped) bytes
  /// A Tensor is usable wherever a view is.
  operator const TensorView&() const noexcept { return view_; }  // NOLINT

  DType dtype() const noexcept { return view_.dtype; }            ///< element type
  const Shape& shape() const noexcept { return view_.shape; }     ///< extents
  std::uint64_t numel() const { return view_.numel(); }           ///< number of elements
  std::uint64_t nbytes() const noexcept { return bytes_; }        ///< bytes the view spans

  /// Typed read pointer to the first element.
  template <class T> const T* data() const noexcept { return reinterpret_cast<const T*>(view_.data); }
  /// Writable pointer; only meaningful for tensors made by zeros()/copy_of().
  template <class T> T* mutable_data() noexcept { return reinterpret_cast<T*>(const_cast<std::byte*>(view_.data)); }

 private:
  std::shared_ptr<void> owner_;
  TensorView view_;
  std::uint64_t bytes_ = 0;
};

TD_NAMESPACE_END

#include "detail/runs.hpp"

TD_NAMESPACE_BEGIN
inline Tensor Tensor::copy_of(const TensorView& v) {
  Tensor t = zeros(v.dtype, v.shape);
  auto* out = const_cast<std::byte*>(t.view().data);
  detail::for_each_native_block(v, [&](const std::byte* block, std::size_t bytes) {
    std::memcpy(out, block, bytes);
    out += bytes;
  });
  return t;
}
TD_NAMESPACE_END
