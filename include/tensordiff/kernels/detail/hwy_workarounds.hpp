// tensordiff — works around Highway 1.0.3 (Debian bookworm) before any hwy header.
//
// detect_targets.h adds AVX3_DL to the attainable targets when "HWY_BASELINE
// & HWY_AVX3_DL", but HWY_BASELINE is not a macro (HWY_BASELINE_TARGETS is), so
// the test is always false. Compiled for a CPU with every AVX3_DL feature
// (-march=native on Ice Lake or Zen 4) the static target is then AVX3_DL but
// not attainable, and every hwy include stops with "Logic error: best baseline
// should be included in dynamic targets". Opting in to AVX3_DL exactly when the
// flags make it the baseline is what that line meant to do.
#pragma once
#if !defined(HWY_WANT_AVX3_DL) && defined(__AVX512VNNI__) && defined(__VPCLMULQDQ__) && \
    defined(__AVX512VBMI2__) && defined(__AVX512BITALG__) && defined(__AVX512VPOPCNTDQ__) && \
    defined(__GFNI__) && defined(__VAES__)
#define HWY_WANT_AVX3_DL
#endif
