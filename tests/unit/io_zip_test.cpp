// io/detail/zip.hpp: the central-directory reader on real archives (numpy,
// torch) and on archives built byte by byte here, hostile ones included.
#include <tensordiff/io/detail/zip.hpp>

#include <fstream>
#include <sstream>

#include "io_test_util.hpp"

namespace {
using namespace tensordiff;
using namespace iotest;
namespace tio = tensordiff::io;
using tio::detail::ZipArchive;

std::string str(tio::ByteSpan s) { return std::string(reinterpret_cast<const char*>(s.data), s.size); }

TEST(Zip, RealNpzArchivesMatchTheirSidecars) {
  for (const auto& car : sidecars("npz", ".npz")) {
    const auto j = read_json(car);
    const std::string file = car.substr(0, car.size() - 5);
    SCOPED_TRACE(file);
    const ZipArchive z = ZipArchive::open(tio::MappedFile::open(file));
    const auto& members = j.at("members");
    ASSERT_EQ(z.entries().size(), members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto& e = z.entries()[i];
      EXPECT_EQ(e.name, members[i]["name"].get<std::string>());
      EXPECT_EQ(e.method, members[i]["compress_type"].get<int>());
      EXPECT_EQ(e.size, members[i]["file_size"].get<std::uint64_t>());
      EXPECT_EQ(e.compressed_size, members[i]["compress_size"].get<std::uint64_t>());
      EXPECT_EQ(e.local_header_offset, members[i]["header_offset"].get<std::uint64_t>());
      EXPECT_EQ(z.find(e.name), &e);
      if (e.is_stored()) {
        // numpy's stored members are whole .npy files, CRC-checked here.
        const auto m = z.read(e, /*verify_crc=*/true);
        EXPECT_EQ(str(m.bytes).substr(0, 6), "\x93NUMPY");
        EXPECT_EQ(m.owner.get(), z.file().get());  // zero-copy
      }
    }
    EXPECT_EQ(z.find("nope.npy"), nullptr);
  }
}

TEST(Zip, RealTorchArchives) {
  // torch.save zips: one root dir, FB padding to 64, data descriptors, ZIP64 end.
  int seen = 0;
  for (const char* name : {"float32_3x4.pt", "dict.pt", "empty_0.pt", "multi_storage_12.pt"}) {
    const std::string file = data_dir() + "/pt/" + name;
    if (!fs::exists(file)) continue;
    SCOPED_TRACE(file);
    ++seen;
    const ZipArchive z = ZipArchive::open(tio::MappedFile::open(file));
    ASSERT_FALSE(z.entries().empty());
    const std::string root = z.entries()[0].name.substr(0, z.entries()[0].name.find('/') + 1);
    const auto* pkl = z.find(root + "data.pkl");
    ASSERT_NE(pkl, nullptr);
    EXPECT_EQ(std::to_integer<int>(z.data(*pkl).data[0]), 0x80);  // PROTO
    const auto* ver = z.find(root + "version");
    ASSERT_NE(ver, nullptr);
    EXPECT_EQ(str(z.data(*ver)), "3\n");
    for (const auto& e : z.entries()) {
      EXPECT_EQ(e.name.compare(0, root.size(), root), 0);
      if (e.name.compare(0, root.size() + 5, root + "data/") == 0) { EXPECT_EQ(e.data_offset % 64, 0u) << e.name; }
      EXPECT_NO_THROW(z.read(e, true)) << e.name;
    }
  }
  EXPECT_GT(seen, 0);
}

TEST(Zip, BuiltArchivesWithProducerQuirks) {
  ZipBuilder b;
  b.zip64_end = true;
  auto& a = b.add("root/data.pkl", "pickle-bytes");
  a.fb_align = true;
  a.descriptor = true;
  auto& d = b.add("root/data/0", std::string(100, 'x'));
  d.fb_align = true;
  d.descriptor = true;
  auto& n = b.add("root/z.npy", "numpy-member");
  n.local_zip64 = true;
  auto& big = b.add("root/zip64", "central zip64 extra");
  big.central_zip64 = true;
  b.add("root/empty", "");
  b.comment = "archive comment with a fake PK\x05\x06 end signature inside";
  const std::string bytes = b.build();
  const ZipArchive z = ZipArchive::open(mem(bytes));
  ASSERT_EQ(z.entries().size(), 5u);
  EXPECT_EQ(str(z.data(*z.find("root/data.pkl"))), "pickle-bytes");
  EXPECT_EQ(z.find("root/data.pkl")->data_offset % 64, 0u);
  EXPECT_EQ(z.find("root/data/0")->data_offset % 64, 0u);
  EXPECT_EQ(str(z.data(*z.find("root/data/0"))), std::string(100, 'x'));
  EXPECT_EQ(str(z.data(*z.find("root/z.npy"))), "numpy-member");
  EXPECT_EQ(str(z.data(*z.find("root/zip64"))), "central zip64 extra");
  EXPECT_EQ(z.data(*z.find("root/empty")).size, 0u);
  for (const auto& e : z.entries()) EXPECT_NO_THROW(z.read(e, true));
  EXPECT_EQ(z.names(), (std::vector<std::string>{"root/data.pkl", "root/data/0", "root/z.npy", "root/zip64", "root/empty"}));
}

TEST(Zip, EmptyArchive) {
  ZipBuilder b;
  const ZipArchive z = ZipArchive::open(mem(b.build()));
  EXPECT_TRUE(z.entries().empty());
}

TEST(Zip, CrcCheckIsOptional) {
  ZipBuilder b;
  b.add("a", "hello").bad_crc = true;
  const ZipArchive z = ZipArchive::open(mem(b.build(), "crc.zip"));
  EXPECT_NO_THROW(z.read(z.entries()[0], false));
  expect_error([&] { z.read(z.entries()[0], true); }, {"crc.zip", "member 'a'", "CRC-32 mismatch"});
}

// Patches a little-endian integer of `width` bytes at `at`.
std::string patch(std::string s, std::size_t at, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}

TEST(ZipHostile, CorruptDirectories) {
  ZipBuilder b;
  b.add("a.npy", "0123456789");
  b.add("b.npy", "abcdefghij");
  const std::string good = b.build();
  // Layout: local a (30+5+10=45), local b (45), CD a at 90 (46+5), CD b at 141, EOCD at 192.
  const std::size_t cd = 90, cd_b = 141, eocd = 192;
  ASSERT_EQ(good.size(), eocd + 22);
  struct Case {
    const char* name;
    std::string bytes;
    std::vector<std::string> needles;
  } cases[] = {
      {"too short", "PK\x05\x06", {"shorter than an end record"}},
      {"no EOCD", std::string(100, 'x'), {"no end-of-central-directory"}},
      {"cd offset beyond", patch(good, eocd + 16, 1000000, 4), {"central directory", "outside the archive"}},
      {"cd size beyond", patch(good, eocd + 12, 0x7FFFFFFF, 4), {"outside the archive"}},
      {"count too large", patch(good, eocd + 8, 3, 2), {"entry counts disagree"}},
      {"count vs size", patch(patch(good, eocd + 8, 60000, 2), eocd + 10, 60000, 2), {"holds at most"}},
      {"multi-disk", patch(good, eocd + 4, 1, 2), {"multi-disk"}},
      {"bad CD signature", patch(good, cd_b, 0x12345678, 4), {"central directory entry 1", "bad signature"}},
      {"local offset beyond", patch(good, cd + 42, 5000, 4), {"member 'a.npy'", "local header offset"}},
      {"local offset into other", patch(good, cd + 42, 3, 4), {"bad local header signature"}},
      {"size beyond data", patch(patch(good, cd + 20, 500, 4), cd + 24, 500, 4), {"runs past the archive data"}},
      {"stored size mismatch", patch(good, cd + 20, 9, 4), {"stored member"}},
      {"name runs past", patch(good, cd_b + 28, 400, 2), {"run past the central directory"}},
      {"encrypted", patch(good, cd + 8, 1, 2), {"encrypted"}},
      {"ZIP64 marker without locator", patch(good, eocd + 16, 0xFFFFFFFF, 4), {"no ZIP64 locator"}},
      {"local name differs", patch(good, 30, 'x', 1), {"local header name differs"}},
      {"extra field overruns", patch(good, cd + 30, 8, 2), {"extra field"}},
      {"truncated in EOCD", good.substr(0, good.size() - 1), {"end"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      ZipArchive::open(mem(c.bytes, "bad.zip"));
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.context().file, "bad.zip") << msg;
      EXPECT_FALSE(e.context().field.empty()) << msg;
      EXPECT_TRUE(e.context().offset.has_value()) << msg;
      for (const auto& n : c.needles) EXPECT_NE(msg.find(n), std::string::npos) << msg << " lacks " << n;
    }
  }
}

TEST(ZipHostile, DuplicateNamesAndCaps) {
  ZipBuilder b;
  b.add("a", "1");
  b.add("a", "2");
  expect_error([&] { ZipArchive::open(mem(b.build())); }, {"duplicate member name"});
  ZipBuilder c;
  for (int i = 0; i < 5; ++i) c.add("m" + std::to_string(i), "x");
  tio::Limits lim;
  lim.max_members = 4;
  expect_error([&] { ZipArchive::open(mem(c.build()), lim); }, {"limit 4"});
  ZipBuilder d;
  d.add(std::string(300, 'n'), "x");
  lim = {};
  lim.max_name_bytes = 256;
  expect_error([&] { ZipArchive::open(mem(d.build()), lim); }, {"exceeds the limit 256"});
}

TEST(ZipHostile, Zip64RecordsChecked) {
  ZipBuilder b;
  b.zip64_end = true;
  b.add("a", "data");
  const std::string good = b.build();
  const std::size_t eocd = good.size() - 22, loc = eocd - 20, rec = loc - 56;
  EXPECT_NO_THROW(ZipArchive::open(mem(good)));
  expect_error([&] { ZipArchive::open(mem(patch(good, loc + 8, 1u << 30, 8))); }, {"ZIP64 locator", "outside"});
  expect_error([&] { ZipArchive::open(mem(patch(good, rec, 0, 4))); }, {"ZIP64 end record", "bad signature"});
  expect_error([&] { ZipArchive::open(mem(patch(good, rec + 4, 1u << 20, 8))); }, {"record size"});
  expect_error([&] { ZipArchive::open(mem(patch(good, rec + 48, 1ull << 62, 8))); }, {"outside the archive"});
  expect_error([&] { ZipArchive::open(mem(patch(good, rec + 32, 1ull << 40, 8))); }, {"entry counts"});
  expect_error([&] { ZipArchive::open(mem(patch(patch(good, rec + 24, 1ull << 40, 8), rec + 32, 1ull << 40, 8))); },
               {"limit"});
  // ZIP64 extra too short for the fields marked 0xFFFFFFFF.
  ZipBuilder c;
  c.add("a", "data").central_zip64 = true;
  std::string z = c.build();
  const std::size_t cd = 30 + 1 + 4;
  z = patch(z, cd + 46 + 1 + 2, 8, 2);  // extra data length 24 -> 8 (record still spans 24)
  expect_error([&] { ZipArchive::open(mem(z)); }, {"member 'a'"});
}

TEST(ZipHostile, EveryTruncationAndByteFlipIsHandled) {
  ZipBuilder b;
  b.zip64_end = true;
  b.add("r/data.pkl", "abc").fb_align = true;
  b.add("r/data/0", std::string(40, 'q')).descriptor = true;
  b.add("r/z", "zz").central_zip64 = true;
  const std::string good = b.build();
  for (std::size_t n = 0; n < good.size(); ++n) {
    try {
      const ZipArchive z = ZipArchive::open(mem(good.substr(0, n)));
      for (const auto& e : z.entries()) z.read(e, true);
    } catch (const Error&) {
    }
  }
  for (std::size_t i = 0; i < good.size(); ++i)
    for (unsigned char x : {0x01u, 0x80u, 0xFFu}) {
      std::string s = good;
      s[i] = static_cast<char>(static_cast<unsigned char>(s[i]) ^ x);
      try {
        const ZipArchive z = ZipArchive::open(mem(s));
        for (const auto& e : z.entries()) {
          const auto m = z.read(e, false);
          EXPECT_TRUE(m.bytes.size == 0 || (m.bytes.data >= z.file()->data() &&
                                            m.bytes.data + m.bytes.size <= z.file()->data() + z.file()->size()));
        }
      } catch (const Error&) {
      }
    }
}

// Issue #14: members sharing bytes (the overlapping-member zip bomb) are refused.
TEST(ZipHostile, OverlappingMembersAreRefused) {
  auto local = [](const std::string& name, const std::string& data) {
    std::string h;
    put32(h, 0x04034b50);
    put16(h, 20);
    put16(h, 0);
    put16(h, 0);
    put32(h, 0);
    put32(h, crc32_ref(data));
    put32(h, static_cast<std::uint32_t>(data.size()));
    put32(h, static_cast<std::uint32_t>(data.size()));
    put16(h, static_cast<std::uint32_t>(name.size()));
    put16(h, 0);
    return h + name + data;
  };
  auto central = [](const std::string& name, const std::string& data, std::uint32_t offset) {
    std::string c;
    put32(c, 0x02014b50);
    put32(c, 20 | (20u << 16));
    put16(c, 0);
    put16(c, 0);
    put32(c, 0);
    put32(c, crc32_ref(data));
    put32(c, static_cast<std::uint32_t>(data.size()));
    put32(c, static_cast<std::uint32_t>(data.size()));
    put16(c, static_cast<std::uint32_t>(name.size()));
    put32(c, 0);
    put32(c, 0);
    put32(c, 0);
    put32(c, offset);
    return c + name;
  };
  const std::string inner = local("b", "payload");          // b's header and data ...
  const std::string outer = local("a", inner);              // ... lie inside a's data
  const std::string cd = central("a", inner, 0) + central("b", "payload", 31);
  std::string eocd;
  put32(eocd, 0x06054b50);
  put32(eocd, 0);
  put16(eocd, 2);
  put16(eocd, 2);
  put32(eocd, static_cast<std::uint32_t>(cd.size()));
  put32(eocd, static_cast<std::uint32_t>(outer.size()));
  put16(eocd, 0);
  expect_error([&] { ZipArchive::open(mem(outer + cd + eocd, "overlap.zip")); },
               {"overlap.zip", "member 'b'", "at byte 31", "overlaps member 'a'"});
}

#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
// Issue #14: the archive's inflate budget is checked from the directory,
// before a byte is allocated or inflated.
TEST(ZipHostile, InflateBudgetCheckedBeforeInflating) {
  ZipBuilder b;
  b.add("x", std::string(1000, '\x5a')).method = 8;  // not even valid deflate: never inflated
  std::string bytes = b.build();
  const std::size_t cd = bytes.rfind("PK\x01\x02", std::string::npos);
  bytes = patch(bytes, cd + 24, 500000, 4);  // declared size: 500 x the deflated size
  tio::Limits lim;
  lim.ratio_free_bytes = 1024;
  lim.max_inflate_ratio = 200;
  const ZipArchive z = ZipArchive::open(mem(bytes, "bomb.zip"), lim);
  expect_error([&] { z.read(z.entries()[0]); }, {"bomb.zip", "member 'x'", "decompression bomb", "max_inflate_ratio = 200"});
  lim = {};
  lim.max_inflated_bytes = 100000;
  const ZipArchive z2 = ZipArchive::open(mem(bytes, "big.zip"), lim);
  expect_error([&] { z2.read(z2.entries()[0]); }, {"big.zip", "max_inflated_bytes = 100000"});
}
#endif

TEST(ZipDeflate, MethodsAndZlib) {
  // A deflate stream of "hello hello hello" made by zlib (raw, level 9).
  ZipBuilder b;
  auto& m = b.add("c", "");
  m.method = 12;  // bzip2
  const ZipArchive z = ZipArchive::open(mem(b.build(), "m.zip"));
  expect_error([&] { z.read(z.entries()[0]); }, {"m.zip", "member 'c'", "method 12"});
  expect_error([&] { z.data(z.entries()[0]); }, {"compressed"});
}

}  // namespace
