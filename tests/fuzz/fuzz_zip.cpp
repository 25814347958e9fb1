// libFuzzer target: the zip central-directory reader (EOCD search, ZIP64,
// extra fields, local headers), member reads with CRC checks and inflate
// (with zlib), and the npz loader on top.
#include <tensordiff/io/detail/zip.hpp>
#include <tensordiff/io/npz.hpp>

#include <cstddef>
#include <cstdint>

namespace tio = tensordiff::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tio::MappedFile::from_bytes("fuzz.zip", data, size);
  tio::Limits lim;
  lim.max_members = 4096;
  try {
    const auto zip = tio::detail::ZipArchive::open(file, lim);
    for (const auto& e : zip.entries()) {
      if (e.size > (64u << 20)) continue;  // keep inflate allocations small for the fuzzer
      try {
        const auto m = zip.read(e, true);
        volatile std::uint8_t sink = 0;
        for (std::uint64_t i = 0; i < m.bytes.size; ++i) sink ^= std::to_integer<std::uint8_t>(m.bytes.data[i]);
      } catch (const tensordiff::Error&) {
      }
      (void)zip.find(e.name);
    }
  } catch (const tensordiff::Error&) {
  }
  try {
    tio::LoadOptions o;
    o.limits = lim;
    for (const auto& t : tio::load_npz(file, o)) (void)tensordiff::Tensor::copy_of(t.tensor.view());
  } catch (const tensordiff::Error&) {
  }
  return 0;
}
