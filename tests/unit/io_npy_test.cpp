// io/npy.hpp: the golden files written by numpy (sidecars say what they
// hold), hand-built hostile headers, zero-copy guarantees, and writing.
#include <tensordiff/io/npy.hpp>
#include <tensordiff/io/registry.hpp>

#include <fstream>
#include <sstream>

#include "io_test_util.hpp"

namespace {
using namespace tensordiff;
using namespace iotest;
namespace tio = tensordiff::io;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

tio::LoadedTensor load_bytes(const std::string& bytes, const tio::LoadOptions& o = {}, const std::string& name = "mem.npy") {
  auto f = tio::MappedFile::from_bytes(name, bytes.data(), bytes.size());
  return tio::load_npy_bytes(f, f->bytes(), f->path(), o);
}

// ----------------------------------------------------------------- goldens

TEST(NpyGolden, EverySidecar) {
  const auto cars = sidecars("npy", ".npy");
  ASSERT_GE(cars.size(), 40u) << "golden npy files missing under " << data_dir();
  int ok = 0, errors = 0;
  for (const auto& car : cars) {
    const auto j = read_json(car);
    const std::string file = car.substr(0, car.size() - 5);
    SCOPED_TRACE(file);
    tio::LoadOptions opt;
    // The sidecar of the ml_dtypes-style file describes the bf16 reading.
    if (j.at("tensors").size() == 1 && j["tensors"][0].value("dtype", "") == "bfloat16") opt.bf16 = tio::Bf16Hint::bfloat16;
    if (j.at("expect_error").get<bool>()) {
      ++errors;
      try {
        tio::read_npy(file, opt);
        ADD_FAILURE() << "loaded a file that must fail: " << j.value("error_reason", "");
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(file), std::string::npos) << msg;        // names the file
        EXPECT_TRUE(e.context().offset.has_value()) << msg;         // and a byte offset
        EXPECT_FALSE(e.context().field.empty()) << msg;             // and a field
      }
      continue;
    }
    ++ok;
    for (tio::MapPolicy policy : {tio::MapPolicy::never, tio::MapPolicy::always}) {
      opt.map = policy;
      const tio::LoadedTensor t = tio::read_npy(file, opt);
      EXPECT_EQ(t.path, "");
      expect_matches_sidecar(t.tensor.view(), j["tensors"][0], file);
      if (j.contains("data_offset")) { EXPECT_EQ(t.meta.storage_offset, j["data_offset"].get<std::uint64_t>()); }
      if (j.contains("fortran_order") && j["fortran_order"].get<bool>()) { EXPECT_EQ(t.meta.extra.count("fortran_order"), 1u); }
    }
  }
  EXPECT_GE(ok, 30);
  EXPECT_GE(errors, 10);
}

TEST(NpyGolden, SpecificRejectReasons) {
  const std::string d = data_dir() + "/npy/";
  expect_error([&] { tio::read_npy(d + "bad_magic.npy"); }, {"bad_magic.npy", "magic", "at byte 0"});
  expect_error([&] { tio::read_npy(d + "bad_version_4_0.npy"); }, {"version", "4.0"});
  expect_error([&] { tio::read_npy(d + "object_dtype.npy"); }, {"descr", "|O"});
  expect_error([&] { tio::read_npy(d + "malicious_object_pickle.npy"); }, {"descr", "|O"});
  expect_error([&] { tio::read_npy(d + "structured_dtype.npy"); }, {"structured"});
  expect_error([&] { tio::read_npy(d + "subarray_dtype.npy"); }, {"subarray"});
  expect_error([&] { tio::read_npy(d + "unicode_U3.npy"); }, {"<U3"});
  expect_error([&] { tio::read_npy(d + "datetime_M8.npy"); }, {"<M8[D]"});
  expect_error([&] { tio::read_npy(d + "longdouble_f16.npy"); }, {"<f16", "long double"});
  expect_error([&] { tio::read_npy(d + "truncated_data.npy"); }, {"truncated", "needs 400 bytes"});
  expect_error([&] { tio::read_npy(d + "truncated_header.npy"); }, {"HEADER_LEN", "runs past"});
  expect_error([&] { tio::read_npy(d + "shape_overflow.npy"); }, {"shape", "overflows"});
  expect_error([&] { tio::read_npy(d + "header_missing_shape.npy"); }, {"no 'shape'"});
  try {
    tio::read_npy(d + "malicious_object_pickle.npy");
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::security);
  }
}

