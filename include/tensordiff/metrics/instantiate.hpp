// tensordiff — the one TU that compiles the default kernel's passes and the
// standards' element-wise passes.
//
// Every TU that calls compare() or summarize() on views compiles the fused
// pass for every dtype pair and, with Highway's run-time dispatch, for every
// target: about 70 s and 1.4 GB of g++ per TU; a standard's check() (and so
// every GoogleTest matcher) adds a loop per dtype pair for each standard. A
// project with many such TUs (unit tests, a debugger plug-in) can compile
// them once instead:
//
//   - define TD_SEPARATE_KERNELS=1 in every TU of the program, and
//   - include this header in exactly one .cpp file
// (CMake: tensordiff_separate_kernels(<target>) does both).
//
// The other TUs then only call the passes (extern template): a TU with
// compare() compiles in about 6 s. Results are the same bits: the same code,
// compiled once. Kernels named explicitly (compare<kernels::Scalar>) are
// still compiled where they are used.
#pragma once
#include "compare.hpp"
#include "standards.hpp"
#include "summary.hpp"

TD_NAMESPACE_BEGIN
/// \cond detail
template Partial detail::accumulate_range<kernels::Default>(const TensorView&, const TensorView&, std::uint64_t,
                                                            std::uint64_t, const KernelParams&, std::uint64_t, Partial);
template Summary summarize<kernels::Default>(const TensorView&);
template Verdict detail::run_standard(const standards::Torch&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
template Verdict detail::run_standard(const standards::Numpy&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
template Verdict detail::run_standard(const standards::Ulp&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
template Verdict detail::run_standard(const standards::Bitwise&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
template Verdict detail::run_standard(const standards::Polygraphy&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
template Verdict detail::run_standard(const standards::MsprobePrecheck&, const TensorView&, const TensorView&,
                                       const CheckOptions&);
/// \endcond
TD_NAMESPACE_END
