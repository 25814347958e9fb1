// tensordiff — turning the things tests hold into tensor views.
//
// The GoogleTest matchers accept anything `as_tensor()` understands:
//   - TensorView, Tensor;
//   - 1-D contiguous ranges with data() and size(): std::vector, std::array,
//     std::span, absl::Span, ... of arithmetic types, float16 or bfloat16
//     (and std::vector<bool>, copied);
//   - a pointer and a shape: Values(ptr, {2, 3}) (optionally strides);
//   - Eigen dense objects when tensordiff/testing/eigen.hpp is included;
//   - a golden file: FromFile("golden/x.npy") (through io::load_one, so
//     "file.npz::name" picks an entry), when the io headers are present;
//   - your own types: specialise tensor_adapter<T> with
//       static constexpr bool specialized = true;
//       static TensorArg adapt(const T&);
// This header does not include GoogleTest.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/tensor.hpp"

#if defined(__has_include)
#if __has_include("../io/registry.hpp") && __has_include("../io/npy.hpp") && __has_include("../io/npz.hpp")
#include "../io/registry.hpp"
#define TD_TESTING_HAS_IO 1
#endif
#endif

TD_NAMESPACE_BEGIN
namespace testing {

/// A view plus whatever keeps its memory alive (null when the caller owns it).
struct TensorArg {
  /// The tensor as the matchers read it; valid as long as `keep` (or the caller's object) lives.
  TensorView view;
  /// Owner of the viewed memory when the argument had to be copied or loaded (a FromFile, an
  /// Eigen expression, a std::vector<bool>); null when the view points into the caller's object.
  std::shared_ptr<const void> keep;
  std::string origin;  ///< where it came from when that helps a message ("golden/x.npy")
};

/// Customisation point: specialise for your own tensor types.
template <class T, class Enable = void> struct tensor_adapter {
  /// False here; a specialisation sets it true and provides `static TensorArg adapt(const T&)`.
  static constexpr bool specialized = false;
};

/// Pointer + shape (+ strides in elements): a view on caller-owned memory.
template <class T> TensorView Values(const T* data, Shape shape) { return TensorView::of(data, std::move(shape)); }
/// Pointer + shape + strides (in elements, not bytes; negative allowed), e.g. a column of a
/// row-major matrix: `Values(m + j, {rows}, {cols})`.
template <class T> TensorView Values(const T* data, Shape shape, Strides strides) {
  return TensorView::of(data, std::move(shape), std::move(strides));
}

/// A golden file, loaded when a matcher first needs it.
struct FromFile {
  std::string path;  ///< "x.npy", or "x.npz::entry" to pick one tensor of a container
  /// Names the file; nothing is read yet. Loading it (io::load_one) throws tensordiff::Error
  /// naming the file when it is missing or malformed, which fails the assertion that used it.
  explicit FromFile(std::string p) : path(std::move(p)) {}
};

namespace detail {
template <class T>
inline constexpr bool is_element_v = std::is_arithmetic_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <class T, class = void> struct is_contiguous_range : std::false_type {};
template <class T>
struct is_contiguous_range<T, std::void_t<decltype(std::declval<const T&>().data()), decltype(std::declval<const T&>().size())>>
    : std::bool_constant<std::is_pointer_v<decltype(std::declval<const T&>().data())> &&
                         is_element_v<std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const T&>().data())>>>> {};

template <class T, class = void> struct looks_like_eigen : std::false_type {};
template <class T> struct looks_like_eigen<T, std::void_t<decltype(T::ColsAtCompileTime)>> : std::true_type {};
}  // namespace detail

/// The view of a supported argument (see the header comment).
template <class T> TensorArg as_tensor(const T& x) {
  if constexpr (std::is_same_v<T, TensorArg>) {
    return x;
  } else if constexpr (std::is_same_v<T, TensorView>) {
    return {x, nullptr, {}};
  } else if constexpr (std::is_same_v<T, Tensor>) {
    auto keep = std::make_shared<Tensor>(x);  // shares the storage; no copy of the data
    return {keep->view(), keep, {}};
  } else if constexpr (std::is_same_v<T, FromFile>) {
#if defined(TD_TESTING_HAS_IO)
    auto keep = std::make_shared<Tensor>(io::load_one(x.path).tensor);
    return {keep->view(), keep, x.path};
#else
    static_assert(sizeof(T) == 0, "FromFile needs tensordiff/io/registry.hpp");
#endif
  } else if constexpr (tensor_adapter<T>::specialized) {
    return tensor_adapter<T>::adapt(x);
  } else if constexpr (detail::looks_like_eigen<T>::value) {
    static_assert(sizeof(T) == 0, "include <tensordiff/testing/eigen.hpp> to compare Eigen objects");
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    auto keep = std::make_shared<std::vector<std::uint8_t>>(x.begin(), x.end());
    return {TensorView(keep->data(), DType::boolean, {static_cast<std::int64_t>(keep->size())}), keep, {}};
  } else if constexpr (detail::is_contiguous_range<T>::value) {
    using E = std::remove_cv_t<std::remove_pointer_t<decltype(x.data())>>;
    return {TensorView::of(static_cast<const E*>(x.data()), {static_cast<std::int64_t>(x.size())}), nullptr, {}};
  } else {
    static_assert(sizeof(T) == 0,
                  "tensordiff::testing: unsupported tensor argument (use TensorView, Tensor, a contiguous range, "
                  "Values(ptr, shape), FromFile(path), or specialise tensor_adapter)");
  }
}

}  // namespace testing
TD_NAMESPACE_END
