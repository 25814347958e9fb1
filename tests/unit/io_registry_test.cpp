// io/registry.hpp + io/mapped_file.hpp: detection, plug-ins, selectors,
// errors that name the file, and the lifetime of mapped bytes.
#include <tensordiff/io/registry.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "io_test_util.hpp"

namespace {
using namespace tensordiff;
using namespace iotest;
namespace tio = tensordiff::io;

// A downstream format: "TDRAW" + u8 count of float32 values.
class RawFormat final : public tio::Format {
 public:
  std::string_view name() const override { return "raw"; }
  tio::Match recognises(const tio::FileProbe& p) const override {
    if (p.starts_with("TDRAW")) return tio::Match::magic;
    return p.extension == ".raw" ? tio::Match::extension : tio::Match::no;
  }
  std::vector<tio::LoadedTensor> load(const tio::FileHandle& f, const tio::LoadOptions&) const override {
    if (f->size() < 6 || std::memcmp(f->data(), "TDRAW", 5) != 0)
      throw Error(ErrorCategory::format, "bad magic", {f->path(), "magic", 0});
    const auto n = std::to_integer<std::int64_t>(f->data()[5]);
    TensorView v(f->data() + 8, DType::float32, {n});
    v.check_within(f->size() - 8, {f->path(), "data", 8});
    std::vector<tio::LoadedTensor> out(1);
    out[0].path = "values";
    out[0].tensor = tio::detail::adopt_or_copy(f, v);
    return out;
  }
};

TEST(Registry, BuiltinsAreRegistered) {
  const auto names = tio::Registry::global().names();
  EXPECT_NE(std::find(names.begin(), names.end(), "npy"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "npz"), names.end());
  EXPECT_NE(tio::Registry::global().find("npy"), nullptr);
  EXPECT_EQ(tio::Registry::global().find("nope"), nullptr);
}

TEST(Registry, DetectionByMagicBeatsExtension) {
  // An npy file named .npz is still read as npy.
  const std::string bytes = npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  TempFile tmp("misnamed.npz", bytes);
  const auto ts = tio::load(tmp.path);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].path, "");
  // And a forced format reads it as what it is told (and fails naming it).
  tio::LoadOptions o;
  o.format = "npz";
  expect_error([&] { tio::load(tmp.path, o); }, {tmp.path, "end-of-central-directory"});
  o.format = "nonsense";
  expect_error([&] { tio::load(tmp.path, o); }, {tmp.path, "unknown format 'nonsense'", "npy"});
}

TEST(Registry, PluginFormat) {
  tio::Registry reg;
  reg.add(std::make_unique<RawFormat>());
  std::string bytes("TDRAW\x02\0\0", 8);
  const std::vector<float> v{1.25f, -3.0f};
  bytes += raw_bytes(v);
  TempFile tmp("plugin.bin", bytes);
  const auto ts = reg.load(tmp.path);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].path, "values");
  EXPECT_EQ(element(ts[0].tensor.view(), 1), -3.0L);
  // Errors from a plug-in name the file (added by the registry if missing).
  TempFile bad("plugin_bad.raw", std::string("TDRAW\x09\0\0", 8));
  expect_error([&] { reg.load(bad.path); }, {bad.path, "needs bytes"});
  // Unknown content: the error lists the known formats.
  TempFile junk("junk.xyz", "hello");
  expect_error([&] { reg.load(junk.path); }, {junk.path, "unrecognised", "raw"});
  // Re-adding a name replaces the format.
  reg.add(std::make_unique<RawFormat>());
  EXPECT_EQ(reg.names().size(), 1u);
  EXPECT_THROW(reg.add(nullptr), Error);
}

