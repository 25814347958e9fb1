// io::DumpWriter: round trip through io::load_dump_folder (every leaf kind,
// three tasks, bf16/f16/f32/int/bool, both frameworks), byte-level agreement
// with dumps made by msprobe 26.0's own dumper (tests/data/msprobe_dumper,
// see generate_msprobe_dumper.py), crash safety, threads.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <tensordiff/io/detail/zip.hpp>
#include <tensordiff/io/dump_from_folder.hpp>
#include <tensordiff/io/dump_json.hpp>
#include <tensordiff/io/dump_writer.hpp>
#include <tensordiff/io/registry.hpp>

#include "io_test_util.hpp"

namespace td = tensordiff;
namespace io = tensordiff::io;
namespace fs = std::filesystem;
using J = nlohmann::ordered_json;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/td_dump_writer_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Independent reference statistics: long double over the decoded elements.
struct RefStats {
  long double max = -INFINITY, min = INFINITY, sum = 0, sumsq = 0;
  bool nan = false;
};
RefStats ref_stats(const td::TensorView& v) {
  RefStats r;
  for (std::uint64_t i = 0; i < v.numel(); ++i) {
    const long double x = iotest::element(v, i);
    if (std::isnan(x)) r.nan = true;
    r.max = std::max(r.max, x);
    r.min = std::min(r.min, x);
    r.sum += x;
    r.sumsq += x * x;
  }
  return r;
}
double round_to(long double x, td::DType t) {
  switch (t) {
    case td::DType::bfloat16: return double(td::bfloat16(float(x)));
    case td::DType::float16: return double(td::float16(float(x)));
    case td::DType::float32: return double(float(x));
    default: return double(x);
  }
}

const io::DumpNode* child(const io::DumpNode& n, const std::string& key) {
  for (const auto& [k, c] : n.children)
    if (k == key) return &c;
  return nullptr;
}
const io::DumpNode* section(const io::DumpEntry& e, const std::string& key) {
  for (const auto& [k, c] : e.sections)
    if (k == key) return &c;
  return nullptr;
}
const io::DumpEntry* entry(const io::DumpFile& d, const std::string& name) {
  for (const auto& e : d.entries)
    if (e.name == name) return &e;
  return nullptr;
}

// ------------------------------------------------------------------ round trip

struct Tensors {
  std::vector<float> f32{1.5f, -2.25f, 3.0f, 0.125f};
  std::vector<td::bfloat16> bf16;
  std::vector<td::float16> f16;
  std::vector<std::int32_t> i32{7, -3, 12};
  std::vector<std::int64_t> i64{(std::int64_t(1) << 60) + 1};  // beyond 2^53: Max/Min must stay exact
  std::vector<std::uint8_t> b{1, 0, 1, 1};
  std::vector<float> nanf{1.0f, NAN, 2.0f};
  Tensors() {
    for (float x : {0.1f, -1.7f, 2.3f, 4.9f, -0.02f, 8.5f}) bf16.emplace_back(x);
    for (float x : {0.333f, -65504.0f, 1e-6f, 2.5f}) f16.emplace_back(x);
  }
  td::TensorView v_f32() const { return td::TensorView::of(f32.data(), {2, 2}); }
  td::TensorView v_bf16() const { return td::TensorView::of(bf16.data(), {2, 3}); }
  td::TensorView v_f16() const { return td::TensorView::of(f16.data(), {4}); }
  td::TensorView v_i32() const { return td::TensorView::of(i32.data(), {3}); }
  td::TensorView v_i64_0d() const { return td::TensorView::of(i64.data(), {}); }
  td::TensorView v_bool() const { return td::TensorView(b.data(), td::DType::boolean, {4}); }
  td::TensorView v_nan() const { return td::TensorView::of(nanf.data(), {3}); }
  td::TensorView v_empty() const { return td::TensorView::of(f32.data(), {0, 2}); }
  td::TensorView v_strided() const { return td::TensorView::of(f32.data(), {2}, {2}); }  // 1.5, 3.0
};

void write_model(io::DumpWriter& w, const Tensors& t) {
  auto m = w.module("net.fc", "Linear");
  m.stack({"File engine.cpp, line 10, in forward, \n fc(x)"});
  {
    auto f = w.api("Functional.linear");
    f.input(t.v_bf16())
        .input(io::DumpValue(t.v_f32(), true))
        .input(io::DumpValue::list({t.v_f16(), nullptr, io::DumpValue::list({t.v_i32()})}))
        .input(io::DumpValue::dict({{"mask", t.v_bool()}, {"n", 3}}))
        .kwarg("scale", 0.5)
        .kwarg("flag", true)
        .kwarg("mode", "fast")
        .kwarg("out", nullptr)
        .kwarg("dtype", io::DumpValue::torch_dtype("torch.float16"))
        .kwarg("size", io::DumpValue::torch_size({2, 3}))
        .kwarg("device", io::DumpValue::device("cuda:0"))
        .kwarg("memory_format", io::DumpValue::memory_format("contiguous_format"))
        .kwarg("index", io::DumpValue::list({io::DumpValue::slice(std::nullopt, 2), io::DumpValue::ellipsis()}))
        .kwarg("np", io::DumpValue::numpy_scalar("float32", 0.25))
        .kwarg("bias", t.v_strided())
        .output(t.v_i64_0d())
        .output(t.v_nan())
        .output(t.v_empty());
    f.stack({"File engine.cpp, line 20, in linear, \n y = x W"});
  }
  m.input(t.v_bf16()).parameter("weight", t.v_f32()).output(t.v_nan());
  m.commit();
  w.api("Functional.linear", io::Direction::backward).input(t.v_f32()).output(t.v_bf16()).output(nullptr);
  w.parameters_grad("net.fc", "Linear", {{"weight", t.v_f32()}, {"bias", t.v_f16()}});
}