// The writer reproduces numpy's bytes exactly for C-order little-endian files
// written by numpy >= 1.14 (same dict text, 64-byte padding).
TEST(NpyGolden, WriterReproducesNumpyBytes) {
  int compared = 0;
  for (const auto& car : sidecars("npy", ".npy")) {
    const auto j = read_json(car);
    if (j["expect_error"].get<bool>() || j.value("synthetic", true)) continue;
    const std::string header = j.value("header", "");
    if (header.find("'<") == std::string::npos && header.find("'|") == std::string::npos) continue;
    if (header.find("True") != std::string::npos) continue;  // Fortran: we write C order
    if (header.find("'<V2'") != std::string::npos) continue;
    if (j.value("npy_version", std::vector<int>{1, 0}) != std::vector<int>{1, 0}) continue;  // we write v1
    const std::string file = car.substr(0, car.size() - 5);
    SCOPED_TRACE(file);
    const auto t = tio::read_npy(file);
    EXPECT_EQ(tio::npy_bytes(t.tensor.view()), slurp(file));
    ++compared;
  }
  EXPECT_GE(compared, 15);
}

// -------------------------------------------------------- views, no copies

TEST(Npy, ZeroCopyBigEndianFortranAndAligned) {
  const std::string d = data_dir() + "/npy/";
  tio::LoadOptions o;
  o.map = tio::MapPolicy::always;
  for (const char* name : {"float32_2x3x4.npy", "float32_be.npy", "float32_fortran_be_2x3.npy", "int16_fortran_2x3x4.npy"}) {
    SCOPED_TRACE(name);
    auto f = tio::MappedFile::open(d + name, tio::MapPolicy::always);
    const auto t = tio::load_npy_bytes(f, f->bytes(), f->path(), o);
    const std::byte* p = t.tensor.view().data;
    EXPECT_TRUE(p >= f->data() && p < f->data() + f->size()) << "view must point into the file";
    EXPECT_EQ(static_cast<std::uint64_t>(p - f->data()), t.meta.storage_offset);
  }
  EXPECT_EQ(tio::read_npy(d + "float32_be.npy").tensor.view().byte_order, ByteOrder::big);
  // Big-endian and Fortran at once, built here: element (i, j) = 10 i + j.
  std::string payload;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i) payload += std::string("\0\0\0", 3) + static_cast<char>(10 * i + j);
  const auto be = load_bytes(npy_file(1, "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }", payload));
  EXPECT_EQ(be.tensor.view().byte_order, ByteOrder::big);
  EXPECT_EQ(be.tensor.view().strides, (Strides{1, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(element(be.tensor.view(), 3 * i + j), 10.0L * i + j);
  const Tensor c = Tensor::copy_of(be.tensor.view());
  EXPECT_EQ(c.data<std::int32_t>()[4], 11);
  const auto f3 = tio::read_npy(d + "int16_fortran_2x3x4.npy");
  EXPECT_EQ(f3.tensor.view().strides, (Strides{1, 2, 6}));
}

TEST(Npy, TensorKeepsMappingAlive) {
  std::vector<float> vals{1.5f, -2.25f, 3.0f};
  TempFile tmp("alive.npy", npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", raw_bytes(vals)));
  Tensor t;
  {
    tio::LoadOptions o;
    o.map = tio::MapPolicy::always;
    t = tio::read_npy(tmp.path, o).tensor;
  }
  std::filesystem::remove(tmp.path);
  ASSERT_EQ(t.numel(), 3u);
  EXPECT_EQ(t.data<float>()[1], -2.25f);
}

TEST(Npy, UnalignedDataIsCopiedAligned) {
  // No padding: HEADER_LEN chosen so the data starts at an odd offset.
  std::vector<double> vals{1.0, -2.0};
  std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}";
  const std::string bytes = npy_file(1, h, raw_bytes(vals), /*pad=*/false);
  ASSERT_NE((10 + h.size()) % 8, 0u);
  const auto t = load_bytes(bytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.tensor.view().data) % 8, 0u);
  EXPECT_EQ(element(t.tensor.view(), 1), -2.0L);
}

// ------------------------------------------------------- header grammar

TEST(NpyHeader, AcceptedSpellings) {
  const std::vector<std::int32_t> v{7, -8, 9, 10, 11, 12};
  const std::string p = raw_bytes(v);
  struct Case {
    const char* header;
    Shape shape;
  } cases[] = {
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", {2, 3}},
      {"{'shape':(2,3),'fortran_order':False,'descr':'<i4'}", {2, 3}},
      {"{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (6,)}", {6}},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", {2, 3}},
      {"  {'descr': '<i4',\n 'fortran_order': False, # comment\n 'shape': ( 6 , ) }  \n", {6}},
      {"{'descr': 'i4', 'fortran_order': False, 'shape': (6,), }", {6}},
      {"{'descr': '=i4', 'fortran_order': False, 'shape': (1, 6, 1), }", {1, 6, 1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.header);
    for (int major : {1, 2, 3}) {
      const auto t = load_bytes(npy_file(major, c.header, p));
      EXPECT_EQ(t.tensor.shape(), c.shape);
      EXPECT_EQ(element(t.tensor.view(), 1), -8.0L);
      EXPECT_EQ(t.meta.extra.at("npy_version"), std::to_string(major) + ".0");
    }
  }
}

TEST(NpyHeader, ZeroDimensionalAndEmpty) {
  const auto s = load_bytes(npy_file(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (), }", raw_bytes(std::vector<double>{4.5})));
  EXPECT_TRUE(s.tensor.shape().empty());
  EXPECT_EQ(element(s.tensor.view(), 0), 4.5L);
  const auto e = load_bytes(npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 0), }", ""));
  EXPECT_EQ(e.tensor.numel(), 0u);
  EXPECT_EQ(e.tensor.shape(), (Shape{4, 0}));
  const auto ef = load_bytes(npy_file(1, "{'descr': '>c16', 'fortran_order': True, 'shape': (0, 5), }", ""));
  EXPECT_EQ(ef.tensor.numel(), 0u);
  // Empty, with extents whose strides would overflow (a fuzzer find): loads
  // and copies as nothing instead of multiplying the strides.
  const auto absurd = load_bytes(npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296), }", ""));
  EXPECT_EQ(absurd.tensor.numel(), 0u);
  EXPECT_EQ(Tensor::copy_of(absurd.tensor.view()).nbytes(), 0u);
}

TEST(NpyHeader, BigEndianEveryDtype) {
  // Byte-swapped payloads built here: the value of element k is k+1 (and
  // -(k+1) for signed types), encoded big-endian by hand.
  struct Case {
    const char* descr;
    DType dtype;
    std::size_t size;
    bool is_float;
  } cases[] = {{">i2", DType::int16, 2, false}, {">u2", DType::uint16, 2, false}, {">i4", DType::int32, 4, false},
               {">u4", DType::uint32, 4, false}, {">i8", DType::int64, 8, false}, {">u8", DType::uint64, 8, false},
               {">f4", DType::float32, 4, true},  {">f8", DType::float64, 8, true}, {">f2", DType::float16, 2, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.descr);
    std::string payload;
    for (int k = 0; k < 4; ++k) {
      std::uint64_t bits;
      if (c.dtype == DType::float32) {
        float f = static_cast<float>(k + 1);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
      } else if (c.dtype == DType::float64) {
        double f = k + 1;
        std::memcpy(&bits, &f, 8);
      } else if (c.dtype == DType::float16) {
        const std::uint16_t h[] = {0x3C00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
        bits = h[k];
      } else {
        bits = static_cast<std::uint64_t>(k + 1);
      }
      for (std::size_t b = c.size; b-- > 0;) payload += static_cast<char>((bits >> (8 * b)) & 0xFF);
    }
    const auto t = load_bytes(npy_file(1, std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (4,), }", payload));
    EXPECT_EQ(t.tensor.dtype(), c.dtype);
    EXPECT_EQ(t.tensor.view().byte_order, ByteOrder::big);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(element(t.tensor.view(), k), static_cast<long double>(k + 1));
    // A copy through the core converts to native order.
    const Tensor native = Tensor::copy_of(t.tensor.view());
    for (int k = 0; k < 4; ++k) EXPECT_EQ(element(native.view(), k), static_cast<long double>(k + 1));
  }
}

TEST(NpyHeader, BigEndianComplexIsConvertedPerHalf) {
  std::string payload;
  auto be32 = [&](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int b = 3; b >= 0; --b) payload += static_cast<char>((u >> (8 * b)) & 0xFF);
  };
  be32(1.0f), be32(2.0f), be32(-3.5f), be32(0.25f);
  const auto t = load_bytes(npy_file(1, "{'descr': '>c8', 'fortran_order': False, 'shape': (2,), }", payload));
  EXPECT_EQ(t.tensor.view().byte_order, native_byte_order);
  const auto* z = t.tensor.data<std::complex<float>>();
  EXPECT_EQ(z[0], std::complex<float>(1.0f, 2.0f));
  EXPECT_EQ(z[1], std::complex<float>(-3.5f, 0.25f));
}

TEST(NpyHeader, OneByteTypesAcceptAnyOrderChar) {
  for (const char* d : {"|u1", "<u1", ">u1", "=u1", "u1"}) {
    const auto t = load_bytes(npy_file(1, std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (3,), }", "\x01\x02\xff"));
    EXPECT_EQ(t.tensor.dtype(), DType::uint8) << d;
    EXPECT_EQ(element(t.tensor.view(), 2), 255.0L) << d;
  }
}

TEST(NpyHeader, Bf16Conventions) {
  const std::vector<std::uint16_t> bits{0x3F80, 0xC020, 0x4049};  // 1, -2.5, 3.140625
  const std::string v2 = npy_file(1, "{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }", raw_bytes(bits));
  // Without a hint the void is refused, naming the descr and the fix (never read as uint16).
  try {
    load_bytes(v2);
    ADD_FAILURE() << "<V2 without a hint must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'<V2'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--as bfloat16"), std::string::npos) << e.what();
  }
  tio::LoadOptions keep;
  keep.allow_opaque = true;
  const auto opaque = load_bytes(v2, keep);
  EXPECT_EQ(opaque.tensor.dtype(), DType::uint16);
  EXPECT_TRUE(opaque.meta.opaque);
  EXPECT_EQ(opaque.meta.source_dtype, "<V2");
  tio::LoadOptions o;
  o.bf16 = tio::Bf16Hint::bfloat16;
  const auto bf = load_bytes(v2, o);
  EXPECT_EQ(bf.tensor.dtype(), DType::bfloat16);
  EXPECT_FALSE(bf.meta.opaque);
  EXPECT_EQ(element(bf.tensor.view(), 1), -2.5L);
  // <i2 stays int16 unless the caller asks for the bits reading.
  const std::string i2 = npy_file(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", raw_bytes(bits));
  EXPECT_EQ(load_bytes(i2, o).tensor.dtype(), DType::int16);
  o.bf16 = tio::Bf16Hint::int16_bits;
  const auto ib = load_bytes(i2, o);
  EXPECT_EQ(ib.tensor.dtype(), DType::bfloat16);
  EXPECT_EQ(element(ib.tensor.view(), 2), 3.140625L);
  // The golden int16-view file: bf16 values as the sidecar lists them.
  const auto j = read_json(data_dir() + "/npy/bfloat16_as_int16_view.npy.json");
  const auto g = tio::read_npy(data_dir() + "/npy/bfloat16_as_int16_view.npy", o);
  const auto want = j.at("bf16_values").get<std::vector<double>>();
  ASSERT_EQ(g.tensor.numel(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(static_cast<double>(element(g.tensor.view(), k)), want[k]);
  // Other void sizes are refused.
  expect_error([&] { load_bytes(npy_file(1, "{'descr': '|V4', 'fortran_order': False, 'shape': (3,), }", std::string(12, '\0'))); },
               {"'|V4'"});
}

// ------------------------------------------------------------ hostile input

struct Hostile {
  std::string name;
  std::string bytes;
  std::vector<std::string> needles;
};

std::vector<Hostile> hostile_cases() {
  const std::string f4 = std::string(16, '\0');
  std::vector<Hostile> v;
  v.push_back({"empty file", "", {"too short"}});
  v.push_back({"short magic", "\x93NUM", {"magic"}});
  v.push_back({"bad magic", "\x93NUMPZ\x01\x00\x10\x00" + std::string(16, ' '), {"bad magic"}});
  v.push_back({"magic only", std::string("\x93NUMPY\x01", 7), {"too short"}});
  v.push_back({"version 0", std::string("\x93NUMPY\x00\x00\x00\x00", 10), {"version 0.0"}});
  v.push_back({"version 1.1", std::string("\x93NUMPY\x01\x01\x00\x00", 10), {"version 1.1"}});
  v.push_back({"v2 cut in HEADER_LEN", std::string("\x93NUMPY\x02\x00\x00\x00", 10), {"HEADER_LEN"}});
  v.push_back({"header beyond file", std::string("\x93NUMPY\x01\x00\xff\x00{}", 12), {"HEADER_LEN", "runs past"}});
  v.push_back({"huge v2 header", std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12), {"exceeds the limit"}});
  auto H = [&](const std::string& name, const std::string& header, std::vector<std::string> needles) {
    v.push_back({name, npy_file(1, header, f4), std::move(needles)});
  };
  H("not a dict", "['descr', '<f4']", {"'{'"});
  H("empty dict", "{}", {"no 'descr'"});
  H("missing fortran", "{'descr': '<f4', 'shape': (4,)}", {"no 'fortran_order'"});
  H("unknown key", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", {"unknown header key 'x'"});
  H("duplicate key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", {"duplicate key"});
  H("unknown descr", "{'descr': '<q9', 'fortran_order': False, 'shape': (4,)}", {"'<q9'"});
  H("empty descr", "{'descr': '', 'fortran_order': False, 'shape': (4,)}", {"descr"});
  H("descr not a string", "{'descr': 5, 'fortran_order': False, 'shape': (4,)}", {"descr"});
  H("object", "{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", {"|O", "pickled"});
  H("bytes S", "{'descr': '|S4', 'fortran_order': False, 'shape': (4,)}", {"strings"});
  H("float8 f1", "{'descr': '<f1', 'fortran_order': False, 'shape': (4,)}", {"float8"});
  H("fortran 1", "{'descr': '<f4', 'fortran_order': 1, 'shape': (4,)}", {"True or False"});
  H("fortran Truex", "{'descr': '<f4', 'fortran_order': Truex, 'shape': (4,)}", {"True or False"});
  H("negative dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", {"negative dimension"});
  H("float dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (4.0,)}", {"shape"});
  H("shape list", "{'descr': '<f4', 'fortran_order': False, 'shape': [4]}", {"tuple"});
  H("1-d without comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", {"trailing comma"});
  H("dim beyond int64", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", {"64 bits"});
  H("numel overflow", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", {"overflows"});
  H("nbytes overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", {"overflows"});
  H("absurd shape", "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000)}", {"truncated"});
  H("truncated data", "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)}", {"truncated", "needs 20 bytes"});
  H("unterminated string", "{'descr': '<f4", {"unterminated"});
  H("escape", "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (4,)}", {"escape"});
  H("junk after dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x", {"after the header dict"});
  H("unclosed dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)", {"expected ',' or '}'"});
  H("missing colon", "{'descr' '<f4', 'fortran_order': False, 'shape': (4,)}", {"':'"});
  std::string rank65 = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) rank65 += "1,";
  H("rank 65", rank65 + ")}", {"dimensions"});
  return v;
}

TEST(NpyHostile, EveryRejectNamesFileFieldOffsetAndReason) {
  for (const auto& c : hostile_cases()) {
    SCOPED_TRACE(c.name);
    try {
      load_bytes(c.bytes, {}, "hostile.npy");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.context().file, "hostile.npy") << msg;
      EXPECT_FALSE(e.context().field.empty()) << msg;
      EXPECT_TRUE(e.context().offset.has_value()) << msg;
      for (const auto& n : c.needles) EXPECT_NE(msg.find(n), std::string::npos) << msg << " lacks " << n;
    }
  }
}

TEST(NpyHostile, EveryTruncationOfAGoodFileFailsCleanly) {
  const std::string good = slurp(data_dir() + "/npy/float32_2x3x4.npy");
  ASSERT_GT(good.size(), 128u);
  for (std::size_t n = 0; n < good.size(); ++n) {
    try {
      load_bytes(good.substr(0, n));
      ADD_FAILURE() << "accepted a file cut to " << n << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.context().file, "mem.npy");
    }
  }
  EXPECT_NO_THROW(load_bytes(good));
  // Trailing bytes are tolerated and reported.
  const auto t = load_bytes(good + "xyz");
  EXPECT_EQ(t.meta.extra.at("trailing_bytes"), "3");
}

TEST(NpyHostile, EveryByteFlipOfTheHeaderIsHandled) {
  const std::string good = slurp(data_dir() + "/npy/int16_fortran_2x3x4.npy");
  for (std::size_t i = 0; i < 128; ++i)
    for (unsigned char x : {0x01u, 0x20u, 0x80u, 0xFFu}) {
      std::string b = good;
      b[i] = static_cast<char>(static_cast<unsigned char>(b[i]) ^ x);
      try {
        const auto t = load_bytes(b);
        t.tensor.view().check_within(b.size());  // whatever loads must be in bounds
      } catch (const Error&) {
      }
    }
}

TEST(NpyHostile, HeaderCapIsConfigurable) {
  const std::string b = npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", std::string(16, '\0'));
  tio::LoadOptions o;
  o.limits.max_header_bytes = 32;
  expect_error([&] { load_bytes(b, o); }, {"HEADER_LEN", "exceeds the limit 32"});
}

// ----------------------------------------------------------------- writing

TEST(NpyWrite, RoundTripsEveryDtypeAndLayout) {
  for (DType t : all_dtypes) {
    SCOPED_TRACE(dtype_name(t));
    const std::size_t item = dtype_size(t);
    // 2x3 values with distinct bytes, viewed transposed (3x2, strides 1,3).
    std::vector<unsigned char> raw(6 * item);
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<unsigned char>(t == DType::boolean ? (i % 3 == 0) : (i * 37 + 11));
    const TensorView src(raw.data(), t, {3, 2}, {1, 3});
    TempFile tmp(std::string("w_") + dtype_name(t) + ".npy", "");
    tio::NpySaveOptions so;
    tio::save_npy(tmp.path, src, so);
    tio::LoadOptions lo;
    if (t == DType::bfloat16) lo.bf16 = tio::Bf16Hint::bfloat16;
    if (t == DType::float8_e4m3fn || t == DType::float8_e5m2) lo.void1_as = t;  // saved as ml_dtypes' '|V1'
    const auto back = tio::read_npy(tmp.path, lo);
    EXPECT_EQ(back.tensor.dtype(), t);
    EXPECT_EQ(back.tensor.shape(), (Shape{3, 2}));
    EXPECT_TRUE(back.tensor.view().is_contiguous());
    EXPECT_EQ(c_order_le_bytes(back.tensor.view()), c_order_le_bytes(src));
  }
}

TEST(NpyWrite, Bf16Options) {
  const std::vector<std::uint16_t> bits{0x3F80, 0xC020};
  const TensorView v(bits.data(), DType::bfloat16, {2});
  tio::NpySaveOptions so;
  EXPECT_NE(tio::npy_bytes(v, so).find("'<V2'"), std::string::npos);
  so.bf16 = tio::NpyBf16::float32;
  const std::string f32 = tio::npy_bytes(v, so);
  EXPECT_NE(f32.find("'<f4'"), std::string::npos);
  const auto t = load_bytes(f32);
  EXPECT_EQ(element(t.tensor.view(), 1), -2.5L);
  so.bf16 = tio::NpyBf16::int16_bits;
  EXPECT_NE(tio::npy_bytes(v, so).find("'<i2'"), std::string::npos);
}

TEST(NpyWrite, ScalarEmptyAndErrors) {
  const double x = 2.5;
  const std::string s = tio::npy_bytes(TensorView(&x, DType::float64, {}));
  EXPECT_NE(s.find("'shape': ()"), std::string::npos);
  EXPECT_EQ(s.size() % 64, 8u);  // 64-byte aligned header + one double
  const std::string e = tio::npy_bytes(TensorView(nullptr, DType::float32, {0, 3}));
  EXPECT_EQ(e.size() % 64, 0u);
  EXPECT_EQ(load_bytes(e).tensor.shape(), (Shape{0, 3}));
  expect_error([&] { tio::save_npy("/nonexistent-dir/x.npy", TensorView(&x, DType::float64, {})); },
               {"/nonexistent-dir/x.npy"});
}

}  // namespace
