// tensordiff — Ascend NPU adapter: compare() of device buffers through the
// ACL runtime, streamed to the host in chunks.
//
//   #include <tensordiff/backends/npu.hpp>   // needs CANN's <acl/acl.h>
//   td::Comparison c = td::npu::compare(view_a, view_b, options, stream);
//
// The views hold device pointers (aclrtMalloc, torch_npu's tensor.data_ptr())
// of contiguous tensors; shape in elements. Each side is copied device → host
// with aclrtMemcpyAsync into two pinned buffers (aclrtMallocHost), double
// buffered: the copy of chunk i+1 is issued before the host SIMD kernel
// (kernels::Default, or `Kernel`) folds chunk i, and aclrtSynchronizeStream
// waits for a chunk before it is read. Host memory is bounded by
// 2 × transfer_elements × (item size of a + item size of b) (+ 64-byte padding).
//
// Transfer chunks are whole multiples of CompareOptions::chunk_elements and the
// per-chunk Partials are merged in the same order as the host compare(), so
// the Comparison is bit for bit the one compare<Kernel>() gives on a host copy
// of the tensors (for any CompareOptions::threads). Exception: for a
// shape-mismatched pair, the per-side summaries are summed per transfer chunk
// and may differ from the host's in the last bits.
//
// Limitation: non-contiguous device views throw Error{unsupported}; call
// .contiguous() on the device first. ACL failures throw Error{device} naming
// the call and the ACL error code. Never included by the umbrella header.
#pragma once
#include <acl/acl.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "../metrics/compare.hpp"

