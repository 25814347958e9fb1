// libFuzzer target: msprobe's dump.json / stack.json / construct.json parsers.
// Input: one byte selecting the parser, then the JSON text.
#include <tensordiff/io/dump_json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tio = tensordiff::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: (void)tio::parse_dump_json(text, "dump.json"); break;
      case 1: (void)tio::parse_stack_json(text, "stack.json"); break;
      default: (void)tio::parse_construct_json(text, "construct.json"); break;
    }
  } catch (const tensordiff::Error&) {
  }
  return 0;
}