// Checks one tensor leaf against the view it was written from.
void expect_tensor_leaf(const io::DumpFile& d, const io::DumpLeaf& l, const td::TensorView& v, io::DumpTask task,
                        bool ms, std::optional<bool> rg = std::nullopt) {
  SCOPED_TRACE(l.pointer);
  ASSERT_EQ(l.kind, io::DumpLeaf::Kind::tensor);
  EXPECT_EQ(l.type, ms ? "mindspore.Tensor" : "torch.Tensor");
  EXPECT_EQ(l.dtype, io::detail::framework_dtype_name(v.dtype, ms));
  ASSERT_TRUE(l.shape);
  EXPECT_EQ(*l.shape, v.shape);
  if (ms) {
    EXPECT_TRUE(l.requires_grad.is_null());
  } else {
    EXPECT_EQ(l.requires_grad.kind == io::JsonScalar::Kind::boolean && l.requires_grad.boolean, rg.value_or(false));
  }
  const RefStats r = ref_stats(v);
  const bool floating = td::is_floating(v.dtype);
  if (v.numel() == 0) {
    EXPECT_TRUE(l.max.is_null() && l.min.is_null() && l.mean.is_null() && l.norm.is_null());
  } else if (v.dtype == td::DType::boolean) {
    EXPECT_EQ(l.max.kind, io::JsonScalar::Kind::boolean);
    EXPECT_EQ(l.max.boolean, r.max != 0);
    EXPECT_EQ(l.min.boolean, r.min != 0);
    EXPECT_TRUE(l.mean.is_null());
  } else if (v.rank() == 0) {
    EXPECT_EQ(l.max.integer, std::int64_t(1) << 60 | 1);  // the only 0-d tensor here
    EXPECT_EQ(l.mean.integer, l.max.integer);
    EXPECT_EQ(l.norm.integer, l.max.integer);
  } else if (r.nan) {
    EXPECT_TRUE(std::isnan(*l.max.as_double()));
    EXPECT_TRUE(std::isnan(*l.mean.as_double()));
  } else if (!floating && !ms) {
    EXPECT_EQ(l.max.kind, io::JsonScalar::Kind::integer);
    EXPECT_EQ(l.max.integer, std::int64_t(r.max));
    EXPECT_EQ(l.min.integer, std::int64_t(r.min));
    EXPECT_TRUE(l.mean.is_null() && l.norm.is_null());
  } else {
    const td::DType rt = ms && !floating ? td::DType::float32 : v.dtype;
    EXPECT_EQ(*l.max.as_double(), round_to(r.max, rt));
    EXPECT_EQ(*l.min.as_double(), round_to(r.min, rt));
    EXPECT_EQ(*l.mean.as_double(), round_to(r.sum / v.numel(), rt));
    EXPECT_EQ(*l.norm.as_double(), round_to(std::sqrt(r.sumsq), rt));
  }
  const auto bytes = iotest::c_order_le_bytes(v);
  if (task == io::DumpTask::md5) {
    ASSERT_TRUE(l.md5);
    std::string raw(bytes.begin(), bytes.end());
    if (ms && v.dtype == td::DType::bfloat16) {  // MindSpore hashes bf16 widened to float32
      raw.clear();
      for (std::size_t i = 0; i < bytes.size(); i += 2) raw += std::string{'\0', '\0', char(bytes[i]), char(bytes[i + 1])};
    }
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", iotest::crc32_ref(raw));
    EXPECT_EQ(*l.md5, hex);
  } else {
    EXPECT_FALSE(l.md5);
  }
  if (task != io::DumpTask::tensor) {
    EXPECT_TRUE(l.data_name.empty());
    return;
  }
  ASSERT_FALSE(l.data_name.empty());
  EXPECT_EQ(fs::path(l.data_name).extension(), ms ? ".npy" : ".pt");
  const auto loaded = io::load(d.data_path(l.data_name).string());
  ASSERT_EQ(loaded.size(), 1u);
  const td::TensorView& got = loaded[0].tensor.view();
  EXPECT_EQ(got.shape, v.shape);
  EXPECT_EQ(got.dtype, ms && v.dtype == td::DType::bfloat16 ? td::DType::float32 : v.dtype);
  for (std::uint64_t i = 0; i < v.numel(); ++i) {
    const long double a = iotest::element(got, i), b = iotest::element(v, i);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a));
    } else {
      EXPECT_EQ(a, b) << "element " << i;
    }
  }
}

struct RoundTripCase {
  io::DumpTask task;
  const char* framework;
};

std::string round_trip_name(const ::testing::TestParamInfo<RoundTripCase>& info) {
  static const char* tasks[] = {"tensor", "statistics", "md5"};
  return std::string(tasks[int(info.param.task)]) + "_" + info.param.framework;
}

class DumpWriterRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(DumpWriterRoundTrip, EveryLeafKindReadsBack) {
  const auto [task, framework] = GetParam();
  const bool ms = std::string(framework) == "mindspore";
  TempDir tmp;
  Tensors t;
  fs::path dir;
  {
    io::DumpWriterOptions o;
    o.task = task;
    o.framework = framework;
    o.level = "mix";
    o.rank = 3;
    o.step = 2;
    io::DumpWriter w(tmp.path, o);
    dir = w.dir();
    write_model(w, t);
  }
  EXPECT_EQ(dir, tmp.path / "step2" / "rank3");
  const io::DumpFile d = io::load_dump_folder(dir);
  EXPECT_EQ(d.task, task == io::DumpTask::tensor ? "tensor" : "statistics");
  EXPECT_EQ(d.level, "mix");
  EXPECT_EQ(d.framework, framework);
  EXPECT_EQ(d.has_md5, task == io::DumpTask::md5);
  const std::string mod = ms ? "Cell." : "Module.";
  std::vector<std::string> names;
  for (const auto& e : d.entries) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Functional.linear.0.forward", mod + "net.fc.Linear.forward.0",
                                             "Functional.linear.0.backward", mod + "net.fc.Linear.parameters_grad.0"}));

  // Functional.linear.0.forward: every leaf kind.
  const io::DumpEntry& f = *entry(d, "Functional.linear.0.forward");
  std::vector<std::string> keys;
  for (const auto& s : f.sections) keys.push_back(s.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"input_args", "input_kwargs", "output"}));
  const io::DumpNode& args = *section(f, "input_args");
  ASSERT_EQ(args.children.size(), 4u);
  expect_tensor_leaf(d, args.children[0].second.leaf, t.v_bf16(), task, ms);
  expect_tensor_leaf(d, args.children[1].second.leaf, t.v_f32(), task, ms, true);
  const io::DumpNode& lst = args.children[2].second;
  ASSERT_EQ(lst.kind, io::DumpNode::Kind::list);
  expect_tensor_leaf(d, lst.children[0].second.leaf, t.v_f16(), task, ms);
  EXPECT_EQ(lst.children[1].second.leaf.kind, io::DumpLeaf::Kind::none);
  expect_tensor_leaf(d, lst.children[2].second.children[0].second.leaf, t.v_i32(), task, ms);
  const io::DumpNode& dct = args.children[3].second;
  ASSERT_EQ(dct.kind, io::DumpNode::Kind::dict);
  expect_tensor_leaf(d, child(dct, "mask")->leaf, t.v_bool(), task, ms);
  EXPECT_EQ(child(dct, "n")->leaf.value.integer, 3);
  if (task == io::DumpTask::tensor) {  // data_name = {entry}.{category}.{index path}
    const std::string ext = ms ? ".npy" : ".pt";
    EXPECT_EQ(args.children[0].second.leaf.data_name, "Functional.linear.0.forward.input.0" + ext);
    EXPECT_EQ(lst.children[2].second.children[0].second.leaf.data_name, "Functional.linear.0.forward.input.2.2.0" + ext);
    EXPECT_EQ(child(dct, "mask")->leaf.data_name, "Functional.linear.0.forward.input.3.mask" + ext);
  }
  const io::DumpNode& kw = *section(f, "input_kwargs");
  auto value = [&](const char* k) { return child(kw, k)->leaf; };
  EXPECT_EQ(value("scale").type, "float");
  EXPECT_EQ(value("scale").value.real, 0.5);
  EXPECT_EQ(value("flag").type, "bool");
  EXPECT_TRUE(value("flag").value.boolean);
  EXPECT_EQ(value("mode").value.text, "fast");
  EXPECT_EQ(value("out").kind, io::DumpLeaf::Kind::none);
  EXPECT_EQ(value("dtype").type, ms ? "mindspore.dtype" : "torch.dtype");
  EXPECT_EQ(value("dtype").value.text, "torch.float16");
  EXPECT_EQ(value("size").type, "torch.Size");
  EXPECT_EQ(value("size").value.py_str(), "[2, 3]");
  EXPECT_EQ(value("device").value.text, "cuda:0");
  EXPECT_EQ(value("memory_format").type, "torch.memory_format");
  const io::DumpNode& index = *child(kw, "index");
  EXPECT_EQ(index.children[0].second.leaf.type, "slice");
  EXPECT_EQ(index.children[0].second.leaf.value.py_str(), "[None, 2, None]");
  EXPECT_EQ(index.children[1].second.leaf.type, "ellipsis");
  EXPECT_EQ(value("np").type, "float32");
  EXPECT_EQ(value("np").value.real, 0.25);
  expect_tensor_leaf(d, value("bias"), t.v_strided(), task, ms);
  if (task == io::DumpTask::tensor) {
    EXPECT_EQ(value("bias").data_name, std::string("Functional.linear.0.forward.kwargs.bias") + (ms ? ".npy" : ".pt"));
  }
  const io::DumpNode& out = *section(f, "output");
  expect_tensor_leaf(d, out.children[0].second.leaf, t.v_i64_0d(), task, ms);
  expect_tensor_leaf(d, out.children[1].second.leaf, t.v_nan(), task, ms);
  expect_tensor_leaf(d, out.children[2].second.leaf, t.v_empty(), task, ms);

  // The module entry: parameters last, as msprobe's forward hook adds them.
  const io::DumpEntry& m = *entry(d, mod + "net.fc.Linear.forward.0");
  keys.clear();
  for (const auto& s : m.sections) keys.push_back(s.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"input_args", "input_kwargs", "output", "parameters"}));
  expect_tensor_leaf(d, child(*section(m, "parameters"), "weight")->leaf, t.v_f32(), task, ms);

  // Backward: input / output, None kept.
  const io::DumpEntry& b = *entry(d, "Functional.linear.0.backward");
  EXPECT_EQ(section(b, "output")->children[1].second.leaf.kind, io::DumpLeaf::Kind::none);
  expect_tensor_leaf(d, section(b, "output")->children[0].second.leaf, t.v_bf16(), task, ms);

  // parameters_grad: {param: [leaf]}, file {entry}.{param}.
  const io::DumpEntry& g = *entry(d, mod + "net.fc.Linear.parameters_grad.0");
  EXPECT_TRUE(g.is_parameters_grad);
  const io::DumpNode& gb = *section(g, "bias");
  ASSERT_EQ(gb.kind, io::DumpNode::Kind::list);
  expect_tensor_leaf(d, gb.children[0].second.leaf, t.v_f16(), task, ms);
  if (task == io::DumpTask::tensor) {
    EXPECT_EQ(gb.children[0].second.leaf.data_name, mod + "net.fc.Linear.parameters_grad.0.bias" + (ms ? ".npy" : ".pt"));
  }

  // construct.json and stack.json.
  ASSERT_TRUE(d.construct);
  EXPECT_EQ(d.construct->parent("Functional.linear.0.forward"), mod + "net.fc.Linear.forward.0");
  EXPECT_EQ(d.construct->parent(mod + "net.fc.Linear.forward.0"), std::nullopt);
  EXPECT_EQ(d.construct->nodes[0].first, "Functional.linear.0.forward");  // msprobe's order: API first
  ASSERT_TRUE(d.stack);
  EXPECT_TRUE(d.stack->new_format);
  ASSERT_TRUE(d.stack->find("Functional.linear.0.forward"));
  EXPECT_EQ(d.stack->find("Functional.linear.0.forward")->at(0), "File engine.cpp, line 20, in linear, \n y = x W");
  const fs::path data_dir = dir / "dump_tensor_data";
  EXPECT_EQ(fs::exists(data_dir), task == io::DumpTask::tensor);
  EXPECT_EQ(d.recorded_dump_data_dir.has_value(), task == io::DumpTask::tensor);
}

