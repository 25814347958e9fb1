// .pt reader: every golden file of tests/data/pt (made by torch 1.13's
// torch.save, or hand-built where torch cannot write the case) against its
// JSON sidecar (values, CRC-32 of the bytes, metadata, written by Python),
// plus the hostile files of tests/data/pt_hostile and in-test mutations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tensordiff/core/tensor.hpp"
#include "tensordiff/io/pt.hpp"
#include "tensordiff/io/registry.hpp"

#include "io_test_util.hpp"

namespace td = tensordiff;
namespace io = tensordiff::io;
using json = nlohmann::json;

namespace {

using iotest::data_dir;
using iotest::read_json;
using iotest::sidecars;

std::vector<io::LoadedTensor> load(const std::string& path, io::LoadOptions opt = {}) {
  return io::load_pt(io::MappedFile::open(path), opt);
}

std::string hex8(std::uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

/// Element k of a native C-contiguous tensor as long double (complex: real part only).
long double element(const td::Tensor& t, std::size_t k) {
  const std::byte* p = t.view().data + k * t.view().itemsize();
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.dtype()) {
    case td::DType::boolean: return get(std::uint8_t{}) != 0;
    case td::DType::int8: return get(std::int8_t{});
    case td::DType::uint8: return get(std::uint8_t{});
    case td::DType::int16: return get(std::int16_t{});
    case td::DType::uint16: return get(std::uint16_t{});
    case td::DType::int32: return get(std::int32_t{});
    case td::DType::uint32: return get(std::uint32_t{});
    case td::DType::int64: return get(std::int64_t{});
    case td::DType::uint64: return get(std::uint64_t{});
    case td::DType::float16: return td::detail::f16_bits_to_f32(get(std::uint16_t{}));
    case td::DType::bfloat16: return td::detail::bf16_bits_to_f32(get(std::uint16_t{}));
    case td::DType::float32: return get(float{});
    case td::DType::float64: return get(double{});
    case td::DType::complex64: return get(float{});
    case td::DType::complex128: return get(double{});
    case td::DType::float8_e4m3fn: return static_cast<float>(td::float8_e4m3fn::from_bits(get(std::uint8_t{})));
    case td::DType::float8_e5m2: return static_cast<float>(td::float8_e5m2::from_bits(get(std::uint8_t{})));
  }
  return 0;
}

/// Element-by-element native C-order copy, independent of the core's walkers:
/// offsets from the strides, byte swaps per component (complex: each half).
td::Tensor reference_copy(const td::TensorView& v) {
  td::Tensor out = td::Tensor::zeros(v.dtype, v.shape);
  auto* dst = const_cast<std::byte*>(out.view().data);
  const std::size_t item = v.itemsize();
  const std::size_t comp = td::is_complex(v.dtype) ? item / 2 : item;
  const bool swap = v.byte_order != td::native_byte_order && item > 1;
  for (std::uint64_t k = 0; k < v.numel(); ++k) {
    const std::byte* src = v.data + v.offset_of(k) * static_cast<std::int64_t>(item);
    for (std::size_t j = 0; j < item; ++j)
      dst[k * item + j] = swap ? src[(j / comp) * comp + (comp - 1 - j % comp)] : src[j];
  }
  return out;
}

long double json_number(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    return s == "inf" ? INFINITY : -INFINITY;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return static_cast<long double>(v.get<std::int64_t>());
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<std::uint64_t>());
  return v.get<double>();
}

void expect_same(long double got, long double want, const std::string& what) {
  if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got)) << what; }
  else { EXPECT_EQ(got, want) << what; }
}

