// libFuzzer target: whole torch.save files (zip and legacy) through load_pt,
// then a copy of every tensor through its strides (touches every viewed byte).
#include <tensordiff/io/pt.hpp>

#include <cstddef>
#include <cstdint>

namespace tio = tensordiff::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tio::MappedFile::from_bytes("fuzz.pt", data, size);
  tio::LoadOptions o;
  o.limits.max_members = 4096;
  o.limits.max_pickle_items = 1u << 14;
  o.limits.max_pickle_depth = 200;
  try {
    for (const auto& t : tio::load_pt(file, o)) {
      if (t.tensor.numel() > (1u << 20)) continue;  // stride-0 views can be huge without bytes behind them
      (void)tensordiff::Tensor::copy_of(t.tensor.view());
    }
  } catch (const tensordiff::Error&) {
  }
  return 0;
}