INSTANTIATE_TEST_SUITE_P(Tasks, DumpWriterRoundTrip,
                         ::testing::Values(RoundTripCase{io::DumpTask::tensor, "pytorch"},
                                           RoundTripCase{io::DumpTask::statistics, "pytorch"},
                                           RoundTripCase{io::DumpTask::md5, "pytorch"},
                                           RoundTripCase{io::DumpTask::tensor, "mindspore"},
                                           RoundTripCase{io::DumpTask::md5, "mindspore"}),
                         round_trip_name);

// ------------------------------------------------------------ msprobe's dumper

// Replays a dump written by msprobe's own dumper through DumpWriter (same
// calls, same tensors read from msprobe's .pt files, same stacks) and expects
// the same files: dump.json line for line (Mean/Norm within one unit in the
// last place of the tensor's dtype: torch reduces in its own order),
// stack.json and construct.json byte for byte.
class MsprobeReplay {
 public:
  MsprobeReplay(const fs::path& ref, const fs::path& data, io::DumpWriter& w) : ref_(ref), data_(data), w_(w) {
    ref_json_ = io::detail::parse_python_json(slurp(ref / "dump.json"), "dump.json");
    construct_ = io::detail::parse_python_json(slurp(ref / "construct.json"), "construct.json");
    const J st = io::detail::parse_python_json(slurp(ref / "stack.json"), "stack.json");
    for (const auto& [k, v] : st.items())
      for (const auto& n : v[0]) stacks_[n.get<std::string>()] = v[1].get<std::vector<std::string>>();
  }

  void run() {
    for (const auto& [name, body] : ref_json_["data"].items()) replay(name, body);
  }

