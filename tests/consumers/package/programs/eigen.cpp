// tensordiff::eigen: the Eigen kernel compiles and links (no other setup needed).
#include <tensordiff/kernels/eigen.hpp>

#include <cstdio>

int main() {
  const double x[5] = {1, 2, 3, 4, -0.5};
  tensordiff::SideStats s;
  tensordiff::kernels::Eigen::summarize(x, 5, s);
  std::printf("eigen sum %g max %g\n", s.sum, s.finite_max);
  return s.sum == 9.5 && s.finite_max == 4 ? 0 : 1;
}
