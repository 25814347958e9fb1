// tensordiff::xsimd: the Xsimd kernel compiles and links (no other setup needed).
#include <tensordiff/kernels/xsimd.hpp>

#include <cstdio>

int main() {
  const double x[5] = {1, 2, 3, 4, -0.5};
  tensordiff::SideStats s;
  tensordiff::kernels::Xsimd::summarize(x, 5, s);
  std::printf("xsimd sum %g max %g\n", s.sum, s.finite_max);
  return s.sum == 9.5 && s.finite_max == 4 ? 0 : 1;
}