 private:
  struct Parsed {
    std::string base, path, cls;
    io::Direction dir = io::Direction::forward;
    std::uint64_t index = 0;
    bool module = false, grads = false;
  };
  static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    return parts;
  }
  static std::string join(const std::vector<std::string>& p, std::size_t from, std::size_t to) {
    std::string s;
    for (std::size_t i = from; i < to; ++i) s += (i > from ? "." : "") + p[i];
    return s;
  }
  static Parsed parse(const std::string& name) {
    auto p = split(name);
    Parsed r;
    r.module = p[0] == "Module" || p[0] == "Cell";
    if (r.module) {
      r.grads = p[p.size() - 2] == "parameters_grad";
      r.index = std::stoull(p.back());
      r.dir = p[p.size() - 2] == "backward" ? io::Direction::backward : io::Direction::forward;
      r.cls = p[p.size() - 3];
      r.path = join(p, 1, p.size() - 3);
    } else {
      r.dir = p.back() == "backward" ? io::Direction::backward : io::Direction::forward;
      r.index = std::stoull(p[p.size() - 2]);
      r.base = join(p, 0, p.size() - 2);
    }
    return r;
  }

  io::DumpValue value(const J& j, const std::string& file_stem) {
    if (j.is_null()) return nullptr;
    if (j.is_array()) {
      std::vector<io::DumpValue> items;
      for (std::size_t i = 0; i < j.size(); ++i) items.push_back(value(j[i], file_stem + "." + std::to_string(i)));
      return io::DumpValue::list(std::move(items));
    }
    if (!j.contains("type")) {
      std::vector<std::pair<std::string, io::DumpValue>> e;
      for (const auto& [k, v] : j.items()) e.emplace_back(k, value(v, file_stem + "." + k));
      return io::DumpValue::dict(std::move(e));
    }
    const std::string type = j["type"];
    if (type == "torch.Tensor") {
      tensors_.push_back(std::move(io::load((data_ / (file_stem + ".pt")).string()).at(0).tensor));
      return io::DumpValue(tensors_.back(), j["requires_grad"].get<bool>());
    }
    const J& v = j["value"];
    if (type == "int") return v.get<std::int64_t>();
    if (type == "float") return v.get<double>();
    if (type == "bool") return v.get<bool>();
    if (type == "str") return v.get<std::string>();
    if (type == "torch.dtype") return io::DumpValue::torch_dtype(v.get<std::string>());
    if (type == "torch.Size") return io::DumpValue::torch_size(v.get<td::Shape>());
    ADD_FAILURE() << "leaf type not replayed: " << type;
    return nullptr;
  }

  void fill(io::CallScope& s, const std::string& name, const J& body) {
    for (const auto& [key, sec] : body.items()) {
      if (key == "input_args" || key == "input")
        for (std::size_t i = 0; i < sec.size(); ++i) s.input(value(sec[i], name + ".input." + std::to_string(i)));
      else if (key == "input_kwargs")
        for (const auto& [k, v] : sec.items()) s.kwarg(k, value(v, name + ".kwargs." + k));
      else if (key == "output")
        for (std::size_t i = 0; i < sec.size(); ++i) s.output(value(sec[i], name + ".output." + std::to_string(i)));
      else if (key == "parameters")
        for (const auto& [k, v] : sec.items()) s.parameter(k, value(v, name + ".parameters." + k));
    }
  }

  io::CallScope& open_module(const std::string& name) {
    auto it = open_.find(name);
    if (it != open_.end()) return it->second;
    if (construct_.contains(name) && construct_[name].is_string()) open_module(construct_[name]);
    const Parsed p = parse(name);
    auto s = w_.module(p.path, p.cls, p.dir, p.index);
    EXPECT_EQ(s.name(), name);
    if (stacks_.count(name)) s.stack(stacks_[name]);
    return open_.emplace(name, std::move(s)).first->second;
  }

  void replay(const std::string& name, const J& body) {
    const Parsed p = parse(name);
    if (p.grads) {
      std::vector<std::pair<std::string, io::DumpValue>> grads;
      for (const auto& [k, v] : body.items()) grads.emplace_back(k, value(v[0], name + "." + k));
      w_.parameters_grad(p.path, p.cls, grads);
      return;
    }
    if (p.module) {
      io::CallScope& s = open_module(name);
      fill(s, name, body);
      s.commit();
      open_.erase(name);
      return;
    }
    if (construct_.contains(name) && construct_[name].is_string()) open_module(construct_[name]);
    auto s = w_.api(p.base, p.dir, p.index);
    EXPECT_EQ(s.name(), name);
    if (stacks_.count(name)) s.stack(stacks_[name]);
    fill(s, name, body);
  }

  fs::path ref_, data_;
  io::DumpWriter& w_;
  J ref_json_, construct_;
  std::map<std::string, std::vector<std::string>> stacks_;
  std::map<std::string, io::CallScope> open_;
  std::deque<td::Tensor> tensors_;
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

double ulp_of(const std::string& dtype, double x) {
  const int mant = dtype == "torch.bfloat16" ? 8 : dtype == "torch.float16" ? 11 : 24;
  return std::ldexp(1.0, std::ilogb(x == 0 ? 1e-30 : x) - mant + 1);
}

// Mean/Norm of both trees agree to one unit in the last place; returns how many were checked.
int compare_stats(const J& ours, const J& ref, const std::string& ptr) {
  int n = 0;
  if (ref.is_object() && ref.contains("dtype") && ref.contains("Mean")) {
    for (const char* k : {"Mean", "Norm"}) {
      if (ref[k].is_null()) {
        EXPECT_TRUE(ours[k].is_null()) << ptr << "/" << k;
        continue;
      }
      const double a = ours[k].get<double>(), b = ref[k].get<double>();
      // Norm: one unit in the last place. Mean: torch sums in the tensor's dtype, so cancellation can cost
      // up to numel * eps * max|x| (ours is the float64 mean rounded once).
      double numel = 1;
      for (const auto& d : ref["shape"]) numel *= d.get<double>();
      const double peak = std::max(std::fabs(ref["Max"].get<double>()), std::fabs(ref["Min"].get<double>()));
      const double tol = std::string(k) == "Norm" ? ulp_of(ref["dtype"], b) : numel * ulp_of(ref["dtype"], peak);
      EXPECT_LE(std::fabs(a - b), tol) << ptr << "/" << k << ": " << a << " vs msprobe " << b;
      ++n;
    }
    return n;
  }
  if (ref.is_structured())
    for (auto it = ref.begin(); it != ref.end(); ++it) {
      const std::string key = ref.is_array() ? std::to_string(&*it - &ref[0]) : it.key();
      n += compare_stats(ref.is_array() ? ours[std::stoul(key)] : ours[key], *it, ptr + "/" + key);
    }
  return n;
}

