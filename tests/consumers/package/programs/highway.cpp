// tensordiff::highway: the Highway kernel, and the default kernel is Highway.
#include <tensordiff/kernels/default.hpp>

#include <cstdio>
#include <type_traits>

int main() {
  const float x[5] = {1, 2, 3, 4, -0.5f};
  tensordiff::SideStats s;
  tensordiff::kernels::Highway::summarize(x, 5, s);
  std::printf("highway target %s, sum %g\n", tensordiff::kernels::highway_target().c_str(), s.sum);
  return std::is_same_v<tensordiff::kernels::Default, tensordiff::kernels::Highway> && s.sum == 9.5 ? 0 : 1;
}