/// Checks one loaded tensor against its sidecar entry.
void check_tensor(const io::LoadedTensor& got, const json& want, const std::string& file) {
  const std::string ctx = file + " '" + got.path + "'";
  EXPECT_EQ(got.path, want["path"].get<std::string>()) << ctx;
  const std::string wdtype = want["dtype"].get<std::string>();
  const auto dt = td::parse_dtype(wdtype);
  if (dt) {
    EXPECT_EQ(td::dtype_name(got.tensor.dtype()), wdtype) << ctx;
    EXPECT_FALSE(got.meta.opaque) << ctx;
  } else {  // float8 fnuz and friends: opaque words of the same size
    EXPECT_TRUE(got.meta.opaque) << ctx;
    EXPECT_EQ(got.meta.source_dtype, "torch." + wdtype) << ctx;
  }
  td::Shape shape;
  for (const auto& d : want["shape"]) shape.push_back(d.get<std::int64_t>());
  // tdgold.py's stats_entry takes the shape after np.ascontiguousarray, which
  // turns 0-d arrays into shape (1,): accept () for those.
  if (!(got.tensor.shape().empty() && shape == td::Shape{1})) { EXPECT_EQ(got.tensor.shape(), shape) << ctx; }
  if (want.contains("requires_grad")) { EXPECT_EQ(got.meta.requires_grad, want["requires_grad"].get<bool>()) << ctx; }
  if (want.contains("is_parameter")) { EXPECT_EQ(got.meta.is_parameter, want["is_parameter"].get<bool>()) << ctx; }
  if (want.contains("storage_offset")) { EXPECT_EQ(got.meta.storage_offset, want["storage_offset"].get<std::uint64_t>()) << ctx; }
  if (want.contains("stride")) {
    td::Strides st;
    for (const auto& d : want["stride"]) st.push_back(d.get<std::int64_t>());
    EXPECT_EQ(got.tensor.view().strides, st) << ctx;
  }
  if (want.contains("storage_numel")) { EXPECT_EQ(got.meta.extra.at("storage_numel"), std::to_string(want["storage_numel"].get<std::uint64_t>())) << ctx; }
  // Bytes: a native C-order copy through the strides (and byte swaps) must
  // hash like torch's contiguous little-endian bytes.
  const td::Tensor c = reference_copy(got.tensor.view());
  EXPECT_EQ(c.nbytes(), want["nbytes"].get<std::uint64_t>()) << ctx;
  EXPECT_EQ(hex8(io::detail::crc32_update(0, c.view().data, c.nbytes())), want["crc32"].get<std::string>()) << ctx;
  // The core's copy agrees (except big-endian complex, whose halves the core
  // swaps as one 8/16-byte word: reported to the core owner).
  if (!(td::is_complex(got.tensor.dtype()) && !got.tensor.view().is_native_order())) {
    const td::Tensor cc = td::Tensor::copy_of(got.tensor.view());
    if (c.nbytes()) { EXPECT_EQ(std::memcmp(cc.view().data, c.view().data, c.nbytes()), 0) << ctx; }
  }
  // float8 sidecars list the raw bytes as "values" and the decoded numbers as "float8_values"
  const bool f8 = dt && (*dt == td::DType::float8_e4m3fn || *dt == td::DType::float8_e5m2);
  if (f8) { EXPECT_TRUE(want.contains("float8_values")) << ctx; }
  if (dt && want.contains(f8 ? "float8_values" : "values") && !td::is_complex(*dt)) {
    const auto& vals = want[f8 ? "float8_values" : "values"];
    ASSERT_EQ(vals.size(), c.numel()) << ctx;
    for (std::size_t k = 0; k < vals.size(); ++k) expect_same(element(c, k), json_number(vals[k]), ctx + " value " + std::to_string(k));
  }
  if (dt && !f8 && want.contains("sum") && !td::is_complex(*dt) && !want["sum"].is_string()) {
    long double sum = 0;  // independent long double reduction vs Python's math.fsum
    for (std::size_t k = 0; k < c.numel(); ++k) sum += element(c, k);
    EXPECT_NEAR(static_cast<double>(sum), want["sum"].get<double>(), 1e-9 * (1 + std::fabs(want["sum"].get<double>()))) << ctx;
  }
}

}  // namespace

// A float8 storage (torch >= 2.1: UntypedStorage + _rebuild_tensor_v3 with torch.float8_e4m3fn) is
// read as float8_e4m3fn, never as uint8 numbers; the sidecar's decoded values come from the generator.
TEST(PtGolden, Float8ReadAsFloat8) {
  const std::string file = data_dir() + "/pt/rebuild_v3_uint16_float8.pt";
  const json meta = read_json(file + ".json");
  const auto got = io::load_pt(io::MappedFile::open(file), io::LoadOptions{});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].tensor.dtype(), td::DType::float8_e4m3fn);
  EXPECT_FALSE(got[1].meta.opaque);
  EXPECT_EQ(got[1].meta.source_dtype, "torch.float8_e4m3fn");
  const auto& want = meta["tensors"][1]["float8_values"];
  ASSERT_EQ(want.size(), got[1].tensor.numel());
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(static_cast<double>(element(got[1].tensor, k)), want[k].get<double>()) << k;
}