void expect_same_as_msprobe(const std::string& ref_case, const std::string& data_case, io::DumpWriterOptions o) {
  SCOPED_TRACE(ref_case);
  const fs::path base = fs::path(TD_TEST_DATA_DIR) / "msprobe_dumper";
  const fs::path ref = base / ref_case / "step0" / "rank0";
  TempDir tmp;
  o.rank = 0;
  fs::path dir;
  {
    io::DumpWriter w(tmp.path, o);
    dir = w.dir();
    MsprobeReplay(ref, base / data_case / "step0" / "rank0" / "dump_tensor_data", w).run();
  }
  const std::string ours_text = slurp(dir / "dump.json"), ref_text = slurp(ref / "dump.json");
  const J ours = io::detail::parse_python_json(ours_text, "ours"), theirs = io::detail::parse_python_json(ref_text, "ref");
  EXPECT_GT(compare_stats(ours, theirs, ""), 0);
  const auto a = lines_of(ours_text), b = lines_of(ref_text);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool stat = b[i].find("\"Mean\": ") != std::string::npos || b[i].find("\"Norm\": ") != std::string::npos;
    const bool dir_line = b[i].find("\"dump_data_dir\": \"") != std::string::npos;
    if (stat || dir_line) {
      EXPECT_EQ(a[i].substr(0, a[i].find(':')), b[i].substr(0, b[i].find(':'))) << "line " << i + 1;
    } else {
      EXPECT_EQ(a[i], b[i]) << "dump.json line " << i + 1;
    }
  }
  EXPECT_EQ(ours_text.back(), '}');  // json.dump writes no trailing newline
  EXPECT_EQ(slurp(dir / "stack.json"), slurp(ref / "stack.json"));
  EXPECT_EQ(slurp(dir / "construct.json"), slurp(ref / "construct.json"));

  if (o.task != io::DumpTask::tensor) return;
  // The .pt files: the same tensors, and data.pkl byte-identical to torch.save's.
  for (const auto& f : fs::directory_iterator(ref / "dump_tensor_data")) {
    const fs::path mine = dir / "dump_tensor_data" / f.path().filename();
    ASSERT_TRUE(fs::exists(mine)) << mine;
    const std::string stem = f.path().stem().string();
    auto pkl = [&](const fs::path& p) {
      const auto zip = io::detail::ZipArchive::open(io::MappedFile::open(p.string()));
      const auto* e = zip.find(stem + "/data.pkl");
      EXPECT_TRUE(e) << p;
      const auto span = zip.data(*e);
      return std::string(reinterpret_cast<const char*>(span.data), span.size);
    };
    EXPECT_EQ(pkl(mine), pkl(f.path())) << stem;
    const auto x = io::load(mine.string()).at(0).tensor, y = io::load(f.path().string()).at(0).tensor;
    EXPECT_EQ(iotest::c_order_le_bytes(x.view()), iotest::c_order_le_bytes(y.view())) << stem;
  }
}

TEST(DumpWriterMsprobe, TensorMixBf16) {
  io::DumpWriterOptions o;
  o.task = io::DumpTask::tensor;
  o.level = "mix";
  expect_same_as_msprobe("tensor_mix_bf16", "tensor_mix_bf16", o);
}

TEST(DumpWriterMsprobe, TensorMixF32) {
  io::DumpWriterOptions o;
  o.task = io::DumpTask::tensor;
  o.level = "mix";
  expect_same_as_msprobe("tensor_mix_f32", "tensor_mix_f32", o);
}

TEST(DumpWriterMsprobe, StatisticsL0) {
  io::DumpWriterOptions o;
  o.task = io::DumpTask::statistics;
  o.level = "L0";
  expect_same_as_msprobe("statistics_L0_f32", "tensor_mix_f32", o);
}

TEST(DumpWriterMsprobe, Md5L1) {
  io::DumpWriterOptions o;
  o.task = io::DumpTask::md5;
  o.level = "L1";
  expect_same_as_msprobe("md5_L1_f32", "tensor_mix_f32", o);
}

// ------------------------------------------------------------------ crash safety

// A child writes `calls` entries with a flush every 3, then is killed with
// SIGKILL: dump.json must parse and hold exactly the flushed entries.
TEST(DumpWriterCrash, KilledChildLeavesTheFlushedCalls) {
  std::vector<float> x(64, 1.0f);
  for (int calls : {0, 1, 3, 4, 7, 11}) {
    SCOPED_TRACE(calls);
    TempDir tmp;
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      io::DumpWriterOptions o;
      o.task = io::DumpTask::tensor;
      o.rank = 0;
      o.flush_every = 3;
      auto* w = new io::DumpWriter(tmp.path, o);  // never destroyed: the process dies first
      for (int i = 0; i < calls; ++i) w->api("Functional.relu").input(td::TensorView::of(x.data(), {8, 8})).output(td::TensorView::of(x.data(), {64}));
      ::kill(::getpid(), SIGKILL);
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const io::DumpFile d = io::load_dump_folder(tmp.path / "step0" / "rank0");
    ASSERT_EQ(d.entries.size(), std::size_t(calls / 3 * 3));
    for (std::size_t i = 0; i < d.entries.size(); ++i) {
      EXPECT_EQ(d.entries[i].name, "Functional.relu." + std::to_string(i) + ".forward");
      EXPECT_TRUE(fs::exists(d.data_path(section(d.entries[i], "output")->children[0].second.leaf.data_name)));
    }
  }
}

TEST(DumpWriterCrash, FlushesAtMsprobesThreshold) {
  TempDir tmp;
  io::DumpWriterOptions o;
  o.rank = 0;
  io::DumpWriter w(tmp.path, o);
  std::vector<float> x{1, 2};
  for (int i = 0; i < 999; ++i) w.api("Torch.add").input(td::TensorView::of(x.data(), {2}));
  EXPECT_EQ(w.flushed_entries(), 0u);
  EXPECT_EQ(io::load_dump_folder(w.dir()).entries.size(), 0u);
  w.api("Torch.add").input(td::TensorView::of(x.data(), {2}));
  EXPECT_EQ(w.flushed_entries(), 1000u);
  EXPECT_EQ(io::load_dump_folder(w.dir()).entries.size(), 1000u);
}

