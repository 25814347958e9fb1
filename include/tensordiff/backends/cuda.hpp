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
// What stays on the device: the whole fused pass. What crosses: one Partial
// per block (at most 1024 × 216 bytes) and, for the finished Comparison, the
// (at most four) elements at the argmax positions. The result equals the host
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

/// Copies the block accumulators back and merges them in block order.
template <class Acc> Acc merge_blocks(const DeviceBuffer& buf, unsigned blocks, cudaStream_t s) {
  std::vector<Acc> parts(blocks);
  check(cudaMemcpyAsync(parts.data(), buf.as<Acc>(), blocks * sizeof(Acc), cudaMemcpyDeviceToHost, s),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  Acc total;
  for (const Acc& p : parts) total.merge(p);
  return total;
}

/// float8 has no device loader: refused on the host (the float loaders would read it as double).
inline void reject_float8(DType t, const char* what) {
  if (t == DType::float8_e4m3fn || t == DType::float8_e5m2)
    throw Error(ErrorCategory::unsupported,
                std::string(what) + " does not support " + dtype_name(t) + " yet (compare it on the host)");
}

/// The fused pass over two same-shape device views.
inline Partial accumulate_views(const TensorView& a, const TensorView& b, const KernelParams& k, cudaStream_t s) {
  visit_real_dtypes(a.dtype, b.dtype, [](auto, auto) {}, "cuda::compare()");  // complex: host's error
  reject_float8(a.dtype, "cuda::compare()");
  reject_float8(b.dtype, "cuda::compare()");
  check_view(a, "tensor a");
  check_view(b, "tensor b");
  const std::uint64_t n = a.numel();
  const Layout layout = make_layout<2>({&a, &b});
  const unsigned blocks = grid_for(n);
  DeviceBuffer buf(blocks * sizeof(Partial), s);
  visit_loads(a, b, [&](auto la, auto lb) {
    compare_kernel<<<blocks, block_threads, 0, s>>>(la, lb, n, layout, k, buf.as<Partial>());
  });
  check(cudaGetLastError(), "compare_kernel launch");
  return merge_blocks<Partial>(buf, blocks, s);
}

/// One element of a device view, as double (for the values at the argmax).
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
    detail::DeviceBuffer buf(blocks * sizeof(SideStats), stream);
    detail::summarize_kernel<<<blocks, detail::block_threads, 0, stream>>>(
        detail::DynamicLoad<double>{v.data, v.dtype}, n, layout, buf.as<SideStats>());
    detail::check(cudaGetLastError(), "summarize_kernel launch");
    s = detail::merge_blocks<SideStats>(buf, blocks, stream);
  }
  return make_summary(s, v.dtype, v.shape, n);
}

/// tensordiff::compare() on device memory: the same validation chain, metrics
/// and messages, computed by CUDA kernels on `stream` (the call returns when
/// the result is on the host). `actual` is the NPU side, `expected` the bench (reference) side.
inline Comparison compare(const TensorView& actual, const TensorView& expected, const CompareOptions& o = {},
                          cudaStream_t stream = nullptr) {
  const TensorView a = o.squeeze ? actual.squeezed() : actual;
  const TensorView b = o.squeeze ? expected.squeezed() : expected;
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
  const Partial p = detail::accumulate_views(a, b, ::tensordiff::detail::kernel_params(c, o), stream);
  ::tensordiff::detail::finish_comparison(c, a, b, actual.shape, expected.shape, p,
                                          [&](const TensorView& v, std::uint64_t i) { return detail::element_at(v, i, stream); });
  return c;
}

}  // namespace cuda
TD_NAMESPACE_END
