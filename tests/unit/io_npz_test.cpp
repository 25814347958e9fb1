// io/npz.hpp: numpy's archives against their sidecars, zero-copy stored
// members, deflate with and without zlib (this file is built twice), and
// hand-built hostile archives.
#include <tensordiff/io/npz.hpp>
#include <tensordiff/io/registry.hpp>

#include "io_test_util.hpp"

namespace {
using namespace tensordiff;
using namespace iotest;
namespace tio = tensordiff::io;

#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
constexpr bool have_zlib = true;
#define NPZ_SUITE(name) name
#else
constexpr bool have_zlib = false;
#define NPZ_SUITE(name) name##NoZlib  // distinct ctest names for the second build
#endif

TEST(NPZ_SUITE(NpzGolden), EverySidecar) {
  const auto cars = sidecars("npz", ".npz");
  ASSERT_GE(cars.size(), 3u);
  for (const auto& car : cars) {
    const auto j = read_json(car);
    const std::string file = car.substr(0, car.size() - 5);
    SCOPED_TRACE(file);
    bool deflated = false;
    for (const auto& m : j.at("members")) deflated |= m["compress_type"].get<int>() == 8;
    if (deflated && !have_zlib) {
      expect_error([&] { tio::read_npz(file); }, {file, "deflate not supported"});
      continue;
    }
    tio::LoadOptions o;
    o.verify_crc = true;
    const auto ts = tio::read_npz(file, o);
    const auto& want = j.at("tensors");
    ASSERT_EQ(ts.size(), want.size());
    for (std::size_t i = 0; i < ts.size(); ++i) {
      EXPECT_EQ(ts[i].path, want[i]["path"].get<std::string>());
      EXPECT_EQ(ts[i].meta.storage_key, want[i]["path"].get<std::string>() + ".npy");
      expect_matches_sidecar(ts[i].tensor.view(), want[i], file + "::" + ts[i].path);
    }
    // Through the registry: detected as npz by its magic and first member.
    const auto viaregistry = tio::load(file);
    EXPECT_EQ(viaregistry.size(), ts.size());
  }
}

TEST(NPZ_SUITE(Npz), StoredMembersAreZeroCopy) {
  const std::string file = data_dir() + "/npz/named_stored.npz";
  auto f = tio::MappedFile::open(file, tio::MapPolicy::always);
  const auto ts = tio::load_npz(f);
  ASSERT_FALSE(ts.empty());
  for (const auto& t : ts) {
    const std::byte* p = t.tensor.view().data;
    if (t.tensor.numel() == 0) continue;
    // numpy does not align members: views where the element type allows,
    // aligned copies otherwise.
    const std::size_t align = std::min<std::size_t>(dtype_size(t.tensor.dtype()), 8);
    if (t.meta.storage_offset % align == 0) {
      EXPECT_TRUE(p >= f->data() && p < f->data() + f->size()) << t.path;
      EXPECT_EQ(static_cast<std::uint64_t>(p - f->data()), t.meta.storage_offset) << t.path;
    } else {
      EXPECT_FALSE(p >= f->data() && p < f->data() + f->size()) << t.path;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % align, 0u) << t.path;
    }
  }
}

TEST(NPZ_SUITE(Npz), LoadOneSelectsByPath) {
  const std::string file = data_dir() + "/npz/named_stored.npz";
  const auto b = tio::load_one(file + "::bias");
  EXPECT_EQ(b.path, "bias");
  EXPECT_EQ(b.tensor.dtype(), DType::int64);
  expect_error([&] { tio::load_one(file + "::nope"); }, {"no tensor with path 'nope'", "'weight'"});
  expect_error([&] { tio::load_one(file); }, {"holds 3 tensors"});
}

