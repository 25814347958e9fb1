// The allow-list pickle machine: real CPython pickles, torch rebuild records,
// and hostile input (forbidden globals, truncation, caps, cycles).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tensordiff/io/detail/pickle.hpp"

namespace td = tensordiff;
namespace pk = tensordiff::detail::pickle;

namespace {

std::string unhex(const std::string& h) {
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

/// Hand assembler for pickle bytes.
struct P {
  std::string b;
  P() { b = "\x80\x02"; }
  P& op(int o) {
    b += static_cast<char>(o);
    return *this;
  }
  P& le(std::uint64_t v, int n) {
    for (int k = 0; k < n; ++k) b += static_cast<char>((v >> (8 * k)) & 0xff);
    return *this;
  }
  P& str(const std::string& s) { return op('X').le(s.size(), 4).raw(s); }
  P& raw(const std::string& s) {
    b += s;
    return *this;
  }
  P& global(const std::string& m, const std::string& n) { return op('c').raw(m + "\n" + n + "\n"); }
  P& i(std::int64_t v) {
    if (v >= 0 && v < 256) return op('K').le(static_cast<std::uint64_t>(v), 1);
    if (v >= 0 && v < 65536) return op('M').le(static_cast<std::uint64_t>(v), 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return op('J').le(static_cast<std::uint32_t>(v), 4);
    return op(0x8a).le(8, 1).le(static_cast<std::uint64_t>(v), 8);
  }
  P& put(int k) { return op('q').le(static_cast<std::uint64_t>(k), 1); }
  P& get(int k) { return op('h').le(static_cast<std::uint64_t>(k), 1); }
  P& ints(const std::vector<std::int64_t>& v) {
    op('(');
    for (auto x : v) i(x);
    return op('t');
  }
  P& odict() { return global("collections", "OrderedDict").op(')').op('R'); }
  /// ('storage', torch.<cls>, key, location, numel) BINPERSID
  P& storage(const std::string& cls, const std::string& key, std::int64_t numel, const std::string& loc = "cpu") {
    op('(').str("storage").global("torch", cls).str(key).str(loc).i(numel).op('t');
    return op('Q');
  }
  /// _rebuild_tensor_v2(storage, off, size, stride, rg, OrderedDict())
  P& v2(const std::string& cls, const std::string& key, std::int64_t numel, std::int64_t off,
        const std::vector<std::int64_t>& size, const std::vector<std::int64_t>& stride, bool rg = false) {
    global("torch._utils", "_rebuild_tensor_v2").op('(');
    storage(cls, key, numel).i(off).ints(size).ints(stride).op(rg ? 0x88 : 0x89).odict();
    return op('t').op('R');
  }
  P& stop() { return op('.'); }
};

pk::Result run(const std::string& bytes, pk::Limits lim = {}) {
  pk::Machine m(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "t.pkl", "data.pkl", 0, lim);
  return m.run();
}

/// Runs and returns the error (fails the test when none is thrown).
td::Error run_error(const std::string& bytes, pk::Limits lim = {}) {
  try {
    run(bytes, lim);
  } catch (const td::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error thrown";
  return td::Error(td::ErrorCategory::format, "none");
}

const pk::Value& entry(const pk::Value& d, const std::string& key) {
  for (const auto& [k, v] : d.entries)
    if (k->kind == pk::Kind::string && k->s == key) return *v;
  throw std::runtime_error("no key " + key);
}

}  // namespace

// pickle.dumps({...}, protocol=2) by CPython 3.11 (see the object below).
TEST(Pickle, CPythonProtocol2) {
  // {'a': [1, -2, 300, 70000, -(2**40), 2**63-1, -2**63], 'b': (1.5, -0.25, True, False, None),
  //  'c': 'h\u00e9llo', 'd': collections.OrderedDict([('x', 1), ('y', 2)])}
  const std::string b = unhex(
      "80027d71002858010000006171015d7102284b014afeffffff4d2c014a701101008a060000000000ff8a08ffffffffffffff7f8a08000000"
      "000000008065580100000062710328473ff800000000000047bfd000000000000088894e7471045801000000637105580600000068c3a96c"
      "6c6f7106580100000064710763636f6c6c656374696f6e730a4f726465726564446963740a71082952710928580100000078710a4b015801"
      "00000079710b4b0275752e");
  const pk::Result r = run(b);
  EXPECT_EQ(r.end, b.size());
  ASSERT_EQ(r.value->kind, pk::Kind::dict);
  ASSERT_EQ(r.value->entries.size(), 4u);
  EXPECT_EQ(r.value->entries[0].first->s, "a");
  EXPECT_EQ(r.value->entries[3].first->s, "d");
  const pk::Value& a = entry(*r.value, "a");
  ASSERT_EQ(a.kind, pk::Kind::list);
  const std::vector<std::int64_t> want = {1, -2, 300, 70000, -(std::int64_t{1} << 40), INT64_MAX, INT64_MIN};
  ASSERT_EQ(a.items.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(a.items[k]->i, want[k]) << k;
  const pk::Value& t = entry(*r.value, "b");
  ASSERT_EQ(t.kind, pk::Kind::tuple);
  EXPECT_EQ(t.items[0]->f, 1.5);
  EXPECT_EQ(t.items[1]->f, -0.25);
  EXPECT_TRUE(t.items[2]->b);
  EXPECT_FALSE(t.items[3]->b);
  EXPECT_EQ(t.items[4]->kind, pk::Kind::none);
  EXPECT_EQ(entry(*r.value, "c").s, "h\xc3\xa9llo");
  const pk::Value& d = entry(*r.value, "d");
  EXPECT_TRUE(d.ordered);
  ASSERT_EQ(d.entries.size(), 2u);
  EXPECT_EQ(d.entries[1].first->s, "y");
  EXPECT_EQ(d.entries[1].second->i, 2);
}

// pickle.dumps({...}, protocol=4): FRAME, MEMOIZE, SHORT_BINUNICODE, bytes, sets.
TEST(Pickle, CPythonProtocol4) {
  // {'a': [1, -2, 300, 70000, -(2**40)], 'b': (1.5, None), 'c': 'x' * 300, 'e': b'\x00\x01', 'f': {1, 2}}
  std::string xs;
  for (int k = 0; k < 300; ++k) xs += "78";
  const std::string b = unhex(
      "8004957f010000000000007d94288c0161945d94284b014afeffffff4d2c014a701101008a060000000000ff658c016294473ff800000000"
      "00004e86948c016394582c010000" + xs + "948c01659443020001948c0166948f94284b014b0290752e");
  const pk::Result r = run(b);
  ASSERT_EQ(r.value->kind, pk::Kind::dict);
  EXPECT_EQ(entry(*r.value, "a").items[4]->i, -(std::int64_t{1} << 40));
  EXPECT_EQ(entry(*r.value, "c").s, std::string(300, 'x'));
  EXPECT_EQ(entry(*r.value, "e").kind, pk::Kind::bytes);
  EXPECT_EQ(entry(*r.value, "e").s, std::string("\x00\x01", 2));
  EXPECT_EQ(entry(*r.value, "f").kind, pk::Kind::set);
  EXPECT_EQ(entry(*r.value, "f").items.size(), 2u);
}

TEST(Pickle, TensorRecordV2) {
  // t = torch.arange(20.).reshape(4, 5)[1:, 1:3]: offset 6, size (3, 2), stride (5, 1)
  P p;
  p.v2("FloatStorage", "0", 20, 6, {3, 2}, {5, 1}, true).stop();
  const pk::Result r = run(p.b);
  ASSERT_EQ(r.value->kind, pk::Kind::tensor);
  const pk::TensorRecord& t = *r.value->tensor;
  EXPECT_EQ(t.dtype, td::DType::float32);
  EXPECT_EQ(t.storage_offset, 6);
  EXPECT_EQ(t.shape, (td::Shape{3, 2}));
  EXPECT_EQ(t.strides, (td::Strides{5, 1}));
  EXPECT_TRUE(t.requires_grad);
  EXPECT_FALSE(t.is_parameter);
  EXPECT_EQ(t.storage_ref().key, "0");
  EXPECT_EQ(t.storage_ref().nbytes, 80u);
  EXPECT_EQ(t.rebuild, "torch._utils._rebuild_tensor_v2");
}

TEST(Pickle, SharedStorageAndMemoAliasing) {
  // [t, t, u] where t and u view storage "0"; t is memoised and fetched again.
  P p;
  p.op(']').put(0).op('(');
  p.v2("FloatStorage", "0", 10, 0, {5}, {1}).put(1);
  p.get(1);
  p.v2("FloatStorage", "0", 10, 5, {5}, {1});
  p.op('e').stop();
  const pk::Result r = run(p.b);
  ASSERT_EQ(r.value->items.size(), 3u);
  EXPECT_EQ(r.value->items[0].get(), r.value->items[1].get());  // the same object, not a copy
  EXPECT_EQ(r.value->items[0]->tensor->storage.get(), r.value->items[2]->tensor->storage.get());
  EXPECT_EQ(r.value->items[2]->tensor->storage_offset, 5);
}

TEST(Pickle, StrideZeroAndEmpty) {
  P p;
  p.op('(').v2("LongStorage", "0", 3, 0, {4, 3}, {0, 1});  // expand
  p.v2("LongStorage", "1", 0, 0, {2, 0, 3}, {0, 3, 1});     // empty storage
  p.v2("DoubleStorage", "2", 1, 0, {}, {});                 // 0-d
  p.op('t').stop();
  const pk::Result r = run(p.b);
  ASSERT_EQ(r.value->items.size(), 3u);
  EXPECT_EQ(r.value->items[0]->tensor->strides, (td::Strides{0, 1}));
  EXPECT_EQ(r.value->items[1]->tensor->shape, (td::Shape{2, 0, 3}));
  EXPECT_TRUE(r.value->items[2]->tensor->shape.empty());
}

TEST(Pickle, V3Parameter_FromType_Npu) {
  P p;
  p.op('(');
  // _rebuild_tensor_v3(UntypedStorage(8 bytes), 0, (4,), (1,), False, OrderedDict(), torch.uint16)
  p.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("UntypedStorage", "0", 8).i(0).ints({4}).ints({1});
  p.op(0x89).odict().global("torch", "uint16").op('t').op('R');
  // _rebuild_parameter(v2 tensor, True, OrderedDict())
  p.global("torch._utils", "_rebuild_parameter").op('(').v2("HalfStorage", "1", 2, 0, {2}, {1}).op(0x88).odict().op('t').op('R');
  // _rebuild_from_type_v2(_rebuild_tensor_v2, torch.Tensor, (args), {'attr': 1})
  p.global("torch._tensor", "_rebuild_from_type_v2").op('(').global("torch._utils", "_rebuild_tensor_v2").global("torch", "Tensor");
  p.op('(').storage("BFloat16Storage", "2", 3).i(0).ints({3}).ints({1}).op(0x89).odict().op('t');
  p.op('}').str("attr").i(1).op('s').op('t').op('R');
  // torch_npu _rebuild_npu_tensor(..., 2)
  p.global("torch_npu.utils.storage", "_rebuild_npu_tensor").op('(').storage("IntStorage", "3", 6, "npu:0").i(0).ints({2, 3}).ints({3, 1});
  p.op(0x89).odict().i(2).op('t').op('R');
  p.op('t').stop();
  const pk::Result r = run(p.b);
  ASSERT_EQ(r.value->items.size(), 4u);
  EXPECT_EQ(r.value->items[0]->tensor->dtype, td::DType::uint16);
  EXPECT_TRUE(r.value->items[0]->tensor->storage_ref().untyped);
  EXPECT_TRUE(r.value->items[1]->tensor->is_parameter);
  EXPECT_TRUE(r.value->items[1]->tensor->requires_grad);
  EXPECT_EQ(r.value->items[1]->tensor->dtype, td::DType::float16);
  EXPECT_EQ(r.value->items[2]->tensor->dtype, td::DType::bfloat16);
  EXPECT_EQ(r.value->items[3]->tensor->npu_format, 2);
  EXPECT_EQ(r.value->items[3]->tensor->storage_ref().location, "npu:0");
}

TEST(Pickle, StateDictBuild) {
  // OrderedDict with a BUILD of {'_metadata': OrderedDict()} at the end (nn.Module.state_dict()).
  P p;
  p.odict().put(0).op('(').str("w").v2("FloatStorage", "0", 1, 0, {1}, {1}).op('u');
  p.op('}').str("_metadata").odict().op('s').op('b').stop();
  const pk::Result r = run(p.b);
  ASSERT_EQ(r.value->kind, pk::Kind::dict);
  EXPECT_EQ(r.value->entries.size(), 1u);
}

// --- hostile input ---------------------------------------------------------------------

TEST(PickleHostile, ForbiddenGlobalStopsAtOpcode) {
  P p;
  p.global("posix", "system").str("echo pwned").op(0x85).op('R').stop();
  const td::Error e = run_error(p.b);
  EXPECT_EQ(e.category(), td::ErrorCategory::security);
  EXPECT_NE(std::string(e.what()).find("forbidden global 'posix.system'"), std::string::npos) << e.what();
  EXPECT_EQ(e.context().offset, 2u);  // right after PROTO
  EXPECT_EQ(e.context().field, "data.pkl opcode GLOBAL");
  EXPECT_EQ(e.context().file, "t.pkl");
}

TEST(PickleHostile, ForbiddenStackGlobal) {
  P p;
  p.op(0x8c).le(8, 1).raw("builtins").op(0x8c).le(4, 1).raw("eval").op(0x93).stop();
  const td::Error e = run_error(p.b);
  EXPECT_EQ(e.category(), td::ErrorCategory::security);
  EXPECT_NE(std::string(e.what()).find("'builtins.eval'"), std::string::npos) << e.what();
  EXPECT_EQ(e.context().offset, 2u + 10 + 6);
}

TEST(PickleHostile, OtherForbiddenGlobals) {
  for (auto [m, n] : std::vector<std::pair<std::string, std::string>>{
           {"__builtin__", "set"}, {"__main__", "MyTensor"}, {"torch.nn.modules.linear", "Linear"},
           {"numpy.core.multiarray", "_reconstruct"}, {"torch", "load"}, {"torch._utils", "_rebuild_tensor_v9"},
           {"collections", "OrderedDict\x01"}}) {
    P p;
    p.global(m, n).stop();
    const td::Error e = run_error(p.b);
    EXPECT_EQ(e.category(), td::ErrorCategory::security) << m << "." << n;
  }
  P q;
  q.global("torch._utils", "_rebuild_qtensor").stop();
  EXPECT_EQ(run_error(q.b).category(), td::ErrorCategory::unsupported);
  P s;
  s.global("torch", "QInt8Storage").stop();
  EXPECT_EQ(run_error(s.b).category(), td::ErrorCategory::unsupported);
}

TEST(PickleHostile, ForbiddenGlobalInsideValidDict) {
  P p;
  p.op('}').put(0).op('(').str("w").v2("FloatStorage", "0", 1, 0, {1}, {1}).str("x");
  const std::size_t at = p.b.size();
  p.global("builtins", "eval").str("1").op(0x85).op('R').op('u').stop();
  const td::Error e = run_error(p.b);
  EXPECT_EQ(e.context().offset, at);
}

TEST(PickleHostile, ReduceOnNonCallable) {
  P p;
  p.global("torch", "FloatStorage").op(')').op('R').stop();
  const td::Error e = run_error(p.b);
  EXPECT_EQ(e.category(), td::ErrorCategory::security);
  EXPECT_NE(std::string(e.what()).find("REDUCE on 'torch.FloatStorage'"), std::string::npos) << e.what();
  P q;
  q.str("posix").op(')').op('R').stop();
  EXPECT_EQ(run_error(q.b).category(), td::ErrorCategory::format);
  P od;  // OrderedDict with arguments could smuggle a callable's result
  od.global("collections", "OrderedDict").op(']').op(0x85).op('R').stop();
  EXPECT_EQ(run_error(od.b).category(), td::ErrorCategory::format);
}

TEST(PickleHostile, TruncationAndUnknownOpcodes) {
  P p;
  p.op('X').le(1000, 4).raw("abc");
  td::Error e = run_error(p.b);
  EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  EXPECT_EQ(e.context().field, "data.pkl opcode BINUNICODE");
  // a length of 2^64-1 must not allocate
  P big;
  big.op(0x8d).le(~std::uint64_t{0}, 8).stop();
  EXPECT_NE(std::string(run_error(big.b).what()).find("truncated"), std::string::npos);
  P nostop;
  nostop.i(1);
  EXPECT_NE(std::string(run_error(nostop.b).what()).find("no STOP"), std::string::npos);
  // every cut of a valid tensor pickle fails cleanly
  P full;
  full.v2("FloatStorage", "0", 20, 6, {3, 2}, {5, 1}).stop();
  for (std::size_t n = 0; n < full.b.size(); ++n) {
    const std::string cut = full.b.substr(0, n);
    EXPECT_THROW(run(cut), td::Error) << n;
  }
  P unk;
  unk.op(0xff).stop();
  e = run_error(unk.b);
  EXPECT_EQ(e.category(), td::ErrorCategory::unsupported);
  EXPECT_NE(std::string(e.what()).find("0xff"), std::string::npos);
  for (int op : std::initializer_list<int>{0x81, 0x92, 0x69, 0x6f, 0x50, 0x82, 0x97, 'I', 'S', 'V', 'F', 'L', '0', '2', 'd', 'l'}) {
    P q;
    q.op('N').op('N').op(op).stop();
    EXPECT_EQ(run_error(q.b).category(), td::ErrorCategory::unsupported) << op;
  }
  P proto;
  proto.b = "\x80\x06N.";
  EXPECT_EQ(run_error(proto.b).category(), td::ErrorCategory::unsupported);
}

TEST(PickleHostile, MemoAndLongs) {
  P p;
  p.get(7).stop();
  EXPECT_NE(std::string(run_error(p.b).what()).find("memo index 7"), std::string::npos);
  P l1;
  l1.op(0x8a).le(9, 1).raw(std::string(9, '\x01')).stop();
  EXPECT_NE(std::string(run_error(l1.b).what()).find("9 bytes"), std::string::npos);
  P l4;
  l4.op(0x8b).le(0xffffffffu, 4).stop();
  EXPECT_EQ(run_error(l4.b).category(), td::ErrorCategory::unsupported);
  P neg;  // LONG1 of 3 bytes: 0x800000 is -8388608
  neg.op(0x8a).le(3, 1).le(0x800000, 3).stop();
  EXPECT_EQ(run(neg.b).value->i, -8388608);
  pk::Limits lim;
  lim.max_memo = 4;
  P m;
  for (int k = 0; k < 5; ++k) m.i(k).put(k);
  m.stop();
  EXPECT_EQ(run_error(m.b, lim).category(), td::ErrorCategory::security);
}

TEST(PickleHostile, Caps) {
  pk::Limits lim;
  lim.max_stack = 100;
  P s;
  for (int k = 0; k < 101; ++k) s.op('N');
  s.stop();
  EXPECT_EQ(run_error(s.b, lim).category(), td::ErrorCategory::security);
  // 2000 nested lists exceed the default depth of 1000
  P d;
  for (int k = 0; k < 2000; ++k) d.op(']');
  for (int k = 0; k < 1999; ++k) d.op('a');
  d.stop();
  const td::Error e = run_error(d.b);
  EXPECT_EQ(e.category(), td::ErrorCategory::security);
  EXPECT_NE(std::string(e.what()).find("nested deeper"), std::string::npos) << e.what();
  pk::Limits small;
  small.max_pickle_bytes = 8;
  P z;
  z.str("0123456789").stop();
  EXPECT_EQ(run_error(z.b, small).category(), td::ErrorCategory::security);
  pk::Limits vals;
  vals.max_values = 10;
  P v;
  v.op(']').op('(');
  for (int k = 0; k < 20; ++k) v.i(k);
  v.op('e').stop();
  EXPECT_EQ(run_error(v.b, vals).category(), td::ErrorCategory::security);
}

TEST(PickleHostile, NoCycles) {
  P self;
  self.op(']').put(0).get(0).op('a').stop();
  EXPECT_THROW(run(self.b), td::Error);
  // a = []; b = [a]; a.append(b) would be a cycle: a is sealed once inside b
  P two;
  two.op(']').put(0).op(']').get(0).op('a').op('a').stop();
  EXPECT_THROW(run(two.b), td::Error);
  P d;  // dict placed in a tuple, then modified through the memo
  d.op('}').put(0).op(0x85).get(0).str("k").i(1).op('s').stop();
  EXPECT_THROW(run(d.b), td::Error);
}

TEST(PickleHostile, BadTensorRecords) {
  auto err = [](const P& p) { return std::string(run_error(p.b).what()); };
  P oob;  // view_out_of_bounds: last element 6 + 2*5 + 2 = 18 >= 12
  oob.v2("FloatStorage", "0", 12, 6, {3, 3}, {5, 1}).stop();
  EXPECT_NE(err(oob).find("reaches past"), std::string::npos);
  P neg;
  neg.v2("FloatStorage", "0", 12, 0, {3}, {-1}).stop();
  EXPECT_NE(err(neg).find("negative"), std::string::npos);
  P negoff;
  negoff.v2("FloatStorage", "0", 12, -1, {3}, {1}).stop();
  EXPECT_NE(err(negoff).find("negative storage_offset"), std::string::npos);
  P ovf;  // prod(size) beyond 2^63
  ovf.v2("FloatStorage", "0", 12, 0, {INT64_MAX, 4}, {1, 1}).stop();
  EXPECT_THROW(run(ovf.b), td::Error);
  P bigstride;  // (size-1)*stride far beyond the storage, no wraparound
  bigstride.v2("FloatStorage", "0", 12, 0, {3, 2}, {INT64_MAX, INT64_MAX}).stop();
  EXPECT_NE(err(bigstride).find("reaches past"), std::string::npos);
  P bignumel;
  bignumel.v2("DoubleStorage", "0", INT64_MAX, 0, {1}, {1}).stop();
  EXPECT_NE(err(bignumel).find("overflows"), std::string::npos);
  P rank;
  rank.v2("FloatStorage", "0", 12, 0, {3, 4}, {1}).stop();
  EXPECT_NE(err(rank).find("dimensions"), std::string::npos);
  P mix;  // one key, two classes
  mix.op('(').v2("FloatStorage", "0", 4, 0, {4}, {1}).v2("LongStorage", "0", 4, 0, {4}, {1}).op('t').stop();
  EXPECT_NE(err(mix).find("is used as FloatStorage(4) and as LongStorage(4)"), std::string::npos) << err(mix);
  P pid;  // persistent id not shaped like ('storage', ...)
  pid.op('(').str("module").global("torch", "FloatStorage").str("0").str("cpu").i(1).op('t').op('Q').stop();
  EXPECT_NE(err(pid).find("persistent id"), std::string::npos);
  P v3typed;  // v3 dtype must match a typed storage
  v3typed.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("FloatStorage", "0", 2).i(0).ints({2}).ints({1});
  v3typed.op(0x89).odict().global("torch", "int32").op('t').op('R').stop();
  EXPECT_NE(err(v3typed).find("tensor dtype is int32"), std::string::npos);
  P fp8;
  fp8.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("UntypedStorage", "0", 2).i(0).ints({2}).ints({1});
  fp8.op(0x89).odict().global("torch", "float8_e4m3fn").op('t').op('R').stop();
  EXPECT_EQ(run(fp8.b).value->tensor->dtype, td::DType::float8_e4m3fn);  // a real dtype
  EXPECT_EQ(run(fp8.b).value->tensor->opaque_dtype, "");
  P fp8t;  // torch >= 2.1's typed storage class
  fp8t.global("torch._utils", "_rebuild_tensor_v2").op('(').storage("Float8_e5m2Storage", "0", 2).i(0).ints({2}).ints({1});
  fp8t.op(0x89).odict().op('t').op('R').stop();
  EXPECT_EQ(run(fp8t.b).value->tensor->dtype, td::DType::float8_e5m2);
  P fnuz;  // fnuz variants stay opaque bytes (refused by the pt reader unless allow_opaque)
  fnuz.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("UntypedStorage", "0", 2).i(0).ints({2}).ints({1});
  fnuz.op(0x89).odict().global("torch", "float8_e4m3fnuz").op('t').op('R').stop();
  EXPECT_EQ(run(fnuz.b).value->tensor->dtype, td::DType::uint8);
  EXPECT_EQ(run(fnuz.b).value->tensor->opaque_dtype, "float8_e4m3fnuz");
  P q4;
  q4.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("UntypedStorage", "0", 2).i(0).ints({2}).ints({1});
  q4.op(0x89).odict().global("torch", "quint4x2").op('t').op('R').stop();
  EXPECT_EQ(run_error(q4.b).category(), td::ErrorCategory::unsupported);
  P odd;  // untyped storage of 5 bytes viewed as int16
  odd.global("torch._utils", "_rebuild_tensor_v3").op('(').storage("UntypedStorage", "0", 5).i(0).ints({2}).ints({1});
  odd.op(0x89).odict().global("torch", "int16").op('t').op('R').stop();
  EXPECT_NE(err(odd).find("not a multiple"), std::string::npos);
  P subclass;  // _rebuild_from_type_v2 with a type other than torch.Tensor
  subclass.global("torch._tensor", "_rebuild_from_type_v2").op('(').global("torch._utils", "_rebuild_tensor_v2");
  subclass.global("torch.nn.parameter", "Parameter").op(')').op('}').op('t').op('R').stop();
  EXPECT_EQ(run_error(subclass.b).category(), td::ErrorCategory::unsupported);
  P build;  // BUILD on a list
  build.op(']').op('}').op('b').stop();
  EXPECT_EQ(run_error(build.b).category(), td::ErrorCategory::security);
  P key;  // dict keys must be str or int
  key.op('}').op(')').i(1).op('s').stop();
  EXPECT_NE(err(key).find("dict key"), std::string::npos);
  P utf;
  utf.str("\xff\xfe").stop();
  EXPECT_NE(err(utf).find("UTF-8"), std::string::npos);
}
