// main() of the kernel components' programs: TD_CONSUMER_KERNEL (defined by
// the includer) summarises five values, checked against their sum and maximum.
#include <cstdio>

int main() {
  const double x[5] = {1, 2, 3, 4, -0.5};
  tensordiff::SideStats s;
  TD_CONSUMER_KERNEL::summarize(x, 5, s);
  std::printf("%s: sum %g max %g\n", TD_CONSUMER_KERNEL::name, s.sum, s.finite_max);
  return s.sum == 9.5 && s.finite_max == 4 ? 0 : 1;
}