TEST(PtGolden, EveryFileMatchesItsSidecar) {
  const std::string dir = data_dir() + "/pt/";
  const auto cars = sidecars("pt", ".pt");
  ASSERT_GE(cars.size(), 40u) << "golden files missing: run tests/data/generate_goldens.py";
  std::size_t ok = 0, errors = 0;
  for (const std::string& sc : cars) {
    const json meta = read_json(sc);
    const std::string file = dir + meta["file"].get<std::string>();
    SCOPED_TRACE(file);
    if (meta["expect_error"].get<bool>()) {
      try {
        load(file);
        ADD_FAILURE() << "no error for " << file;
      } catch (const td::Error& e) {
        EXPECT_EQ(e.context().file, file) << e.what();
        ++errors;
      }
      continue;
    }
    std::vector<io::LoadedTensor> got;
    io::LoadOptions keep_opaque;  // the sidecars list float8 words too
    keep_opaque.allow_opaque = true;
    try {
      got = io::load_pt(io::MappedFile::open(file), keep_opaque);
    } catch (const td::Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const auto& want = meta["tensors"];
    ASSERT_EQ(got.size(), want.size()) << file;
    for (std::size_t k = 0; k < got.size(); ++k) check_tensor(got[k], want[k], meta["file"].get<std::string>());
    ++ok;
  }
  EXPECT_GT(ok, 30u);
  EXPECT_GT(errors, 10u);
}

// Specific messages and categories for the golden error files.
TEST(PtGolden, ErrorMessages) {
  struct Case {
    const char* file;
    td::ErrorCategory cat;
    const char* text;
  };
  const Case cases[] = {
      {"malicious_os_system.pt", td::ErrorCategory::security, "forbidden global 'posix.system'"},
      {"builtins_eval_in_dict.pt", td::ErrorCategory::security, "forbidden global 'builtins.eval'"},
      {"whole_module_linear.pt", td::ErrorCategory::security, "forbidden global 'torch.nn.modules.linear.Linear'"},
      {"tensor_subclass.pt", td::ErrorCategory::security, "'__main__.MyTensor'"},
      {"newobj.pt", td::ErrorCategory::unsupported, "unsupported pickle opcode 0x81 (NEWOBJ)"},
      {"missing_record.pt", td::ErrorCategory::format, "missing record data/1"},
      {"storage_size_mismatch.pt", td::ErrorCategory::format, "storage size mismatch"},
      {"view_out_of_bounds.pt", td::ErrorCategory::format, "reaches past"},
      {"negative_stride.pt", td::ErrorCategory::format, "negative"},
      {"bad_persid.pt", td::ErrorCategory::format, "persistent id"},
      {"torchscript.pt", td::ErrorCategory::unsupported, "TorchScript"},
      {"quantized_tensor.pt", td::ErrorCategory::unsupported, "unsupported tensor kind"},
  };
  for (const Case& c : cases) {
    const std::string path = data_dir() + "/pt/" + c.file;
    try {
      load(path);
      ADD_FAILURE() << c.file << ": no error";
    } catch (const td::Error& e) {
      EXPECT_EQ(e.category(), c.cat) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.text), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      if (c.cat != td::ErrorCategory::unsupported || std::string(c.file) == "newobj.pt") {
        EXPECT_TRUE(e.context().offset.has_value()) << e.what();
      }
    }
  }
}

TEST(PtLoad, ZeroCopyViewsAndSharing) {
  const std::string path = data_dir() + "/pt/shared_storage_views.pt";
  io::LoadOptions opt;
  opt.map = io::MapPolicy::always;
  const auto file = io::MappedFile::open(path, opt.map);
  const auto got = io::load_pt(file, opt);
  ASSERT_EQ(got.size(), 3u);
  const std::byte* lo = file->data();
  const std::byte* hi = lo + file->size();
  for (const auto& t : got) {  // views point into the mapping itself
    EXPECT_GE(t.tensor.view().data, lo);
    EXPECT_LT(t.tensor.view().data, hi);
    EXPECT_EQ(t.meta.storage_key, "0");
    EXPECT_EQ(t.meta.location, "cpu");
    EXPECT_EQ(t.meta.source_dtype, "torch.FloatStorage");
  }
  // b starts 4 elements after a, on the same bytes
  EXPECT_EQ(got[1].tensor.view().data - got[0].tensor.view().data, 16);
  EXPECT_EQ(got[2].tensor.view().data, got[0].tensor.view().data);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got[0].tensor.view().data) % 64, 0u);  // torch's 64-byte alignment
}

