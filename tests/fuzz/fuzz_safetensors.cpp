// libFuzzer target: the safetensors plug-in (JSON header validation).
#include <tensordiff/io/safetensors.hpp>

#include <cstddef>
#include <cstdint>

namespace tio = tensordiff::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tio::MappedFile::from_bytes("fuzz.safetensors", data, size);
  try {
    for (const auto& t : tio::SafetensorsFormat().load(file, {})) (void)tensordiff::Tensor::copy_of(t.tensor.view());
  } catch (const tensordiff::Error&) {
  }
  return 0;
}
