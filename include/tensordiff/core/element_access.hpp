// tensordiff — random access to one element of a view, as double.
#pragma once
#include <cstring>

#include "detail/runs.hpp"
#include "visit.hpp"

TD_NAMESPACE_BEGIN

/// The element at a C-order flat index, converted exactly to double (int64
/// beyond 2^53 rounds). Handles strides and byte order; for messages and
/// reports, not for loops.
inline double element_as_double(const TensorView& v, std::uint64_t flat) {
  return visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T x;
    detail::gather_bytes(v.data + v.offset_of(flat) * static_cast<std::int64_t>(sizeof(T)), 1, sizeof(T), 1,
                         v.is_native_order() ? 0 : detail::swap_word_size(v.dtype), reinterpret_cast<std::byte*>(&x));
    return detail::to_double(x);
  }, "element access");
}

TD_NAMESPACE_END
