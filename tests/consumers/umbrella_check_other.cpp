// Second TU of umbrella_check: a duplicate-symbol link error means a
// non-inline definition in a header.
#include <tensordiff/tensordiff.hpp>

std::string umbrella_other_hash() {
  const std::uint16_t x[3] = {1, 2, 3};
  return tensordiff::md5_hex(tensordiff::TensorView::of(x, {3}));
}
