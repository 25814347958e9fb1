// dump.json / stack.json / construct.json parsing, item flattening (spec §4, §5.1)
// and hostile inputs (errors name the file and the JSON pointer).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <functional>

#include <tensordiff/io/dump_json.hpp>
#include <tensordiff/match/items.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
using namespace mt;

namespace {
const char* kDump = R"({
 "task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": "/home/user/dump/dump_tensor_data",
 "data": {
  "Functional.max_pool2d.0.forward": {
   "input_args": [
    {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1, 2, 4, 4], "Max": 1.5, "Min": -Infinity, "Mean": NaN, "Norm": Infinity, "requires_grad": true},
    {"type": "int", "value": 2}, {"type": "int", "value": 2}, {"type": "int", "value": 0}, {"type": "int", "value": 1}
   ],
   "input_kwargs": {"ceil_mode": {"type": "bool", "value": false}, "return_indices": {"type": "bool", "value": false}},
   "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1, 2, 2, 2], "Max": 1, "Min": 0, "Mean": null, "Norm": null, "requires_grad": true}],
   "is_recompute": false
  },
  "Tensor.__getitem__.0.forward": {
   "input_args": [null, [{"type": "slice", "value": [null, 2, null]}, {"type": "ellipsis", "value": "..."}]],
   "input_kwargs": {},
   "output": [{"type": "torch.Size", "value": [2, 3]}]
  },
  "Cell.net.NetworkWithLoss.forward.0": {
   "input_args": [{"data_info": {"img_hw": {"type": "mindspore.Tensor", "dtype": "Int32", "shape": [2], "Max": 3, "Min": 1, "Mean": 2.0, "Norm": 3.16}}}],
   "output": []
  },
  "Module.fc1.Linear.parameters_grad.0": {
   "weight": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 3], "Max": 0.5, "Min": -0.5, "Mean": 0.0, "Norm": 1.0, "requires_grad": false}]
  },
  "Module.fc1.Linear.forward.0": {
   "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0}],
   "parameters": {"weight": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 3], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0}},
   "input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [3], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0}]
  }
 }
})";

template <class F>
td::Error error_of(F&& f) {
  try {
    f();
  } catch (const td::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return td::Error(td::ErrorCategory::format, "none");
}
}  // namespace

TEST(DumpJson, TopLevelAndPythonLiterals) {
  const auto d = td::io::parse_dump_json(kDump, "/x/dump.json");
  EXPECT_EQ(d.task, "statistics");
  EXPECT_EQ(d.level, "L1");
  EXPECT_EQ(d.framework, "pytorch");
  EXPECT_EQ(*d.recorded_dump_data_dir, "/home/user/dump/dump_tensor_data");
  EXPECT_FALSE(d.has_md5);
  ASSERT_EQ(d.entries.size(), 5u);
  EXPECT_EQ(d.entries[0].name, "Functional.max_pool2d.0.forward");  // file order kept
  EXPECT_EQ(d.entries[3].name, "Module.fc1.Linear.parameters_grad.0");
  EXPECT_TRUE(d.entries[3].is_parameters_grad);
  const auto& leaf = d.entries[0].sections[0].second.children[0].second.leaf;
  EXPECT_EQ(leaf.kind, td::io::DumpLeaf::Kind::tensor);
  EXPECT_EQ(leaf.dtype, "torch.float32");
  EXPECT_EQ(*leaf.shape, (td::Shape{1, 2, 4, 4}));
  EXPECT_EQ(leaf.max.real, 1.5);
  EXPECT_TRUE(std::isinf(leaf.min.real) && leaf.min.real < 0);
  EXPECT_TRUE(std::isnan(leaf.mean.real));
  EXPECT_TRUE(std::isinf(leaf.norm.real) && leaf.norm.real > 0);
  EXPECT_EQ(leaf.pointer, "/data/Functional.max_pool2d.0.forward/input_args/0");
  // the data folder is next to dump.json, never the recorded absolute path
  EXPECT_EQ(d.data_path("a.pt"), fs::path("/x/dump_tensor_data/a.pt"));
}

TEST(DumpJson, StringsContainingNaNAreNotRewritten) {
  const auto d = td::io::parse_dump_json(
      R"({"task": "statistics", "data": {"A.b.0.forward": {"input_args": [{"type": "str", "value": "NaN Infinity \"NaN\""}]}}})", "f");
  EXPECT_EQ(d.entries[0].sections[0].second.children[0].second.leaf.value.text, "NaN Infinity \"NaN\"");
  EXPECT_EQ(d.framework, "pytorch");  // missing framework defaults to pytorch
}