TD_NAMESPACE_BEGIN
namespace npu {

/// Options of the transfer (the metrics' options are CompareOptions).
struct Options {
  /// Elements per side per transfer chunk, rounded down to a multiple of
  /// CompareOptions::chunk_elements (at least one such chunk).
  std::size_t transfer_elements = std::size_t{1} << 22;
};

namespace detail {

/// Throws Error{device} naming the ACL call and its error code.
inline void check(aclError e, const char* what) {
  if (TD_LIKELY(e == ACL_SUCCESS)) return;
  throw Error(ErrorCategory::device, std::string(what) + " failed with ACL error " + std::to_string(static_cast<long long>(e)));
}

/// aclrtMallocHost memory, freed on scope exit.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { check(aclrtMallocHost(&ptr_, bytes), "aclrtMallocHost"); }
  ~PinnedBuffer() {
    if (ptr_) (void)aclrtFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  std::byte* get() const { return static_cast<std::byte*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

/// Waits for copies still in flight when a scope is left early (an exception),
/// so pinned memory is never freed while the runtime writes into it.
class DrainGuard {
 public:
  explicit DrainGuard(aclrtStream s) : stream_(s) {}
  ~DrainGuard() {
    if (in_flight) (void)aclrtSynchronizeStream(stream_);
  }
  DrainGuard(const DrainGuard&) = delete;
  DrainGuard& operator=(const DrainGuard&) = delete;
  bool in_flight = false;

 private:
  aclrtStream stream_;
};

/// Streams elements [0, n) of K contiguous device views to the host, `chunk`
/// elements at a time, and calls consume(begin, end, host) with host[k] the
/// native copy of view k's elements [begin, end).
template <std::size_t K, class F>
void stream_chunks(const std::array<const TensorView*, K>& views, std::uint64_t n, std::size_t chunk, aclrtStream s,
                   F&& consume) {
  if (n == 0) return;
  chunk = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, n));
  // Each side's slot in a pinned buffer starts 64-byte aligned (some CANN
  // versions require it of async copies; the device side is aligned when
  // chunk_elements × item size is a multiple of 64, as the default is).
  auto slot = [&](const TensorView* v) { return (chunk * v->itemsize() + 63) / 64 * 64; };
  std::size_t bytes = 0;
  for (const TensorView* v : views) bytes += slot(v);
  PinnedBuffer buf0(bytes), buf1(bytes);
  std::byte* bufs[2] = {buf0.get(), buf1.get()};
  DrainGuard guard(s);  // declared after the buffers: runs before they are freed

  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  auto issue = [&](std::uint64_t c) {
    const std::uint64_t begin = c * chunk, m = std::min<std::uint64_t>(chunk, n - begin);
    std::byte* dst = bufs[c % 2];
    for (const TensorView* v : views) {
      const std::size_t bytes = static_cast<std::size_t>(m) * v->itemsize();
      guard.in_flight = true;
      check(aclrtMemcpyAsync(dst, bytes, v->data + begin * v->itemsize(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, s),
            "aclrtMemcpyAsync");
      dst += slot(v);
    }
  };
  issue(0);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    check(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");  // chunk c has landed; nothing else in flight
    guard.in_flight = false;
    if (c + 1 < chunks) issue(c + 1);  // overlaps with the host work on chunk c below
    std::array<const std::byte*, K> host{};
    const std::byte* p = bufs[c % 2];
    for (std::size_t k = 0; k < K; ++k) {
      host[k] = p;
      p += slot(views[k]);
    }
    consume(c * chunk, std::min<std::uint64_t>(n, (c + 1) * chunk), host);
  }
}

/// A contiguous host view of `m` elements laid out like `v`.
inline TensorView host_view(const std::byte* p, const TensorView& v, std::uint64_t m) {
  return TensorView(p, v.dtype, Shape{static_cast<std::int64_t>(m)}, Strides{1}, v.byte_order);
}

inline void require_contiguous(const TensorView& v, const char* side) {
  if (!v.is_contiguous())
    throw Error(ErrorCategory::unsupported, std::string("npu::compare: ") + side +
                                                " is not contiguous; make it contiguous on the device first");
}

/// Ordered list of chunk Partials: lets chunked_reduce run chunks on threads
/// while the caller merges them one by one, in the host compare()'s order.
struct PartialList {
  std::vector<Partial> parts;
  void merge(const PartialList& o) { parts.insert(parts.end(), o.parts.begin(), o.parts.end()); }
};

template <class Kernel> Summary summarize(const TensorView& v, const Options& opt, aclrtStream s) {
  visit_real_dtype(v.dtype, [](auto) {}, "npu::compare()");
  require_contiguous(v, "tensor");
  const std::uint64_t n = v.numel();
  SideStats st;
  visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    stream_chunks<1>({&v}, n, std::max<std::size_t>(opt.transfer_elements, 1), s,
                     [&](std::uint64_t begin, std::uint64_t end, const std::array<const std::byte*, 1>& host) {
                       const TensorView hv = host_view(host[0], v, end - begin);
                       ::tensordiff::detail::for_each_run<T>(hv, 0, end - begin, [&](const T* p, std::size_t m, std::uint64_t) {
                         Kernel::summarize(p, m, st);
                       });
                     });
  });
  return make_summary(st, v.dtype, v.shape, n);
}

/// One element of a device view, as double (for the values at the argmax).
inline double element_at(const TensorView& v, std::uint64_t flat, aclrtStream s) {
  PinnedBuffer one(16);
  const std::size_t size = v.itemsize();
  check(aclrtMemcpyAsync(one.get(), size, v.data + v.offset_of(flat) * static_cast<std::int64_t>(size), size,
                         ACL_MEMCPY_DEVICE_TO_HOST, s),
        "aclrtMemcpyAsync");
  check(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
  return element_as_double(TensorView(one.get(), v.dtype, Shape{}, Strides{}, v.byte_order), 0);
}

}  // namespace detail

/// tensordiff::compare() of two device buffers on an Ascend NPU: streamed to
/// the host in double-buffered chunks on `stream` (see the file comment).
/// `actual` is the NPU side, `expected` the bench (reference) side.
template <class Kernel = kernels::Default>
Comparison compare(const TensorView& actual, const TensorView& expected, const CompareOptions& o = {},
                   aclrtStream stream = nullptr, const Options& opt = {}) {
  const ::tensordiff::detail::SqueezedView squeezed_a(actual, o.squeeze), squeezed_b(expected, o.squeeze);
  const TensorView &a = *squeezed_a, &b = *squeezed_b;
  Comparison c;
  if (!::tensordiff::detail::start_comparison(c, a, b, o)) {
    if (c.validation == Validation::shape_unmatched) {
      c.actual = detail::summarize<Kernel>(a, opt, stream);
      c.expected = detail::summarize<Kernel>(b, opt, stream);
      c.actual.shape = actual.shape;  // the callers' shapes, not the squeezed ones
      c.expected.shape = expected.shape;
    }
    return c;
  }
  visit_real_dtypes(a.dtype, b.dtype, [](auto, auto) {}, "npu::compare()");  // complex: the host's error
  detail::require_contiguous(a, "tensor a");
  detail::require_contiguous(b, "tensor b");
  const KernelParams k = ::tensordiff::detail::kernel_params(c, o);
  const std::size_t ce = std::max<std::size_t>(o.chunk_elements, 1);
  const std::size_t transfer = std::max<std::size_t>(opt.transfer_elements / ce, 1) * ce;

  Partial total;
  ::tensordiff::detail::MaximaFloor found;  // as the host compare(): chunks skip rescans that cannot win
  detail::stream_chunks<2>({&a, &b}, c.numel, transfer, stream,
                           [&](std::uint64_t begin, std::uint64_t end, const std::array<const std::byte*, 2>& host) {
                             const std::uint64_t m = end - begin;
                             const TensorView ha = detail::host_view(host[0], a, m), hb = detail::host_view(host[1], b, m);
                             const auto list = ::tensordiff::detail::chunked_reduce<detail::PartialList>(
                                 m, ce, o.threads, [&](std::uint64_t lo, std::uint64_t hi) {
                                   return detail::PartialList{
                                       {::tensordiff::detail::accumulate_chunk<Kernel>(found, ha, hb, lo, hi, k, begin)}};
                                 });
                             for (const Partial& p : list.parts) total.merge(p);
                           });
  ::tensordiff::detail::finish_comparison(c, a, b, actual.shape, expected.shape, total,
                                          [&](const TensorView& v, std::uint64_t i) { return detail::element_at(v, i, stream); });
  return c;
}

}  // namespace npu
TD_NAMESPACE_END
