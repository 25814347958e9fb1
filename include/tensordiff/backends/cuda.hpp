// tensordiff — CUDA backend: compare() and summarize() on device memory.
//
//   #include <tensordiff/backends/cuda.hpp>   // in a .cu file, compiled by nvcc
//   td::Comparison c = td::cuda::compare(view_a, view_b, options, stream);
//
// The views hold device pointers (cudaMalloc, PyTorch's tensor.data_ptr(),
// CuPy's array.data.ptr), with shape and strides in ELEMENTS (divide CuPy's
// byte strides by the item size). Every dtype pair of the host compare() is
// supported; f16/bf16/f32/f64 pairs and same-type int32/int64 are loaded as
// themselves, every other pair is promoted element by element exactly as the
// host does (int64/uint64 for integers, double when a float is involved).
//
// What stays on the device: the whole fused pass and the merge of its block
// results. What crosses: one copy of 248 bytes, the merged Partial and the
// four elements at the argmax positions. The result equals the host
// compare() in every count, extreme and index; sums are double in a different
// order, so they differ in the last bits only. The grid depends only on the
// element count: the same inputs give bitwise the same result on any GPU.
//
// Errors of the CUDA runtime are thrown as tensordiff::Error with
// ErrorCategory::device and the CUDA error name (e.g. cudaErrorIllegalAddress).
// CompareOptions::threads and ::chunk_elements are host-only and ignored here.
// Never included by the umbrella header <tensordiff/tensordiff.hpp>.
#pragma once
#if !defined(__CUDACC__)
#error "tensordiff/backends/cuda.hpp must be compiled as CUDA (nvcc, a .cu file); link CUDA::cudart"
#endif
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../core/detail/runs.hpp"
#include "../core/visit.hpp"
#include "../metrics/compare.hpp"
#include "detail/cuda_kernels.cuh"