// ------------------------------------------------------------------ threads

TEST(DumpWriterThreads, CountersAndNestingPerThread) {
  TempDir tmp;
  constexpr int kThreads = 4, kCalls = 40;
  {
    io::DumpWriterOptions o;
    o.level = "mix";
    o.rank = 0;
    o.flush_every = 7;
    io::DumpWriter w(tmp.path, o);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
      pool.emplace_back([&, t] {
        std::vector<float> x(16, float(t));
        for (int i = 0; i < kCalls; ++i) {
          auto m = w.module("worker" + std::to_string(t), "Block");
          w.api("Functional.relu").input(td::TensorView::of(x.data(), {4, 4})).output(td::TensorView::of(x.data(), {16}));
          m.input(td::TensorView::of(x.data(), {16}));
        }
      });
    for (auto& th : pool) th.join();
  }
  const io::DumpFile d = io::load_dump_folder(tmp.path / "step0" / "rank0");
  ASSERT_EQ(d.entries.size(), std::size_t(2 * kThreads * kCalls));
  std::set<std::string> names;
  for (const auto& e : d.entries) names.insert(e.name);
  EXPECT_EQ(names.size(), d.entries.size());
  for (int i = 0; i < kThreads * kCalls; ++i) {
    const std::string api = "Functional.relu." + std::to_string(i) + ".forward";
    ASSERT_TRUE(names.count(api)) << api;
    // The API's parent is a module of the thread that called it: same value (the thread id) inside.
    const auto parent = d.construct->parent(api);
    ASSERT_TRUE(parent);
    const int t = std::stoi(parent->substr(std::string("Module.worker").size()));
    EXPECT_EQ(*section(*entry(d, api), "input_args")->children[0].second.leaf.max.as_double(), double(t));
  }
}

// ------------------------------------------------------------------ misuse and format details

TEST(DumpWriterErrors, MisuseIsReported) {
  TempDir tmp;
  io::DumpWriterOptions o;
  o.rank = 0;
  o.level = "mix";
  io::DumpWriter w(tmp.path, o);
  iotest::expect_error([&] { w.api("Functional.linear", io::Direction::backward); }, {"no forward call"});
  iotest::expect_error([&] { w.api("bad/name"); }, {"without '/'"});
  std::vector<std::uint16_t> u{1, 2};
  iotest::expect_error([&] { w.api("Torch.add").input(td::TensorView::of(u.data(), {2})); }, {"uint16"});
  {
    TempDir t2;
    io::DumpWriterOptions ot;
    ot.task = io::DumpTask::tensor;
    io::DumpWriter wt(t2.path, ot);
    std::vector<float> f{1};
    iotest::expect_error([&] { wt.api("Torch.add").kwarg("../../escape", td::TensorView::of(f.data(), {1})); },
                         {"path separator"});
    EXPECT_FALSE(fs::exists(t2.path / "escape.pt"));
  }
  o.level = "L3";
  iotest::expect_error([&] { io::DumpWriter bad(tmp.path, o); }, {"level"});
  auto s = w.api("Torch.add");
  s.commit();
  iotest::expect_error([&] { s.input(1); }, {"committed"});
  iotest::expect_error([&] { w.api("Torch.add", io::Direction::forward, 0); }, {"Torch.add.0.forward", "already recorded"});
  w.module("fc", "Linear").commit();
  w.parameters_grad("fc", "Linear", {});
  iotest::expect_error([&] { w.parameters_grad("fc", "Linear", {}); }, {"already recorded"});
  iotest::expect_error([&] { w.parameters_grad("fc2", "Linear", {}); }, {"before any forward"});
}

// A flush that cannot write is told by dump.json, the file the user knows (its temporary is removed),
// keeps the last complete dump.json, and the entries it could not write go out with the next flush.
// Both ways of writing are covered: the first flush writes afresh, later ones extend a copy.
TEST(DumpWriterErrors, AFailedFlushNamesDumpJsonAndKeepsTheLastOne) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir tmp;
  io::DumpWriterOptions o;
  o.rank = 0;
  io::DumpWriter w(tmp.path, o);
  const fs::path dir = tmp.path / "step0" / "rank0", json = dir / "dump.json", staged = dir / "dump.json.tmp";
  for (std::size_t flushed = 0; flushed < 2; ++flushed) {
    auto s = w.api("Torch.add");
    s.input(static_cast<int>(flushed));
    s.commit();
    fs::create_symlink("/dev/full", staged);  // every byte written there fails
    try {
      w.flush();
      ADD_FAILURE() << "no error";
    } catch (const td::Error& e) {
      EXPECT_EQ(e.context().file, json.string()) << e.what();
      EXPECT_NE(e.reason().find(staged.string()), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(fs::symlink_status(staged)));
    EXPECT_EQ(io::load_dump_folder(dir).entries.size(), flushed);
    w.flush();
    EXPECT_EQ(io::load_dump_folder(dir).entries.size(), flushed + 1);
  }
}

TEST(DumpWriterErrors, LevelFiltersScopes) {
  TempDir tmp;
  io::DumpWriterOptions o;
  o.rank = 0;
  o.level = "L0";
  {
    io::DumpWriter w(tmp.path, o);
    auto m = w.module("fc", "Linear");
    auto a = w.api("Functional.linear");
    EXPECT_FALSE(a.enabled());
    a.input(1);
  }
  const io::DumpFile d = io::load_dump_folder(tmp.path / "step0" / "rank0");
  ASSERT_EQ(d.entries.size(), 1u);
  EXPECT_EQ(d.entries[0].name, "Module.fc.Linear.forward.0");
}