TEST(NPZ_SUITE(Npz), BuiltArchive) {
  ZipBuilder b;
  const std::vector<float> x{1, 2, 3};
  b.add("x.npy", npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", raw_bytes(x))).local_zip64 = true;
  b.add("dir/", "");
  b.add("nested/y.npy", npy_file(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (), }", std::string("\x01\x02", 2)));
  const auto ts = tio::load_npz(mem(b.build()));
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0].path, "x");
  EXPECT_EQ(element(ts[0].tensor.view(), 2), 3.0L);
  EXPECT_EQ(ts[1].path, "nested/y");
  EXPECT_EQ(element(ts[1].tensor.view(), 0), 258.0L);
}

TEST(NPZ_SUITE(NpzHostile), MemberErrorsNameArchiveAndMember) {
  ZipBuilder b;
  b.add("good.npy", npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')));
  b.add("bad.npy", npy_file(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')));
  expect_error([&] { tio::load_npz(mem(b.build(), "h.npz")); }, {"h.npz::bad.npy", "descr", "|O"});
  ZipBuilder c;
  c.add("notes.txt", "hello");
  expect_error([&] { tio::load_npz(mem(c.build(), "h.npz")); }, {"h.npz", "member 'notes.txt'", "not an .npy"});
  ZipBuilder d;
  d.add("t.npy", npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100,), }", std::string(8, '\0')));
  expect_error([&] { tio::load_npz(mem(d.build(), "h.npz")); }, {"h.npz::t.npy", "truncated"});
  expect_error([&] { tio::load_npz(mem("PK\x03\x04 not really", "h.npz")); }, {"h.npz", "end record"});
}

#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
// Deflate member built with zlib here (an independent producer).
std::string deflate_raw(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST(NPZ_SUITE(NpzDeflate), BombsLiesAndCorruption) {
  const std::vector<double> x(1000, 0.5);
  const std::string npy = npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", raw_bytes(x));
  const std::string packed = deflate_raw(npy);
  auto build = [&](std::string data, std::uint32_t declared) {
    ZipBuilder b;
    auto& m = b.add("a.npy", std::move(data));
    m.method = 8;
    std::string z = b.build();
    // Patch the uncompressed size in the central directory (offset 24 in it).
    const std::size_t cd = 30 + 5 + m.data.size();
    for (int i = 0; i < 4; ++i) z[cd + 24 + i] = static_cast<char>((declared >> (8 * i)) & 0xFF);
    // The builder wrote the CRC of the compressed bytes: fix it to the real one.
    const std::uint32_t crc = crc32_ref(npy);
    for (int i = 0; i < 4; ++i) z[cd + 16 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
    return z;
  };
  tio::LoadOptions o;
  o.verify_crc = true;
  const auto ok = tio::load_npz(mem(build(packed, static_cast<std::uint32_t>(npy.size()))), o);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(element(ok[0].tensor.view(), 999), 0.5L);
  EXPECT_EQ(ok[0].meta.extra.at("compression"), "deflate");
  expect_error([&] { tio::load_npz(mem(build(packed, static_cast<std::uint32_t>(npy.size() - 1)), "d.npz")); },
               {"d.npz", "member 'a.npy'", "more than the declared"});
  expect_error([&] { tio::load_npz(mem(build(packed, static_cast<std::uint32_t>(npy.size() + 1)), "d.npz")); },
               {"member 'a.npy'", "directory says"});
  expect_error([&] { tio::load_npz(mem(build(packed, 0xF0000000u), "d.npz")); }, {"impossible"});
  std::string broken = packed;
  broken[broken.size() / 2] ^= 0x55;
  try {
    tio::load_npz(mem(build(broken, static_cast<std::uint32_t>(npy.size())), "d.npz"), o);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("d.npz"), std::string::npos);
  }
  expect_error([&] { tio::load_npz(mem(build(packed.substr(0, packed.size() / 2), static_cast<std::uint32_t>(npy.size())), "d.npz")); },
               {"member 'a.npy'"});
}
#endif

}  // namespace
