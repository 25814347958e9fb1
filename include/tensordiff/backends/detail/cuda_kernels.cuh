// tensordiff — CUDA kernels of the fused compare pass and of summarize().
//
// The device code adds only traversal and reduction: every element goes
// through tensordiff::detail::accumulate_pair / SideStats::add, the same
// TD_HOST_DEVICE functions the CPU kernels and tests use. Each thread folds a
// grid-stride slice into a Partial in registers, loading `unroll` elements
// ahead (one load at a time left a warp waiting on memory for each element);
// warps merge with shuffles, warps of a block through shared memory, and each
// block writes one Partial. A one-block finishing kernel merges those in a
// fixed order and reads the elements at the argmax positions, so one small
// copy brings the result back. The grid depends only on the element count, so
// a result is bitwise reproducible on any GPU.
#pragma once
#if !defined(__CUDACC__)
#error "tensordiff/backends/detail/cuda_kernels.cuh must be compiled as CUDA (nvcc, a .cu file)"
#endif
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../core/dtype.hpp"
#include "../../core/element.hpp"
#include "../../kernels/partial.hpp"

TD_NAMESPACE_BEGIN
namespace cuda {
namespace detail {

inline constexpr int max_rank = 16;        ///< rank after coalescing contiguous dimensions
inline constexpr int block_threads = 256;  ///< a multiple of 32 (the reduction assumes full warps)
inline constexpr int max_blocks = 1024;
inline constexpr int unroll = 4;           ///< elements each thread loads before folding them in

/// Coalesced shape and element strides of up to two views, passed by value.
struct Layout {
  int rank = 1;
  bool contiguous = true;  ///< offset == flat index on every side
  std::int64_t shape[max_rank] = {};
  std::int64_t stride[2][max_rank] = {};
};

/// Element offsets of a C-order flat index on both sides.
__device__ inline void element_offsets(const Layout& L, std::uint64_t flat, std::int64_t& oa, std::int64_t& ob) {
  if (L.contiguous) {
    oa = ob = static_cast<std::int64_t>(flat);
    return;
  }
  oa = ob = 0;
  for (int d = L.rank - 1; d >= 0; --d) {
    const auto ext = static_cast<std::uint64_t>(L.shape[d]);
    const auto i = static_cast<std::int64_t>(flat % ext);
    flat /= ext;
    oa += i * L.stride[0][d];
    ob += i * L.stride[1][d];
  }
}

/// Conversion of a storage value to the compute type of a promoted pair,
/// exactly as the host's read_block_as (metrics/detail/pairing.hpp) does.
template <class C, class S> __device__ inline C convert_to(S x) {
  if constexpr (std::is_same_v<C, S>) return x;
  else if constexpr (std::is_same_v<C, double> || !::tensordiff::detail::is_integral_storage_v<S>)
    return static_cast<C>(::tensordiff::detail::to_double(x));
  else return static_cast<C>(::tensordiff::detail::as_integer(x));
}

/// Loads a storage type S as itself (kernel pairs: f16/bf16/f32/f64, int32, int64).
template <class S> struct TypedLoad {
  const S* p;
  __device__ S operator()(std::int64_t off) const { return p[off]; }
};

/// Loads any real dtype, chosen at run time, as the compute type C (double,
/// int64 or uint64): the promoted pairs, with few kernel instantiations.
template <class C> struct DynamicLoad {
  const std::byte* p;
  DType dtype;
  template <class S> __device__ C at(std::int64_t off) const { return convert_to<C>(reinterpret_cast<const S*>(p)[off]); }
  __device__ C operator()(std::int64_t off) const {
    switch (dtype) {
      case DType::boolean: return at<bool8>(off);
      case DType::int8: return at<std::int8_t>(off);
      case DType::uint8: return at<std::uint8_t>(off);
      case DType::int16: return at<std::int16_t>(off);
      case DType::uint16: return at<std::uint16_t>(off);
      case DType::int32: return at<std::int32_t>(off);
      case DType::uint32: return at<std::uint32_t>(off);
      case DType::int64: return at<std::int64_t>(off);
      case DType::uint64: return at<std::uint64_t>(off);
      case DType::float16: return at<float16>(off);
      case DType::bfloat16: return at<bfloat16>(off);
      case DType::float32: return at<float>(off);
      case DType::float64: return at<double>(off);
      default: return C{};  // complex: rejected on the host before any launch
    }
  }
};

// --- warp shuffles of the accumulators (field by field) ---------------------------

__device__ inline double shfl_down(double v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
__device__ inline std::uint64_t shfl_down(std::uint64_t v, int o) {
  return static_cast<std::uint64_t>(__shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(v), o));
}

__device__ inline SideStats shfl_down(const SideStats& s, int o) {
  SideStats r;
  r.nan_count = shfl_down(s.nan_count, o);
  r.pos_inf_count = shfl_down(s.pos_inf_count, o);
  r.neg_inf_count = shfl_down(s.neg_inf_count, o);
  r.finite_min = shfl_down(s.finite_min, o);
  r.finite_max = shfl_down(s.finite_max, o);
  r.sum = shfl_down(s.sum, o);
  r.sum_sq = shfl_down(s.sum_sq, o);
  return r;
}

__device__ inline Partial shfl_down(const Partial& p, int o) {
  Partial r;
  r.count = shfl_down(p.count, o);
  r.dot = shfl_down(p.dot, o);
  r.sum_sq_diff = shfl_down(p.sum_sq_diff, o);
  r.sum_abs_diff = shfl_down(p.sum_abs_diff, o);
  r.sum_rel = shfl_down(p.sum_rel, o);
  r.max_abs_diff = shfl_down(p.max_abs_diff, o);
  r.max_abs_index = shfl_down(p.max_abs_index, o);
  r.max_rel = shfl_down(p.max_rel, o);
  r.max_rel_index = shfl_down(p.max_rel_index, o);
  r.rel_below[0] = shfl_down(p.rel_below[0], o);
  r.rel_below[1] = shfl_down(p.rel_below[1], o);
  r.nonfinite_mismatch = shfl_down(p.nonfinite_mismatch, o);
  r.first_mismatch_index = shfl_down(p.first_mismatch_index, o);
  r.a = shfl_down(p.a, o);
  r.b = shfl_down(p.b, o);
  return r;
}

/// Tree reduction of a warp: lane 0 ends with the merge of all 32 lanes.
/// (Lanes >= o merge garbage from beyond the warp; nobody reads them again.)
template <class Acc> __device__ inline void warp_reduce(Acc& acc) {
  for (int o = 16; o > 0; o >>= 1) acc.merge(shfl_down(acc, o));
}

/// Block reduction: thread 0 ends with the merge of the whole block, in a
/// fixed order (Acc::merge semantics: sums add, extremes keep the smaller
/// index on ties). Every thread of the block must call it.
template <class Acc> __device__ inline void block_reduce(Acc& acc) {
  // Raw storage: __shared__ variables cannot have constructors.
  __shared__ __align__(16) unsigned char storage[(block_threads / 32) * sizeof(Acc)];
  Acc* per_warp = reinterpret_cast<Acc*>(storage);
  const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  warp_reduce(acc);
  if (lane == 0) per_warp[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < static_cast<int>(blockDim.x >> 5) ? per_warp[lane] : Acc{};
    warp_reduce(acc);
  }
}

/// fold(i, load(i)) for each flat index i of this thread's grid-stride slice of
/// [0, n), in order. The loads of `unroll` indices are issued before the first
/// fold: one at a time left each warp idle for a memory latency per element
/// (the kernel keeps 116 registers, so only 16 warps of an H100 SM are resident).
template <class Load, class Fold> __device__ inline void for_each_prefetched(std::uint64_t n, Load&& load, Fold&& fold) {
  using Value = decltype(load(std::uint64_t{0}));
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += unroll * step) {
    Value v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (i + u * step < n) v[u] = load(i + u * step);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (i + u * step < n) fold(i + u * step, v[u]);
  }
}

/// The two sides' values of one index, as their loaders return them.
template <class A, class B> struct LoadedPair {
  A a;
  B b;
};

/// The fused pass over flat indices [0, n); one Partial per block into `out`.
template <class LA, class LB>
__global__ void __launch_bounds__(block_threads)
    compare_kernel(LA la, LB lb, std::uint64_t n, Layout layout, KernelParams k, Partial* out) {
  using Pair = LoadedPair<decltype(la(0)), decltype(lb(0))>;
  Partial p;
  for_each_prefetched(
      n,
      [&](std::uint64_t i) {
        std::int64_t oa, ob;
        element_offsets(layout, i, oa, ob);
        return Pair{la(oa), lb(ob)};
      },
      [&](std::uint64_t i, const Pair& v) { ::tensordiff::detail::accumulate_pair(p, v.a, v.b, i, k); });
  block_reduce(p);
  if (threadIdx.x == 0) out[blockIdx.x] = p;
}

/// One side's statistics (SideStats::add on every element, as summarize()).
template <class L>
__global__ void __launch_bounds__(block_threads)
    summarize_kernel(L load, std::uint64_t n, Layout layout, SideStats* out) {
  SideStats s;
  for_each_prefetched(
      n,
      [&](std::uint64_t i) {
        std::int64_t off, unused;
        element_offsets(layout, i, off, unused);
        return load(off);
      },
      [&](std::uint64_t, auto x) { s.add(::tensordiff::detail::to_double(x)); });
  block_reduce(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

/// Merges `count` block accumulators with one block of block_threads threads,
/// in a fixed order (each thread a run of consecutive blocks, then the block
/// tree): thread 0 ends with the total.
template <class Acc> __device__ inline Acc merge_blocks(const Acc* parts, unsigned count) {
  const unsigned per = (count + block_threads - 1) / block_threads;
  Acc acc;
  for (unsigned j = threadIdx.x * per; j < (threadIdx.x + 1) * per && j < count; ++j) acc.merge(parts[j]);
  block_reduce(acc);
  return acc;
}

/// What compare() copies back: the merged Partial and the elements at its
/// argmax positions, as double (a and b at max_abs_index, then at max_rel_index).
struct CompareResult {
  Partial p;
  double at[4];
};

/// One block: the total of compare_kernel's block Partials and the elements
/// at its argmax positions (NaN where an index is outside [0, n)).
template <class LA, class LB>
__global__ void __launch_bounds__(block_threads)
    finish_compare_kernel(const Partial* parts, unsigned count, LA la, LB lb, std::uint64_t n, Layout layout,
                          CompareResult* out) {
  const Partial p = merge_blocks(parts, count);
  if (threadIdx.x != 0) return;
  out->p = p;
  const std::uint64_t index[2] = {p.max_abs_index, p.max_rel_index};
  for (int j = 0; j < 2; ++j) {
    double va = __longlong_as_double(0x7ff8000000000000ll), vb = va;  // quiet NaN
    if (index[j] < n) {
      std::int64_t oa, ob;
      element_offsets(layout, index[j], oa, ob);
      va = ::tensordiff::detail::to_double(la(oa));
      vb = ::tensordiff::detail::to_double(lb(ob));
    }
    out->at[2 * j] = va;
    out->at[2 * j + 1] = vb;
  }
}

/// One block: the total of summarize_kernel's block statistics.
__global__ void __launch_bounds__(block_threads)
    finish_summarize_kernel(const SideStats* parts, unsigned count, SideStats* out) {
  const SideStats s = merge_blocks(parts, count);
  if (threadIdx.x == 0) *out = s;
}

}  // namespace detail
}  // namespace cuda
TD_NAMESPACE_END
