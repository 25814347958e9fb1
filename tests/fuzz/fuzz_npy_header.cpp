// libFuzzer target: the npy header parser and loader on arbitrary bytes.
// Whatever loads must lie inside the input; copying it touches every byte
// the view claims, so ASan catches any out-of-bounds view.
#include <tensordiff/io/npy.hpp>

#include <cstddef>
#include <cstdint>

namespace tio = tensordiff::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tio::MappedFile::from_bytes("fuzz.npy", data, size);
  for (int hint = 0; hint < 3; ++hint) {
    tio::LoadOptions o;
    o.bf16 = static_cast<tio::Bf16Hint>(hint);
    o.limits.max_header_bytes = 1 << 16;
    try {
      const tio::LoadedTensor t = tio::load_npy_bytes(file, file->bytes(), file->path(), o);
      const auto& v = t.tensor.view();
      if (v.data >= file->data() && v.data <= file->data() + file->size())
        v.check_within(file->size() - static_cast<std::uint64_t>(v.data - file->data()));
      const tensordiff::Tensor c = tensordiff::Tensor::copy_of(v);
      volatile std::uint8_t sink = 0;
      for (std::uint64_t i = 0; i < c.nbytes(); ++i) sink ^= std::to_integer<std::uint8_t>(c.view().data[i]);
      // The writer must accept anything the reader produced.
      (void)tio::npy_bytes(v);
    } catch (const tensordiff::Error&) {
    }
  }
  return 0;
}
