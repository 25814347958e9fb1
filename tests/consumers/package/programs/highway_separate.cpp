// tensordiff_separate_kernels(): this TU only calls the default kernel's passes
// (TD_SEPARATE_KERNELS, extern template); the TU the helper generates compiles
// them. compare(), summarize() and a standard's check() of a mixed pair, checked against
// sums in double and torch's rule.
#include <tensordiff/tensordiff.hpp>

#include <cmath>
#include <cstdio>

#if !TD_SEPARATE_KERNELS
#error "tensordiff_separate_kernels() should define TD_SEPARATE_KERNELS"
#endif

int main() {
  namespace td = tensordiff;
  const float a[6] = {1, 2, 3, 4, -0.5f, 8};
  const td::bfloat16 b[6] = {td::bfloat16(1.0f), td::bfloat16(2.5f), td::bfloat16(3.0f), td::bfloat16(4.0f),
                             td::bfloat16(-0.5f), td::bfloat16(7.0f)};
  const td::Comparison c = td::compare(a, b, 6);
  double dot = 0, na = 0, nb = 0, max_abs = 0;
  for (int i = 0; i < 6; ++i) {
    const double x = a[i], y = static_cast<float>(b[i]);
    dot += x * y, na += x * x, nb += y * y, max_abs = std::fmax(max_abs, std::fabs(x - y));
  }
  const double cosine = dot / std::sqrt(na * nb);
  const td::Summary s = td::summarize(td::TensorView::of(a, {6}));
  // kernels::Highway named explicitly (as the kernel tests do) calls the library's pass too.
  td::Partial p;
  td::kernels::Highway::accumulate(a, b, 6, 0, td::KernelParams{}, p);
  // torch's rule for float32 vs bfloat16 (rtol 1.6e-2, atol 1e-5): |2 - 2.5| and |8 - 7| fail.
  const td::Verdict v = td::standards::Torch{}.check(td::TensorView::of(a, {6}), td::TensorView::of(b, {6}));
  std::printf("separate kernels (%s): cosine %.12f max abs %g at %llu, sum %g, torch: %llu mismatched\n",
              td::kernels::highway_target().c_str(), c.cosine.value, c.max_abs_err.value,
              static_cast<unsigned long long>(c.max_abs_index), s.sum, static_cast<unsigned long long>(v.mismatched));
  const bool ok = std::fabs(c.cosine.value - cosine) < 1e-12 && c.max_abs_err.value == max_abs &&
                  c.max_abs_index == 5 && s.sum == 17.5 && v.mismatched == 2 &&
                  p.max_abs_diff == max_abs && p.max_abs_index == 5;
  return ok ? 0 : 1;
}