TEST(DumpJson, FlattenOrderAndNames) {
  const auto d = td::io::parse_dump_json(kDump, "/x/dump.json");
  const auto items = td::match::flatten(d);
  std::vector<std::string> names;
  for (const auto& it : items) names.push_back(it.name);
  const std::vector<std::string> want = {
      "Functional.max_pool2d.0.forward.input.0", "Functional.max_pool2d.0.forward.input.1",
      "Functional.max_pool2d.0.forward.input.2", "Functional.max_pool2d.0.forward.input.3",
      "Functional.max_pool2d.0.forward.input.4", "Functional.max_pool2d.0.forward.input.ceil_mode",
      "Functional.max_pool2d.0.forward.input.return_indices", "Functional.max_pool2d.0.forward.output.0",
      "Tensor.__getitem__.0.forward.input.0", "Tensor.__getitem__.0.forward.input.1.0", "Tensor.__getitem__.0.forward.input.1.1",
      "Tensor.__getitem__.0.forward.output.0", "Cell.net.NetworkWithLoss.forward.0.input.0.data_info.img_hw",
      "Module.fc1.Linear.parameters_grad.0.weight",
      // inputs, then parameters, then outputs (whatever the file order)
      "Module.fc1.Linear.forward.0.input.0", "Module.fc1.Linear.forward.0.parameters.weight", "Module.fc1.Linear.forward.0.output.0"};
  EXPECT_EQ(names, want);
  // non-tensor leaves: dtype str(type(value)), shape '[]', stats = value
  EXPECT_EQ(items[1].dtype, "<class 'int'>");
  EXPECT_EQ(items[1].shape, "[]");
  EXPECT_EQ(items[1].max.py_str(), "2");
  EXPECT_EQ(items[5].dtype, "<class 'bool'>");
  EXPECT_EQ(items[5].mean.py_str(), "False");
  // None leaf
  EXPECT_EQ(items[8].dtype, "None");
  EXPECT_EQ(items[8].data_name, "-1");
  // slice / torch.Size
  EXPECT_EQ(items[9].shape, "(3,)");
  EXPECT_EQ(items[9].max.py_str(), "[None, 2, None]");
  EXPECT_EQ(items[11].dtype, "torch.Size");
  EXPECT_EQ(items[11].shape, "[2, 3]");
  // tensor shape as Python's str(list), int stats stay ints
  EXPECT_EQ(items[0].shape, "[1, 2, 4, 4]");
  EXPECT_EQ(items[7].max.py_str(), "1");
  EXPECT_EQ(items[0].requires_grad, "True");
  EXPECT_EQ(items[12].requires_grad, "None");  // MindSpore: no requires_grad
  EXPECT_TRUE(items[7].is_output());
  EXPECT_EQ(items[13].state, td::match::ItemState::parameters_grad);
}

TEST(DumpJson, TensorModeKwargsTakeTheDataFileName) {
  const auto d = td::io::parse_dump_json(
      R"({"task": "tensor", "data": {"Functional.linear.0.forward": {"input_kwargs": {"weight": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1, "Min": 0, "Mean": 0.5, "Norm": 1, "data_name": "Functional.linear.0.forward.kwargs.weight.pt"}}}}})",
      "f");
  const auto items = td::match::flatten(d);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].name, "Functional.linear.0.forward.kwargs.weight");
  EXPECT_EQ(td::match::detect_mode(d), td::match::Mode::tensor);
}

TEST(DumpJson, BackwardRenumbering) {
  const auto d = td::io::parse_dump_json(
      R"({"task": "statistics", "data": {"Functional.linear.3.backward": {}, "Functional.relu.5.backward": {}, "Functional.linear.7.backward": {},
          "Module.fc1.Linear.backward.4": {}, "Functional.linear.2.forward": {}, "Module.fc1.Linear.backward.9": {}}})",
      "f");
  const auto m = td::match::renumber_backward(d);
  EXPECT_EQ(m.at("Functional.linear.3.backward"), "Functional.linear.0.backward");
  EXPECT_EQ(m.at("Functional.linear.7.backward"), "Functional.linear.1.backward");
  EXPECT_EQ(m.at("Functional.relu.5.backward"), "Functional.relu.0.backward");
  EXPECT_EQ(m.at("Module.fc1.Linear.backward.4"), "Module.fc1.Linear.backward.0");
  EXPECT_EQ(m.at("Module.fc1.Linear.backward.9"), "Module.fc1.Linear.backward.1");
  EXPECT_EQ(m.count("Functional.linear.2.forward"), 0u);
}