// A backward takes the number of the latest forward still without one (autograd runs in reverse).
TEST(DumpWriterErrors, BackwardPairsWithForwardsInReverse) {
  TempDir tmp;
  io::DumpWriterOptions o;
  o.level = "mix";
  o.rank = 0;
  std::vector<std::string> names;
  {
    io::DumpWriter w(tmp.path, o);
    for (int i = 0; i < 2; ++i) {
      auto m = w.module("fc", "Linear");
      w.api("Functional.linear").input(i);
    }
    for (int i = 0; i < 2; ++i) {
      auto m = w.module("fc", "Linear", io::Direction::backward);
      auto a = w.api("Functional.linear", io::Direction::backward);
      names.push_back(m.name());
      names.push_back(a.name());
    }
    w.api("Functional.linear", io::Direction::backward, 5).commit();  // explicit number
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Module.fc.Linear.backward.1", "Functional.linear.1.backward",
                                             "Module.fc.Linear.backward.0", "Functional.linear.0.backward"}));
  const io::DumpFile d = io::load_dump_folder(tmp.path / "step0" / "rank0");
  EXPECT_EQ(d.construct->parent("Functional.linear.0.backward"), "Module.fc.Linear.backward.0");
  EXPECT_TRUE(entry(d, "Functional.linear.5.backward"));
}

// extra_info off (msprobe's "extra_info": false): no stack.json, no construct.json.
TEST(DumpWriterErrors, ExtraInfoOffWritesOnlyDumpJson) {
  TempDir tmp;
  io::DumpWriterOptions o;
  o.level = "mix";
  o.extra_info = false;
  fs::path dir;
  {
    io::DumpWriter w(tmp.path, o);
    dir = w.dir();
    auto m = w.module("fc", "Linear");
    w.api("Torch.add").input(1).stack({"File a.py, line 1, in f, \n x"});
  }
  EXPECT_EQ(dir.filename().string(), "proc" + std::to_string(::getpid()));  // no rank: msprobe's proc{pid}
  EXPECT_TRUE(fs::exists(dir / "dump.json"));
  EXPECT_FALSE(fs::exists(dir / "stack.json"));
  EXPECT_FALSE(fs::exists(dir / "construct.json"));
  EXPECT_EQ(io::load_dump_folder(dir).entries.size(), 2u);
}

// `tensordiff dump`'s conversion: calls per op and execution, outputs by index, timestamp order.
TEST(DumpFromFolder, OpsOutputsAndExecutions) {
  TempDir src, dst;
  std::vector<float> v{1, 2, 3, 4};
  const auto t = td::TensorView::of(v.data(), {2, 2});
  for (const char* f : {"a_MatMul.0.1700000000000002", "a_MatMul.1.1700000000000003", "a_Relu.0.1700000000000001",
                        "a_Relu.0.1700000000000005", "plain", "odd.name.2.1700000000000004"})
    io::save_npy((src.path / (std::string(f) + ".npy")).string(), t);
  std::ofstream(src.path / "notes.txt") << "not a tensor";
  io::DumpWriterOptions o;
  o.rank = 0;
  o.task = io::DumpTask::tensor;
  fs::path dir;
  {
    io::DumpWriter w(dst.path, o);
    dir = w.dir();
    EXPECT_EQ(io::convert_tensor_folder(src.path, w), 5u);
  }
  const io::DumpFile d = io::load_dump_folder(dir);
  std::vector<std::string> names;
  for (const auto& e : d.entries) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Op.plain.0.forward", "Op.a_Relu.0.forward", "Op.a_MatMul.0.forward",
                                             "Op.odd_name.0.forward", "Op.a_Relu.1.forward"}));
  EXPECT_EQ(section(*entry(d, "Op.a_MatMul.0.forward"), "output")->children.size(), 2u);
  const io::DumpNode& odd = *section(*entry(d, "Op.odd_name.0.forward"), "output");
  ASSERT_EQ(odd.children.size(), 3u);
  EXPECT_EQ(odd.children[0].second.leaf.kind, io::DumpLeaf::Kind::none);
  EXPECT_EQ(odd.children[2].second.leaf.data_name, "Op.odd_name.0.forward.output.2.pt");
  EXPECT_EQ(odd.children[2].second.leaf.max.real, 4.0);
  EXPECT_EQ(io::parse_plain_file_name("model_dense_MatMul.0.1700000123463644").op, "model_dense_MatMul");
}

// Expected texts from Python 3.11: json.dumps(obj, indent=1).
TEST(DumpWriterFormat, PythonJsonDumps) {
  J j = J::object();
  j["a"] = J::array({1e-05, 1.0, 0.1, 1e16, 123456789012345680.0, -0.0, NAN, INFINITY, -INFINITY});
  j["s"] = "\xc3\xa9\n\"\\\x01\x7f\xf0\x9f\x98\x80";
  j["e"] = J::object();
  j["l"] = J::array();
  j["n"] = nullptr;
  EXPECT_EQ(io::detail::py_json_dumps(j, 1),
            "{\n \"a\": [\n  1e-05,\n  1.0,\n  0.1,\n  1e+16,\n  1.2345678901234568e+17,\n  -0.0,\n  NaN,\n  Infinity,\n"
            "  -Infinity\n ],\n \"s\": \"\\u00e9\\n\\\"\\\\\\u0001\\u007f\\ud83d\\ude00\",\n \"e\": {},\n \"l\": [],\n"
            " \"n\": null\n}");
}

}  // namespace
