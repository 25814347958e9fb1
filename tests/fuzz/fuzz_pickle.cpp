// libFuzzer target: the allow-list pickle machine on raw bytes (every opcode,
// memo, marks, caps, torch rebuild records), then the (path, tensor) walk.
#include <tensordiff/io/detail/pickle.hpp>
#include <tensordiff/io/pt.hpp>

#include <cstddef>
#include <cstdint>

namespace pk = tensordiff::detail::pickle;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pk::Limits lim;  // small caps keep each run fast; the logic is the same
  lim.max_memo = 1u << 12;
  lim.max_stack = 1u << 14;
  lim.max_values = 1u << 16;
  lim.max_items = 1u << 16;
  lim.max_depth = 200;
  try {
    pk::Machine m(reinterpret_cast<const std::byte*>(data), size, "fuzz.pkl", "data.pkl", 0, lim);
    const pk::Result r = m.run();
    tensordiff::io::detail::PtWalker walker("fuzz.pkl", 1u << 16);
    for (const auto& [path, rec] : walker.walk(*r.value)) {
      volatile std::uint64_t sink = rec->storage_ref().nbytes + rec->shape.size() + path.size();
      (void)sink;
    }
  } catch (const tensordiff::Error&) {
  }
  return 0;
}