TEST(DumpJson, StackOldAndNewFormats) {
  const auto n = td::io::parse_stack_json(R"J({"0": [["A.a.0.forward", "A.a.0.backward"], ["File x.py, line 1, in f, \n a()"]]})J", "s");
  EXPECT_TRUE(n.new_format);
  ASSERT_TRUE(n.find("A.a.0.backward"));
  EXPECT_EQ(n.find("A.a.0.backward")->at(0), "File x.py, line 1, in f, \n a()");
  const auto o = td::io::parse_stack_json(R"({"A.a.0.forward": ["l1", "l2"]})", "s");
  EXPECT_FALSE(o.new_format);
  EXPECT_EQ(o.find("A.a.0.forward")->size(), 2u);
  const auto c = td::io::parse_construct_json(R"({"Module.a.A.forward.0": null, "Functional.b.0.forward": "Module.a.A.forward.0"})", "c");
  EXPECT_FALSE(c.parent("Module.a.A.forward.0"));
  EXPECT_EQ(*c.parent("Functional.b.0.forward"), "Module.a.A.forward.0");
}

TEST(DumpJson, HostileInputsNameFileAndPointer) {
  struct Case {
    const char* json;
    const char* field;
  };
  const Case cases[] = {
      {R"([1, 2])", "/"},
      {R"({"task": 3, "data": {}})", "/task"},
      {R"({"task": "tensor"})", "/data"},
      {R"({"task": "tensor", "data": []})", "/data"},
      {R"({"data": {"A.a.0.forward": 5}})", "/data/A.a.0.forward"},
      {R"({"data": {"A.a.0.forward": {"input_args": 5}}})", "/data/A.a.0.forward/input_args"},
      {R"({"data": {"A.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": 7}]}}})", "/data/A.a.0.forward/input_args/0/dtype"},
      {R"({"data": {"A.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "x", "shape": "2x3"}]}}})", "/data/A.a.0.forward/input_args/0/shape"},
      {R"({"data": {"A.a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "x", "shape": [2, "a"]}]}}})", "/data/A.a.0.forward/input_args/0/shape/1"},
      {R"({"data": {"A.a.0.forward": {"output": [{"type": "torch.Tensor", "dtype": "x", "Max": [1]}]}}})", "/data/A.a.0.forward/output/0/Max"},
      {R"({"data": {"A.a.0.forward": {"output": [{"type": "torch.Tensor", "dtype": "x", "data_name": 3}]}}})", "/data/A.a.0.forward/output/0/data_name"},
      {R"({"data": {"A.a.0.forward": {"output": [{"type": "torch.Tensor", "dtype": "x", "requires_grad": "yes"}]}}})", "/data/A.a.0.forward/output/0/requires_grad"},
      {R"({"data": {"a/b~c": {"output": 1}}})", "/data/a~1b~0c/output"},
  };
  for (const auto& c : cases) {
    const auto e = error_of([&] { td::io::parse_dump_json(c.json, "/d/dump.json"); });
    EXPECT_EQ(e.context().file, "/d/dump.json") << c.json;
    EXPECT_EQ(e.context().field, c.field) << c.json << " → " << e.what();
    EXPECT_EQ(e.category(), td::ErrorCategory::format);
  }
  // malformed JSON: byte offset in the original text (NaN rewriting accounted for)
  const auto e = error_of([] { td::io::parse_dump_json(R"({"a": NaN, "b": })", "/d/dump.json"); });
  EXPECT_EQ(e.context().file, "/d/dump.json");
  ASSERT_TRUE(e.context().offset);
  EXPECT_EQ(*e.context().offset, 16u);  // the '}' after "b":
  // a number beyond double's range (nlohmann's out_of_range, not a parse_error)
  const auto big = error_of([] { td::io::parse_dump_json(R"({"data": {"A.a.0.forward": {"output": 1e999}}})", "/d/dump.json"); });
  EXPECT_EQ(big.context().file, "/d/dump.json");
  EXPECT_EQ(big.category(), td::ErrorCategory::format);
  EXPECT_NE(std::string(big.what()).find("number overflow"), std::string::npos) << big.what();
  // a data_name escaping dump_tensor_data is refused
  const auto s = error_of([] {
    td::io::parse_dump_json(R"({"data": {"A.a.0.forward": {"output": [{"type": "torch.Tensor", "dtype": "x", "data_name": "../../etc/passwd"}]}}})", "f");
  });
  EXPECT_EQ(s.category(), td::ErrorCategory::security);
  // deep nesting does not overflow the stack
  std::string deep = R"({"data": {"A.a.0.forward": {"input_args": )";
  for (int i = 0; i < 300; ++i) deep += "[";
  for (int i = 0; i < 300; ++i) deep += "]";
  deep += "}}}";
  EXPECT_NO_THROW({
    try {
      td::io::parse_dump_json(deep, "f");
    } catch (const td::Error& x) {
      EXPECT_NE(std::string(x.what()).find("nesting"), std::string::npos);
    }
  });
}

