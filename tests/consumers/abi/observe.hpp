// What one translation unit of abi_mixed_settings sees of tensordiff. Internal
// linkage (anonymous namespace): each TU keeps its own copy of this helper,
// so only tensordiff's own inline functions are shared between the two.
#pragma once
#include <tensordiff/io/npz.hpp>
#include <tensordiff/kernels/highway.hpp>
#include <tensordiff/version.hpp>

#include <string>

#include "observed.hpp"

namespace {
Observed observe(const std::string& deflated_npz) {
  Observed o;
  o.abi = tensordiff::abi_tag();
  o.targets = tensordiff::kernels::highway_targets();
  try {
    o.npz = std::to_string(tensordiff::io::read_npz(deflated_npz).size()) + " tensors";
  } catch (const tensordiff::Error& e) {
    o.npz = e.what();
  }
  return o;
}
}  // namespace
