// tensordiff — which dtype pairs kernels see, and promotion of the others.
//
// Instantiating a fused kernel for all 13 × 13 storage pairs would cost minutes
// of compile time per translation unit. Kernels therefore see the same-type
// pairs, every floating-point pair (so bf16 vs f32 is compared without rounding
// either side) and the two mixed 64-bit integer pairs. Any other mixed pair is
// promoted block by block, exactly, to a common type: int64 for integers
// (uint64 pairs with uint64), double when a float is involved.
#pragma once
#include <type_traits>

#include "../../core/detail/runs.hpp"
#include "../../core/visit.hpp"

TD_NAMESPACE_BEGIN
namespace detail {

template <class T>
inline constexpr bool is_float_storage_v =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class TA, class TB>
inline constexpr bool is_kernel_pair_v =
    std::is_same_v<TA, TB> || (is_float_storage_v<TA> && is_float_storage_v<TB>) ||
    (std::is_same_v<TA, std::int64_t> && std::is_same_v<TB, std::uint64_t>) ||
    (std::is_same_v<TA, std::uint64_t> && std::is_same_v<TB, std::int64_t>);

/// Common storage type of a promoted side.
template <class T, class Other> struct promoted {
  static constexpr bool ints = is_integral_storage_v<T> && is_integral_storage_v<Other>;
  static constexpr bool u64 = std::is_same_v<T, std::uint64_t>;
  using type = std::conditional_t<!ints, double, std::conditional_t<u64, std::uint64_t, std::int64_t>>;
};
template <class T, class Other> using promoted_t = typename promoted<T, Other>::type;

/// Writes elements [begin, begin + n) of `v` (C order) to `out` as Out.
template <class Out> void read_block_as(const TensorView& v, std::uint64_t begin, std::size_t n, Out* out) {
  visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_run<T>(v, begin, begin + n, [&](const T* p, std::size_t m, std::uint64_t pos) {
      Out* o = out + (pos - begin);
      for (std::size_t i = 0; i < m; ++i) {
        // (float sources are only ever read as double; the cast keeps the
        // never-taken integer instantiations well-formed)
        if constexpr (std::is_same_v<Out, double> || !is_integral_storage_v<T>) o[i] = static_cast<Out>(to_double(p[i]));
        else o[i] = static_cast<Out>(as_integer(p[i]));
      }
    });
  });
}

/// f(const CA*, const CB*, n, pos) over [begin, end) after promotion.
template <class CA, class CB, class F>
void for_each_promoted_block(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end, F&& f) {
  alignas(64) CA buf_a[gather_block];
  alignas(64) CB buf_b[gather_block];
  for (std::uint64_t pos = begin; pos < end;) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(gather_block, end - pos));
    read_block_as<CA>(a, pos, m, buf_a);
    read_block_as<CB>(b, pos, m, buf_b);
    f(static_cast<const CA*>(buf_a), static_cast<const CB*>(buf_b), m, pos);
    pos += m;
  }
}

/// Calls f(const XA*, const XB*, n, pos) for [begin, end) of two same-shape
/// views, with (XA, XB) a kernel pair: the views' own storage types when they
/// form one, their promotions otherwise.
template <class TA, class TB, class F>
void for_each_kernel_block(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end, F&& f) {
  if constexpr (is_kernel_pair_v<TA, TB>) for_each_run_pair<TA, TB>(a, b, begin, end, f);
  else for_each_promoted_block<promoted_t<TA, TB>, promoted_t<TB, TA>>(a, b, begin, end, f);
}

}  // namespace detail
TD_NAMESPACE_END
