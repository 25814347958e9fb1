// The consumer program: what a user writes first.
#include <tensordiff/tensordiff.hpp>

#include <cstdio>

int main() {
  const float npu[4] = {1, 2, 3, 4};
  const float bench[4] = {1, 2, 3, 4.5f};
  const auto c = tensordiff::compare(tensordiff::TensorView::of(npu, {4}), tensordiff::TensorView::of(bench, {4}));
  std::printf("cosine %.6f\n", c.cosine.value);
  return c.cosine.has_value() ? 0 : 1;
}
