// tensordiff::tensordiff alone: the version from the package equals the header's.
#include <tensordiff/core/tensor_view.hpp>
#include <tensordiff/version.hpp>

#include <cstdio>
#include <cstring>

int main() {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const auto v = tensordiff::TensorView::of(x, {2, 3});
  std::printf("tensordiff %s (%s)\n", tensordiff::version_string, tensordiff::abi_tag());
  return std::strcmp(tensordiff::version_string, TD_EXPECTED_VERSION) == 0 && v.numel() == 6 ? 0 : 1;
}