TEST(DumpJson, FolderLoadingAndMissingFiles) {
  TempDir d("folder");
  write_text(d.path / "rank0" / "dump.json", kDump);
  write_text(d.path / "rank0" / "stack.json", R"({"Functional.max_pool2d.0.forward": ["l"]})");
  write_text(d.path / "rank0" / "construct.json", "{}");
  const auto f = td::io::load_dump_folder(d.path / "rank0");
  EXPECT_TRUE(f.stack);
  EXPECT_TRUE(f.construct);
  EXPECT_EQ(f.dir, d.path / "rank0");
  const auto e = error_of([&] { td::io::load_dump_folder(d.path / "nothing"); });
  EXPECT_EQ(e.category(), td::ErrorCategory::io);
  EXPECT_EQ(e.context().file, (d.path / "nothing").string());
  write_text(d.path / "bad" / "dump.json", kDump);
  write_text(d.path / "bad" / "stack.json", R"({"x": [1]})");
  const auto s = error_of([&] { td::io::load_dump_folder(d.path / "bad"); });
  EXPECT_EQ(s.context().file, (d.path / "bad" / "stack.json").string());
  EXPECT_EQ(s.context().field, "/x/0");
}

// ---- issue #14: hostile dumps fail fast, name the file and the limit ------------------------

namespace {
std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const td::Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(DumpJsonHostile, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = "{\"data\": {\"A.a.0.forward\": {\"input_args\": " + std::string(300000, '[') + std::string(300000, ']') + "}}}";
  const std::string e = what_of([&] { td::io::parse_dump_json(deep, "deep.json"); });
  const std::size_t first_bracket = deep.find('[');
  const std::string at = "deep.json: at byte " + std::to_string(first_bracket + 997) + ": JSON nested deeper than 1000 levels";
  EXPECT_NE(e.find(at), std::string::npos) << e;  // the 998th '[' is the 1001st level
  // Brackets inside strings do not count.
  EXPECT_NO_THROW(td::io::parse_stack_json("{\"a\": [\"" + std::string(5000, '[') + "\"]}", "s.json"));
}

TEST(DumpJsonHostile, ConstructCyclesAndDepths) {
  std::string j = "{";
  const int n = 50000;
  for (int i = 0; i < n; ++i) j += (i ? ",\"m" : "\"m") + std::to_string(i) + "\": \"m" + std::to_string((i + 1) % n) + "\"";
  j += "}";
  const std::string e = what_of([&] { td::io::parse_construct_json(j, "construct.json"); });
  EXPECT_NE(e.find("construct.json: /m0: parent cycle"), std::string::npos) << e;
  EXPECT_NE(what_of([] { td::io::parse_construct_json(R"({"a": "a"})", "c"); }).find("parent cycle"), std::string::npos);
  // Depths: the number of parent links, as walking parent() counts them (an unlisted parent is one link).
  const auto c = td::io::parse_construct_json(R"({"c": "b", "b": "a", "a": null, "x": "elsewhere", "y": "c"})", "c");
  for (const char* node : {"a", "b", "c", "x", "y", "unlisted"}) {
    std::size_t walked = 0;
    for (auto p = c.parent(node); p; p = c.parent(*p)) ++walked;
    EXPECT_EQ(c.depth(node), walked) << node;
  }
  EXPECT_EQ(c.depth("y"), 3u);
}

// A stack shared by many names (newer format) is stored once, not copied per name.
TEST(DumpJsonHostile, SharedStacksAreStoredOnce) {
  std::string names;
  for (int i = 0; i < 100; ++i) names += (i ? ",\"n" : "\"n") + std::to_string(i) + "\"";
  const std::string text = "{\"0\": [[" + names + "], [\"" + std::string(10000, 'x') + "\"]], \"old.name\": [\"l\"]}";
  const auto s = td::io::parse_stack_json(text, "stack.json");
  EXPECT_EQ(s.by_name.size(), 101u);
  ASSERT_EQ(s.stacks.size(), 2u);
  EXPECT_EQ(s.find("n0"), s.find("n99"));  // the same lines, not a copy
  EXPECT_EQ(s.find("n42")->at(0).size(), 10000u);
  EXPECT_EQ(s.find("old.name")->at(0), "l");
  EXPECT_EQ(s.find("missing"), nullptr);
}

TEST(DumpJsonHostile, HugeDimensionIsAnOverflowNotNegative) {
  const std::string j = R"({"data": {"A.a.0.forward": {"output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [9223372036854775808]}]}}})";
  const std::string e = what_of([&] { td::io::parse_dump_json(j, "d.json"); });
  EXPECT_NE(e.find("/shape/0: dimension 9223372036854775808 does not fit"), std::string::npos) << e;
}