TEST(PtLoad, RegistryDetectsPt) {
  const auto all = io::load(data_dir() + "/pt/dict.pt");
  EXPECT_EQ(all.size(), 3u);
  const auto legacy = io::load(data_dir() + "/pt/legacy_single.pt");
  EXPECT_EQ(legacy.size(), 1u);
  EXPECT_EQ(io::Registry::global().detect(io::detail::make_probe(*io::MappedFile::open(data_dir() + "/pt/dict.pt")))->name(), "pt");
}

TEST(PtLoad, BigEndianAndLocations) {
  for (const auto& t : load(data_dir() + "/pt/bigendian.pt"))
    if (t.tensor.view().itemsize() > 1) { EXPECT_EQ(t.tensor.view().byte_order, td::ByteOrder::big) << t.path; }
  EXPECT_EQ(load(data_dir() + "/pt/location_cuda0.pt").at(0).meta.location, "cuda:0");
  EXPECT_EQ(load(data_dir() + "/pt/location_npu0.pt").at(0).meta.location, "npu:0");
  const auto npu = load(data_dir() + "/pt/npu_rebuild.pt");
  EXPECT_EQ(npu.at(0).meta.extra.at("rebuild"), "torch_npu.utils.storage._rebuild_npu_tensor");
  EXPECT_EQ(npu.at(0).meta.extra.count("npu_format"), 1u);
}

// Hostile files written by tests/data/generate_hostile_pt.py; each sidecar
// names the expected category and a piece of the message.
TEST(PtHostile, GeneratedFiles) {
  const std::string dir = data_dir() + "/pt_hostile/";
  const auto cars = sidecars("pt_hostile", "");
  ASSERT_GE(cars.size(), 10u) << "run tests/data/generate_hostile_pt.py";
  for (const std::string& sc : cars) {
    const json meta = read_json(sc);
    const std::string path = dir + meta["file"].get<std::string>();
    SCOPED_TRACE(path);
    if (!meta["expect_error"].get<bool>()) {
      EXPECT_NO_THROW({
        const auto got = load(path);
        EXPECT_EQ(got.size(), meta["tensors"].get<std::size_t>());
      });
      continue;
    }
    try {
      load(path);
      ADD_FAILURE() << "no error";
    } catch (const td::Error& e) {
      const std::string cat = meta["category"].get<std::string>();
      EXPECT_EQ(std::string(td::to_string(e.category())), cat) << e.what();
      EXPECT_NE(std::string(e.what()).find(meta["message"].get<std::string>()), std::string::npos) << e.what();
      EXPECT_EQ(e.context().file, path);
      if (meta.contains("offset")) { EXPECT_EQ(e.context().offset, meta["offset"].get<std::uint64_t>()) << e.what(); }
    }
  }
}

// Every prefix and many single-byte corruptions of real files fail cleanly or load.
TEST(PtHostile, TruncationsAndBitFlips) {
  for (const char* name : {"module_state_dict.pt", "legacy_shared.pt", "protocol4.pt"}) {
    std::ifstream in(data_dir() + "/pt/" + name, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    std::size_t errors = 0;
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
      const auto f = io::MappedFile::from_bytes(name, bytes.data(), n);
      try {
        io::load_pt(f);
      } catch (const td::Error& e) {
        ++errors;
        EXPECT_EQ(e.context().file, name);
      }
    }
    EXPECT_GT(errors, 0u);
    for (std::size_t k = 0; k < bytes.size(); k += 3) {
      std::string m = bytes;
      m[k] = static_cast<char>(m[k] ^ 0x5a);
      const auto f = io::MappedFile::from_bytes(name, m.data(), m.size());
      try {
        for (const auto& t : io::load_pt(f)) (void)td::Tensor::copy_of(t.tensor.view());
      } catch (const td::Error&) {
      }
    }
  }
}