TD_NAMESPACE_BEGIN
namespace cuda {
namespace detail {

/// Throws Error{device} naming the failed call and the CUDA error.
inline void check(cudaError_t e, const char* what) {
  if (TD_LIKELY(e == cudaSuccess)) return;
  throw Error(ErrorCategory::device,
              std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// Device scratch memory, stream-ordered where the device supports it.
class DeviceBuffer {
 public:
  DeviceBuffer(std::size_t bytes, cudaStream_t s) : stream_(s) {
    cudaError_t e = cudaMallocAsync(&ptr_, bytes, s);
    if (e == cudaErrorNotSupported) {  // no memory pools (old driver, some vGPUs)
      (void)cudaGetLastError();
      async_ = false;
      e = cudaMalloc(&ptr_, bytes);
    }
    check(e, async_ ? "cudaMallocAsync" : "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (ptr_) (void)(async_ ? cudaFreeAsync(ptr_, stream_) : cudaFree(ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T> T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
  bool async_ = true;
};

/// Refuses what the kernels cannot read: foreign byte order, misaligned or
/// host (non device-accessible) pointers. Complex dtypes are refused by the
/// dtype visit with the host's message.
inline void check_view(const TensorView& v, const char* side) {
  if (!v.is_native_order())
    throw Error(ErrorCategory::invalid_argument, std::string("cuda::compare: ") + side + " is not in native byte order");
  if (reinterpret_cast<std::uintptr_t>(v.data) % v.itemsize() != 0)
    throw Error(ErrorCategory::invalid_argument,
                std::string("cuda::compare: ") + side + " pointer is not aligned to its " + dtype_name(v.dtype) + " items");
  cudaPointerAttributes attr{};
  check(cudaPointerGetAttributes(&attr, v.data), "cudaPointerGetAttributes");
  if (attr.type == cudaMemoryTypeUnregistered)
    throw Error(ErrorCategory::invalid_argument,
                std::string("cuda::compare: ") + side + " is not device-accessible memory (a host pointer?)");
}

template <std::size_t K> Layout make_layout(const std::array<const TensorView*, K>& views) {
  const auto c = ::tensordiff::detail::coalesce<K>(views);
  if (c.shape.size() > static_cast<std::size_t>(max_rank))
    throw Error(ErrorCategory::unsupported, "cuda::compare: more than " + std::to_string(max_rank) +
                                                " non-mergeable dimensions (rank " + std::to_string(c.shape.size()) + ")");
  Layout L;
  L.rank = static_cast<int>(c.shape.size());
  for (int d = 0; d < L.rank; ++d) {
    L.shape[d] = c.shape[static_cast<std::size_t>(d)];
    for (std::size_t k = 0; k < 2; ++k) L.stride[k][d] = c.strides[k < K ? k : 0][static_cast<std::size_t>(d)];
  }
  L.contiguous = L.rank == 1 && L.stride[0][0] == 1 && L.stride[1][0] == 1;
  return L;
}

/// Blocks for n elements: a function of n only (deterministic results).
inline unsigned grid_for(std::uint64_t n) {
  const std::uint64_t want = (n + block_threads - 1) / block_threads;
  return static_cast<unsigned>(want < 1 ? 1 : want > max_blocks ? max_blocks : want);
}

template <class F> void visit_float_load(const TensorView& v, F&& f) {
  switch (v.dtype) {
    case DType::float16: return f(TypedLoad<float16>{reinterpret_cast<const float16*>(v.data)});
    case DType::bfloat16: return f(TypedLoad<bfloat16>{reinterpret_cast<const bfloat16*>(v.data)});
    case DType::float32: return f(TypedLoad<float>{reinterpret_cast<const float*>(v.data)});
    default: return f(TypedLoad<double>{reinterpret_cast<const double*>(v.data)});
  }
}

/// Calls f(load) with the loader of one view for summarize(): its own type where
/// compare() has a typed loader for it, else DynamicLoad<double>.
template <class F> void visit_load(const TensorView& v, F&& f) {
  if (is_floating(v.dtype)) visit_float_load(v, f);
  else if (v.dtype == DType::int32) f(TypedLoad<std::int32_t>{reinterpret_cast<const std::int32_t*>(v.data)});
  else if (v.dtype == DType::int64) f(TypedLoad<std::int64_t>{reinterpret_cast<const std::int64_t*>(v.data)});
  else f(DynamicLoad<double>{v.data, v.dtype});
}

/// Calls f(load_a, load_b) with the loaders of a dtype pair (see the file comment).
template <class F> void visit_loads(const TensorView& a, const TensorView& b, F&& f) {
  const DType ta = a.dtype, tb = b.dtype;
  if (is_floating(ta) && is_floating(tb)) {
    visit_float_load(a, [&](auto la) { visit_float_load(b, [&](auto lb) { f(la, lb); }); });
  } else if (ta == DType::int32 && tb == DType::int32) {
    f(TypedLoad<std::int32_t>{reinterpret_cast<const std::int32_t*>(a.data)},
      TypedLoad<std::int32_t>{reinterpret_cast<const std::int32_t*>(b.data)});
  } else if (ta == DType::int64 && tb == DType::int64) {
    f(TypedLoad<std::int64_t>{reinterpret_cast<const std::int64_t*>(a.data)},
      TypedLoad<std::int64_t>{reinterpret_cast<const std::int64_t*>(b.data)});
  } else if (is_floating(ta) || is_floating(tb)) {
    f(DynamicLoad<double>{a.data, ta}, DynamicLoad<double>{b.data, tb});
  } else {  // integers (bool counts): int64, or uint64 for a uint64 side (pairing.hpp's promoted_t)
    const bool ua = ta == DType::uint64, ub = tb == DType::uint64;
    if (ua && ub) f(DynamicLoad<std::uint64_t>{a.data, ta}, DynamicLoad<std::uint64_t>{b.data, tb});
    else if (ua) f(DynamicLoad<std::uint64_t>{a.data, ta}, DynamicLoad<std::int64_t>{b.data, tb});
    else if (ub) f(DynamicLoad<std::int64_t>{a.data, ta}, DynamicLoad<std::uint64_t>{b.data, tb});
    else f(DynamicLoad<std::int64_t>{a.data, ta}, DynamicLoad<std::int64_t>{b.data, tb});
  }
}

/// Device scratch for `blocks` block accumulators and the finished result after them.
template <class Acc, class Result> class Scratch {
 public:
  Scratch(unsigned blocks, cudaStream_t s) : blocks_(blocks), buf_(blocks * sizeof(Acc) + sizeof(Result), s) {}
  Acc* parts() const { return buf_.as<Acc>(); }
  Result* result() const { return reinterpret_cast<Result*>(buf_.as<unsigned char>() + blocks_ * sizeof(Acc)); }
  /// The finished result on the host (one copy, one synchronisation).
  Result fetch(cudaStream_t s) const {
    Result r;
    check(cudaMemcpyAsync(&r, result(), sizeof(Result), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return r;
  }

 private:
  static_assert(alignof(Result) <= alignof(Acc) && sizeof(Acc) % alignof(Result) == 0, "result placement");
  unsigned blocks_;
  DeviceBuffer buf_;
};

/// float8 has no device loader: refused on the host (the float loaders would read it as double).
inline void reject_float8(DType t, const char* what) {
  if (t == DType::float8_e4m3fn || t == DType::float8_e5m2)
    throw Error(ErrorCategory::unsupported,
                std::string(what) + " does not support " + dtype_name(t) + " yet (compare it on the host)");
}

/// The fused pass over two same-shape device views, and the elements at its argmax positions.
inline CompareResult accumulate_views(const TensorView& a, const TensorView& b, const KernelParams& k,
                                      cudaStream_t s) {
  visit_real_dtypes(a.dtype, b.dtype, [](auto, auto) {}, "cuda::compare()");  // complex: host's error
  reject_float8(a.dtype, "cuda::compare()");
  reject_float8(b.dtype, "cuda::compare()");
  check_view(a, "tensor a");
  check_view(b, "tensor b");
  const std::uint64_t n = a.numel();
  const Layout layout = make_layout<2>({&a, &b});
  const unsigned blocks = grid_for(n);
  const Scratch<Partial, CompareResult> scratch(blocks, s);
  visit_loads(a, b, [&](auto la, auto lb) {
    compare_kernel<<<blocks, block_threads, 0, s>>>(la, lb, n, layout, k, scratch.parts());
    check(cudaGetLastError(), "compare_kernel launch");
    finish_compare_kernel<<<1, block_threads, 0, s>>>(scratch.parts(), blocks, la, lb, n, layout, scratch.result());
    check(cudaGetLastError(), "finish_compare_kernel launch");
  });
  return scratch.fetch(s);
}

/// One element of a device view, as double.
inline double element_at(const TensorView& v, std::uint64_t flat, cudaStream_t s) {
  return visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T x{};
    check(cudaMemcpyAsync(&x, v.data + v.offset_of(flat) * static_cast<std::int64_t>(sizeof(T)), sizeof(T),
                          cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return ::tensordiff::detail::to_double(x);
  }, "cuda::compare()");
}

}  // namespace detail

/// Statistics of a device view (any strides; native byte order). The same
/// numbers as tensordiff::summarize() up to the rounding of the sums.
inline Summary summarize(const TensorView& v, cudaStream_t stream = nullptr) {
  const std::uint64_t n = v.numel();
  SideStats s;
  if (n > 0) {
    visit_real_dtype(v.dtype, [](auto) {}, "cuda::summarize()");
    detail::reject_float8(v.dtype, "cuda::summarize()");
    detail::check_view(v, "tensor");
    const detail::Layout layout = detail::make_layout<1>({&v});
    const unsigned blocks = detail::grid_for(n);
    const detail::Scratch<SideStats, SideStats> scratch(blocks, stream);
    detail::visit_load(v, [&](auto load) {
      detail::summarize_kernel<<<blocks, detail::block_threads, 0, stream>>>(load, n, layout, scratch.parts());
      detail::check(cudaGetLastError(), "summarize_kernel launch");
    });
    detail::finish_summarize_kernel<<<1, detail::block_threads, 0, stream>>>(scratch.parts(), blocks, scratch.result());
    detail::check(cudaGetLastError(), "finish_summarize_kernel launch");
    s = scratch.fetch(stream);
  }
  return make_summary(s, v.dtype, v.shape, n);
}

/// tensordiff::compare() on device memory: the same validation chain, metrics
/// and messages, computed by CUDA kernels on `stream` (the call returns when
/// the result is on the host). `actual` is the NPU side, `expected` the bench (reference) side.
inline Comparison compare(const TensorView& actual, const TensorView& expected, const CompareOptions& o = {},
                          cudaStream_t stream = nullptr) {
  const ::tensordiff::detail::SqueezedView squeezed_a(actual, o.squeeze), squeezed_b(expected, o.squeeze);
  const TensorView &a = *squeezed_a, &b = *squeezed_b;
  Comparison c;
  if (!::tensordiff::detail::start_comparison(c, a, b, o)) {
    if (c.validation == Validation::shape_unmatched) {
      c.actual = summarize(a, stream);
      c.expected = summarize(b, stream);
      c.actual.shape = actual.shape;  // the callers' shapes, not the squeezed ones
      c.expected.shape = expected.shape;
    }
    return c;
  }
  const detail::CompareResult r = detail::accumulate_views(a, b, ::tensordiff::detail::kernel_params(c, o), stream);
  // finish_comparison asks only for the elements at the argmax positions (index 0 of a 0-d
  // pair is both), which the finishing kernel brought back; any other is copied on its own.
  const std::uint64_t at_index[2] = {r.p.max_abs_index, r.p.max_rel_index};
  ::tensordiff::detail::finish_comparison(c, a, b, actual.shape, expected.shape, r.p,
                                          [&](const TensorView& v, std::uint64_t i) {
                                            const int side = &v == &a ? 0 : &v == &b ? 1 : -1;
                                            for (int j = 0; j < 2 && side >= 0; ++j)
                                              if (i == at_index[j]) return r.at[2 * j + side];
                                            return detail::element_at(v, i, stream);
                                          });
  return c;
}

}  // namespace cuda
TD_NAMESPACE_END