TEST(DumpJsonHostile, DataFilesStayInsideTheDump) {
  TempDir t("inside");
  write_text(t.path / "dump" / "a.npy", "x");
  write_text(t.path / "secret.npy", "s");
  std::filesystem::create_symlink(t.path / "secret.npy", t.path / "dump" / "link.npy");
  std::filesystem::create_symlink("a.npy", t.path / "dump" / "inner.npy");
  EXPECT_NO_THROW(td::io::check_inside_folder(t.path / "dump", t.path / "dump" / "a.npy", false));
  EXPECT_NO_THROW(td::io::check_inside_folder(t.path / "dump", t.path / "dump" / "inner.npy", false));
  EXPECT_NO_THROW(td::io::check_inside_folder(t.path / "dump", t.path / "dump" / "missing.npy", false));
  const std::string e = what_of([&] { td::io::check_inside_folder(t.path / "dump", t.path / "dump" / "link.npy", false); });
  EXPECT_NE(e.find("link.npy: resolves to"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the dump folder"), std::string::npos) << e;
  EXPECT_NO_THROW(td::io::check_inside_folder(t.path / "dump", t.path / "dump" / "link.npy", true));
}

TEST(DumpJsonHostile, OnlyRegularFilesAreRead) {
  TempDir t("regular");
  const auto fifo = t.path / "stack.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string e = what_of([&] { td::io::detail::read_text_file(fifo); });  // would block in open() before
  EXPECT_NE(e.find("stack.json: is a FIFO"), std::string::npos) << e;
  e = what_of([&] { td::io::detail::read_text_file(t.path); });
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
  e = what_of([&] { td::io::detail::read_text_file("/dev/zero"); });
  EXPECT_NE(e.find("/dev/zero: is a device"), std::string::npos) << e;
  write_text(t.path / "big.json", std::string(100, ' '));
  e = what_of([&] { td::io::detail::read_text_file(t.path / "big.json", 10); });
  EXPECT_NE(e.find("exceeds the limit of 10 bytes"), std::string::npos) << e;
}

// The linear-time builder must give exactly what nlohmann's own DOM parser
// gives (and Python's json.load: a duplicate key keeps its first position and
// takes the last value), for small objects (scan) and large ones (hashed).
TEST(DumpJson, LinearBuilderEqualsDomParser) {
  for (const int n : {3, 31, 32, 33, 500}) {
    std::string text = "{\"data\": {";
    for (int i = 0; i < n; ++i) {
      if (i) text += ", ";
      const int key = (i * 7) % (n / 2 + 1);  // repeats every key about twice, out of order
      text += "\"k" + std::to_string(key) + "\": ";
      text += i % 3 == 0 ? "[1, {\"a\": " + std::to_string(i) + ", \"a\": null}, []]"
                         : i % 3 == 1 ? "{\"x\": " + std::to_string(i) + ".5}" : std::to_string(i);
    }
    text += "}, \"z\": NaN, \"data\": {\"last\": true, \"last\": false}}";
    std::vector<std::pair<std::size_t, long>> shifts;
    const auto expected = nlohmann::ordered_json::parse(td::io::detail::rewrite_python_literals(text, shifts));
    const auto got = td::io::detail::parse_python_json(text, "dup.json");
    EXPECT_EQ(got.dump(), expected.dump()) << "n=" << n;
  }
  const auto err = error_of([] { td::io::detail::parse_python_json("{\"a\": [1, 2,, 3]}", "bad.json"); });
  EXPECT_NE(std::string(err.what()).find("malformed JSON"), std::string::npos) << err.what();
  EXPECT_NE(std::string(err.what()).find("bad.json"), std::string::npos) << err.what();
}
