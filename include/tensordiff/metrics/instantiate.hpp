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
//   - include this header in exactly one .cpp file, before any other
//     tensordiff header (a file of its own is simplest)
// (CMake: tensordiff_separate_kernels(<target>) does both).
//
// The other TUs then only call the passes (extern template): a TU with
// compare() compiles in about 6 s. Results are the same bits: the same code,
// compiled once. kernels::Highway named explicitly uses the same passes
// (kernels/highway.hpp); other kernels named explicitly
// (compare<kernels::Scalar>) are still compiled where they are used.
#pragma once
#ifdef TD_NAMESPACE_BEGIN
#error "include tensordiff/metrics/instantiate.hpp in a .cpp file of its own, before any other tensordiff header"
#endif
/// Makes every TD_SEPARATE_PASS(...) the headers below write an explicit instantiation in this
/// TU (core/config.hpp).
#define TD_INSTANTIATE_SEPARATE_PASSES 1
#include "compare.hpp"
#include "standards.hpp"
#include "summary.hpp"