TEST(Registry, LoadOneAndSelectors) {
  EXPECT_EQ(tio::split_selector("a/b.npz::x").first, "a/b.npz");
  EXPECT_EQ(*tio::split_selector("a/b.npz::x").second, "x");
  EXPECT_FALSE(tio::split_selector("a::b/c.npy").second.has_value());  // "::" in a directory name
  EXPECT_EQ(*tio::split_selector("f.pt::layer.0::w").second, "layer.0::w");
  const std::string f = data_dir() + "/npy/float32_2x3x4.npy";
  EXPECT_EQ(tio::load_one(f).tensor.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(tio::load_one(f + "::").tensor.shape(), (Shape{2, 3, 4}));
  expect_error([&] { tio::load_one(f + "::x"); }, {"no tensor with path 'x'"});
}

TEST(MappedFile, EmptyMissingDirectoryAndPolicies) {
  TempFile empty("empty.npy", "");
  for (tio::MapPolicy p : {tio::MapPolicy::automatic, tio::MapPolicy::always, tio::MapPolicy::never}) {
    const auto f = tio::MappedFile::open(empty.path, p);
    EXPECT_EQ(f->size(), 0u);
    EXPECT_NE(f->data(), nullptr);
    EXPECT_FALSE(f->is_mapped());
  }
  expect_error([&] { tio::load(empty.path); }, {empty.path, "too short"});
  expect_error([&] { tio::MappedFile::open("/nonexistent/x.npy"); }, {"/nonexistent/x.npy", "cannot open"});
  expect_error([&] { tio::MappedFile::open(data_dir()); }, {data_dir(), "directory"});
  expect_error([&] { tio::MappedFile::open("/dev/zero"); }, {"/dev/zero", "is a device"});
  const std::string file = data_dir() + "/npy/float32_256x256.npy";
  const auto m = tio::MappedFile::open(file, tio::MapPolicy::always);
  const auto r = tio::MappedFile::read_file(file);
  EXPECT_TRUE(m->is_mapped());
  EXPECT_FALSE(r->is_mapped());
  ASSERT_EQ(m->size(), r->size());
  EXPECT_EQ(std::memcmp(m->data(), r->data(), m->size()), 0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r->data()) % 64, 0u);
  const auto a = tio::MappedFile::open(file, tio::MapPolicy::automatic, /*map_threshold=*/1);
  EXPECT_TRUE(a->is_mapped());
  const auto s = tio::MappedFile::open(file, tio::MapPolicy::automatic, /*map_threshold=*/1ull << 40);
  EXPECT_FALSE(s->is_mapped());
}

// Issue #14: a FIFO is refused from its type before open() could block;
// with allow_pipes it is read as a stream (no writer: empty, at once).
TEST(MappedFile, FifosNeverBlock) {
  TempFile dummy("fifo_dir_marker", "");
  const std::string fifo = dummy.path + ".fifo.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_error([&] { tio::MappedFile::open(fifo); }, {fifo, "is a FIFO"});
  expect_error([&] { tio::load(fifo); }, {fifo, "is a FIFO"});
  EXPECT_EQ(tio::MappedFile::open(fifo, tio::MapPolicy::automatic, tio::MappedFile::default_map_threshold, true)->size(), 0u);
  ::unlink(fifo.c_str());
}

// Issue #14: bool bytes other than 0/1 are True, and hash as the 0/1 tensor does.
TEST(Registry, BoolBytesAreNormalised) {
  TempFile odd("odd_bool.npy", npy_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", std::string("\x00\x02\xff\x01", 4)));
  const auto t = tio::load_one(odd.path);
  const auto* b = reinterpret_cast<const unsigned char*>(t.tensor.view().data);
  EXPECT_EQ(std::vector<unsigned>(b, b + 4), (std::vector<unsigned>{0, 1, 1, 1}));
  EXPECT_EQ(t.meta.extra.count("bool_normalised"), 1u);
  const auto direct = tio::read_npy(odd.path);
  const auto* d = reinterpret_cast<const unsigned char*>(direct.tensor.view().data);
  EXPECT_EQ(std::vector<unsigned>(d, d + 4), (std::vector<unsigned>{0, 1, 1, 1}));
}

// Issue #14: hostile names and reasons cannot reach the terminal raw, and stay short.
TEST(ErrorText, OneEscapedTruncatedLine) {
  const Error e(ErrorCategory::format, "bad descr '" + std::string(60000, 'x') + "'", {"a\x1b[2J\nb.npy", "descr", 3});
  const std::string w = e.what();
  EXPECT_EQ(w.find('\x1b'), std::string::npos);
  EXPECT_EQ(w.find('\n'), std::string::npos);
  EXPECT_EQ(w.rfind("a\\x1b[2J\\nb.npy: descr at byte 3: bad descr 'xxx", 0), 0u) << w.substr(0, 80);
  EXPECT_NE(w.find("... (57964 more bytes)"), std::string::npos) << w.substr(w.size() - 60);
  EXPECT_LT(w.size(), 2200u);
  EXPECT_EQ(e.reason().size(), 60012u);  // the reason itself is kept whole
}

TEST(MappedFile, ByteSpanSubIsOverflowSafe) {
  const char buf[10] = {};
  const tio::ByteSpan s{reinterpret_cast<const std::byte*>(buf), 10};
  EXPECT_TRUE(s.contains(0, 10));
  EXPECT_TRUE(s.contains(10, 0));
  EXPECT_FALSE(s.contains(11, 0));
  EXPECT_FALSE(s.contains(5, UINT64_MAX));
  EXPECT_FALSE(s.contains(UINT64_MAX, 2));
  EXPECT_EQ(s.sub(8, 4).size, 0u);
  EXPECT_EQ(s.sub(8, 2).size, 2u);
}

}  // namespace
