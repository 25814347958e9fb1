// io/safetensors.hpp: a format added through the public plug-in interface.
// Files are built here byte by byte from known values.
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/safetensors.hpp>

#include "io_test_util.hpp"

namespace {
using namespace tensordiff;
using namespace iotest;
namespace tio = tensordiff::io;

std::string st_file(const std::string& json, const std::string& data, std::size_t pad_to = 8) {
  std::string h = json;
  while ((8 + h.size()) % pad_to) h += ' ';
  std::string out;
  put64(out, h.size());
  return out + h + data;
}

TEST(Safetensors, LoadsEveryDtypeInBufferOrder) {
  // b (BF16 x2) is listed first in JSON but lies after a in the buffer.
  const std::vector<float> a{1.5f, -2.0f, 3.25f, 4.0f};
  const std::vector<std::uint16_t> b{0x3F80, 0xC020};
  const std::vector<std::int64_t> c{-7};
  const std::string data = raw_bytes(a) + raw_bytes(b) + raw_bytes(c) + std::string("\x01\x00\x01", 3);
  const std::string json =
      R"({"b":{"dtype":"BF16","shape":[2],"data_offsets":[16,20]},)"
      R"("a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("__metadata__":{"format":"pt"},)"
      R"("c":{"dtype":"I64","shape":[],"data_offsets":[20,28]},)"
      R"("d":{"dtype":"BOOL","shape":[3],"data_offsets":[28,31]}})";
  tio::Registry reg;
  tio::register_safetensors(reg);
  TempFile tmp("x.safetensors", st_file(json, data));
  const auto ts = reg.load(tmp.path);
  ASSERT_EQ(ts.size(), 4u);
  EXPECT_EQ(ts[0].path, "a");
  EXPECT_EQ(ts[1].path, "b");
  EXPECT_EQ(ts[2].path, "c");
  EXPECT_EQ(ts[3].path, "d");
  EXPECT_EQ(ts[0].tensor.shape(), (Shape{2, 2}));
  EXPECT_EQ(element(ts[0].tensor.view(), 1), -2.0L);
  EXPECT_EQ(ts[1].tensor.dtype(), DType::bfloat16);
  EXPECT_EQ(element(ts[1].tensor.view(), 1), -2.5L);
  EXPECT_EQ(ts[2].tensor.shape(), Shape{});
  EXPECT_EQ(element(ts[2].tensor.view(), 0), -7.0L);
  EXPECT_EQ(ts[3].tensor.dtype(), DType::boolean);
  EXPECT_EQ(ts[0].meta.source_dtype, "F32");
  EXPECT_EQ(ts[0].meta.extra.at("format"), "pt");
  // Recognised by content too (no extension).
  TempFile noext("noext_bin", st_file(json, data));
  EXPECT_EQ(reg.load(noext.path).size(), 4u);
}

TEST(Safetensors, EveryIntegerAndFloatCode) {
  struct Case {
    const char* code;
    DType t;
  } cases[] = {{"I8", DType::int8},   {"U8", DType::uint8},   {"I16", DType::int16},   {"U16", DType::uint16},
               {"I32", DType::int32}, {"U32", DType::uint32}, {"I64", DType::int64},   {"U64", DType::uint64},
               {"F16", DType::float16}, {"F64", DType::float64}, {"C64", DType::complex64}};
  tio::SafetensorsFormat fmt;
  for (const auto& c : cases) {
    const std::size_t n = dtype_size(c.t);
    const std::string json = std::string(R"({"t":{"dtype":")") + c.code + R"(","shape":[1],"data_offsets":[0,)" +
                             std::to_string(n) + "]}}";
    const auto ts = fmt.load(mem(st_file(json, std::string(n, '\x01'))), {});
    ASSERT_EQ(ts.size(), 1u);
    EXPECT_EQ(ts[0].tensor.dtype(), c.t) << c.code;
  }
}

TEST(SafetensorsHostile, Rejects) {
  tio::SafetensorsFormat fmt;
  auto bad = [&](const std::string& bytes, std::initializer_list<std::string> needles) {
    expect_error([&] { fmt.load(mem(bytes, "h.safetensors"), {}); }, needles);
  };
  bad("1234", {"h.safetensors", "too short"});
  std::string huge;
  put64(huge, 1ull << 40);
  bad(huge + "{}", {"exceeds the limit"});
  std::string beyond;
  put64(beyond, 100);
  bad(beyond + "{}", {"runs past the end"});
  bad(st_file("{\"a\":", ""), {"invalid JSON"});
  bad(st_file("{\"a\": 1e999}", ""), {"h.safetensors", "invalid JSON", "number overflow"});
  bad(st_file("[1,2]", ""), {"not an object"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1]}})", "xxxx"), {"tensor 'a'", "data_offsets"});
  bad(st_file(R"({"a":{"dtype":"F8_E8M0","shape":[1],"data_offsets":[0,1]}})", "x"), {"'F8_E8M0'"});  // F8_E4M3/F8_E5M2 are read
  bad(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxxxxxx"), {"tensor 'a'", "needs 2 x 4"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", "xxxx"), {"outside"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", "xxxxxxxx"), {"outside"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "xxxx"), {"non-negative"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", "xxxx"), {"overflows"});
  bad(st_file(R"({"__metadata__":{"k":1}})", ""), {"strings"});
  // Issue #14: the tensors must tile the buffer exactly, and names be unique (as the safetensors crate).
  bad(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
              std::string(12, 'x')),
      {"tensor 'b'", "overlap"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
              std::string(12, 'x')),
      {"tensor 'b'", "gap in the data buffer: bytes [4, 8)"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(8, 'x')), {"4 bytes after the last tensor"});
  bad(st_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              std::string(8, 'x')),
      {"tensor 'a'", "duplicate tensor name"});
}

TEST(Safetensors, UnalignedDataIsCopied) {
  const std::vector<double> v{0.25, -8.0};
  const std::string bytes = st_file(R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", raw_bytes(v), 1);
  tio::SafetensorsFormat fmt;
  const auto ts = fmt.load(mem(bytes), {});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ts[0].tensor.view().data) % 8, 0u);
  EXPECT_EQ(element(ts[0].tensor.view(), 1), -8.0L);
}

}  // namespace
