// Compiled with -Werror -pedantic (C++17 and C++20): the umbrella header is
// self-contained, warning-free, idempotent, and its non-template functions are
// inline (this TU and umbrella_check_other.cpp both include it and link).
#include <tensordiff/tensordiff.hpp>
#include <tensordiff/tensordiff.hpp>  // twice: #pragma once

#include <cstdio>

std::string umbrella_other_hash();

int main() {
  const std::uint16_t x[3] = {1, 2, 3};
  const auto v = tensordiff::TensorView::of(x, {3});
  const bool ok = tensordiff::crc32_hex("123456789", 9) == "cbf43926" &&
                  tensordiff::md5_hex("abc", 3) == "900150983cd24fb0d6963f7d28e17f72" &&
                  umbrella_other_hash() == tensordiff::md5_hex(v) && tensordiff::compare(v, v).cosine.value == 1.0;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
