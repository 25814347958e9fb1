// Statistics- and md5-mode dump comparison: every CSV cell against values
// computed here from the numbers written into dump.json (spec §2.1, §2.2, §3.3).
#include <gtest/gtest.h>

#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/report/csv.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
using namespace mt;

namespace {

std::string leaf(const std::string& stats, const char* dtype = "torch.float32", const char* shape = "[2, 2]", const std::string& extra = "") {
  return std::string(R"({"type": "torch.Tensor", "dtype": ")") + dtype + R"(", "shape": )" + shape + ", " + stats +
         R"(, "requires_grad": false)" + extra + "}";
}
/// A float as Python's json writes it (always with a '.' or an exponent).
std::string pyfloat(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", x);
  std::string s = b;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
std::string stats(double mx, double mn, double mean, double norm) {
  return "\"Max\": " + pyfloat(mx) + ", \"Min\": " + pyfloat(mn) + ", \"Mean\": " + pyfloat(mean) + ", \"Norm\": " + pyfloat(norm);
}

struct Pair {
  TempDir dir{"stats"};
  fs::path npu, bench;
  Pair(const std::string& npu_data, const std::string& bench_data, const char* task = "statistics") {
    npu = dir.path / "npu";
    bench = dir.path / "bench";
    write_text(npu / "dump.json", std::string(R"({"task": ")") + task + R"(", "level": "L1", "dump_data_dir": null, "data": {)" + npu_data + "}}");
    write_text(bench / "dump.json", std::string(R"({"task": ")") + task + R"(", "level": "L1", "dump_data_dir": null, "data": {)" + bench_data + "}}");
  }
  std::vector<std::vector<std::string>> csv(td::match::Compat c = td::match::Compat::tensordiff,
                                            td::match::ResultRules rules = td::match::ResultRules::current) const {
    td::match::CompareRequest req;
    req.npu = npu;
    req.bench = bench;
    req.compat = c;
    req.rules = rules;
    auto r = td::match::run_compare(req);
    std::ostringstream os;
    td::report::write_csv(os, r.ranks[0], r.layout_for(r.ranks[0]));
    return parse_csv(os.str());
  }
};

std::vector<std::string> row_of(const std::vector<std::vector<std::string>>& t, const std::string& name) {
  for (std::size_t i = 1; i < t.size(); ++i)
    if (t[i][0] == name) return t[i];
  ADD_FAILURE() << "no row " << name;
  return std::vector<std::string>(t[0].size());
}

}  // namespace

TEST(MatchStatistics, HeaderAndDiffCells) {
  // input: identical; output: Max differs by 0.25, Min equal, Mean bench 0, Norm relative 60%.
  const double nmax = 1.75, bmax = 1.5, mn = -0.5, nmean = 0.125, bmean = 0.0, nnorm = 8.0, bnorm = 5.0;
  const std::string n = R"("Torch.matmul.0.forward": {"input_args": [)" + leaf(stats(1, -1, 0.5, 2)) + R"(], "output": [)" +
                        leaf(stats(nmax, mn, nmean, nnorm)) + R"(]}, "Torch.scale.0.forward": {"input_args": [{"type": "float", "value": 0.001}]})";
  const std::string b = R"("Torch.matmul.0.forward": {"input_args": [)" + leaf(stats(1, -1, 0.5, 2)) + R"(], "output": [)" +
                        leaf(stats(bmax, mn, bmean, bnorm)) + R"(]}, "Torch.scale.0.forward": {"input_args": [{"type": "float", "value": 0.0}]})";
  Pair p(n, b);
  const auto t = p.csv();
  const std::vector<std::string> want = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
                                         "NPU Requires_grad", "Bench Requires_grad", "Max diff", "Min diff", "Mean diff", "L2norm diff",
                                         "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min",
                                         "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm",
                                         "Requires_grad Consistent", "Result", "Err_message"};
  ASSERT_EQ(t[0], want);
  ASSERT_EQ(t.size(), 4u);
  const auto& h = t[0];
  const auto in0 = row_of(t, "Torch.matmul.0.forward.input.0");
  for (const char* c : {"Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"})
    EXPECT_EQ(in0[col(h, c)], "0") << c;  // equal strings → '0'
  EXPECT_EQ(in0[col(h, "Result")], "pass");
  // float kwarg 0.001 vs 0.0: diff 0.001 and rel 'inf' (spec §2.1 example)
  const auto in1 = row_of(t, "Torch.scale.0.forward.input.0");
  EXPECT_EQ(in1[col(h, "NPU Dtype")], "<class 'float'>");
  EXPECT_EQ(in1[col(h, "Max diff")], "0.001");
  EXPECT_EQ(in1[col(h, "MaxRelativeErr")], "inf");
  EXPECT_EQ(in1[col(h, "Result")], "error");  // Parameters rule: scalar arguments differ
  EXPECT_EQ(in1[col(h, "Err_message")], "[\"error: The scalar parameters of NPU and Bench are inconsistent.\"]");
  const auto out = row_of(t, "Torch.matmul.0.forward.output.0");
  EXPECT_TRUE(NumberCellNear(out[col(h, "Max diff")], static_cast<long double>(nmax) - bmax, 0));
  EXPECT_EQ(out[col(h, "Min diff")], "0");
  EXPECT_TRUE(NumberCellNear(out[col(h, "Mean diff")], nmean - bmean, 0));
  EXPECT_TRUE(NumberCellNear(out[col(h, "L2norm diff")], nnorm - bnorm, 0));
  auto pct = [](double n, double b) { return std::to_string(std::fabs((n - b) / b * 100)); };
  (void)pct;
  // rel = str(|diff / b * 100|) + '%'
  const std::string maxrel = out[col(h, "MaxRelativeErr")];
  ASSERT_EQ(maxrel.back(), '%');
  EXPECT_TRUE(NumberCellNear(maxrel.substr(0, maxrel.size() - 1), std::fabs((nmax - bmax) / bmax * 100), 1e-15));
  EXPECT_EQ(out[col(h, "MeanRelativeErr")], "inf");  // bench mean 0
  EXPECT_EQ(out[col(h, "NormRelativeErr")], "60.0%");
  // Relative rule: inputs' NormRelErr 0 < 10%, output 60% > 50% → error; RelativeWarn: in == 0 and out > 0.1
  EXPECT_EQ(out[col(h, "Result")], "error");
  EXPECT_EQ(out[col(h, "Err_message")],
            "[\"error: The NormRelativeErr of the inputs is < 10% while that of the output > 50%.\", "
            "\"warning: The NormRelativeErr of the output is more than 10 times that of the inputs.\"]");
  EXPECT_EQ(out[col(h, "NPU max")], "1.75");
  EXPECT_EQ(out[col(h, "Bench mean")], "0.0");
  EXPECT_EQ(out[col(h, "Requires_grad Consistent")], "True");
}

TEST(MatchStatistics, SpecialValueRules) {
  // Each output leaf exercises one rule of §2.1's table on the Max column.
  struct Case {
    const char* n;
    const char* b;
    const char* diff;
    const char* rel;
  };
  const Case cases[] = {
      {"NaN", "1.0", "Nan", "Nan"},       {"1.0", "NaN", "Nan", "Nan"},          {"Infinity", "1.0", "inf", "inf"},
      {"-Infinity", "1.0", "-inf", "-inf"}, {"1.0", "Infinity", "-inf", "-inf"}, {"1.0", "-Infinity", "inf", "inf"},
      {"Infinity", "Infinity", "0", "0"}, {"NaN", "NaN", "0", "0"},              {"\"npu:0\"", "\"cuda:0\"", "N/A", "N/A"},
      {"true", "1.0", "Diff", "Diff"},    {"Infinity", "-Infinity", "inf", "inf"}, {"null", "1.0", "Diff", "Diff"},
  };
  std::string n = R"("Torch.f.0.forward": {"output": [)", b = n;
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const std::string sep = i ? ", " : "";
    n += sep + leaf(std::string("\"Max\": ") + cases[i].n + R"(, "Min": 0.0, "Mean": 0.0, "Norm": 0.0)");
    b += sep + leaf(std::string("\"Max\": ") + cases[i].b + R"(, "Min": 0.0, "Mean": 0.0, "Norm": 0.0)");
  }
  Pair p(n + "]}", b + "]}");
  const auto t = p.csv();
  const auto& h = t[0];
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const auto r = row_of(t, "Torch.f.0.forward.output." + std::to_string(i));
    EXPECT_EQ(r[col(h, "Max diff")], cases[i].diff) << cases[i].n << " vs " << cases[i].b;
    EXPECT_EQ(r[col(h, "MaxRelativeErr")], cases[i].rel) << cases[i].n << " vs " << cases[i].b;
  }
  // inf stats are written " inf" (leading space); NaN as Nan; bool True; null None
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.2")[col(h, "NPU max")], " inf");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.3")[col(h, "NPU max")], " -inf");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.0")[col(h, "NPU max")], "Nan");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.9")[col(h, "NPU max")], "True");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.11")[col(h, "NPU max")], "None");
  // InfNan rule: NPU max inf with a finite bench → error; skipped when the bench max is inf/nan
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.2")[col(h, "Result")], "error");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.output.6")[col(h, "Result")], "pass");
}

TEST(MatchStatistics, DtypeGateAndDtypeRule) {
  const std::string n = R"("Torch.f.0.forward": {"input_args": [)" + leaf(stats(1, 0, 0.5, 1), "torch.int32") + ", " +
                        leaf(stats(1, 0, 0.5, 1), "torch.bfloat16") + "]}";
  const std::string b = R"("Torch.f.0.forward": {"input_args": [)" + leaf(stats(1, 0, 0.5, 1), "torch.int64") + ", " +
                        leaf(stats(1, 0, 0.5, 1), "torch.float32") + "]}";
  Pair p(n, b);
  const auto t = p.csv();
  const auto& h = t[0];
  // int32 vs int64: the dtype gate unpairs the row (bench columns N/A)
  const auto r0 = row_of(t, "Torch.f.0.forward.input.0");
  EXPECT_EQ(r0[col(h, "Bench Name")], "N/A");
  EXPECT_EQ(r0[col(h, "Max diff")], "N/A");
  // bf16 vs fp32: paired, but the DType rule errors
  const auto r1 = row_of(t, "Torch.f.0.forward.input.1");
  EXPECT_EQ(r1[col(h, "Bench Dtype")], "torch.float32");
  EXPECT_EQ(r1[col(h, "Result")], "error");
  EXPECT_EQ(r1[col(h, "Err_message")], "[\"error: The dtype of NPU and Bench are inconsistent.\"]");
}

TEST(MatchStatistics, CrossFrameworkDtypeSpelling) {
  TempDir d("xfw");
  const std::string ms = std::string(R"({"task": "statistics", "level": "L1", "framework": "mindspore", "data": {"Functional.abs.0.forward": {"input_args": [)") +
                         leaf(stats(1, 0, 0.5, 1), "Float32") + "]}}}";
  const std::string pt = std::string(R"({"task": "statistics", "level": "L1", "framework": "pytorch", "data": {"Functional.abs.0.forward": {"input_args": [)") +
                         leaf(stats(1, 0, 0.5, 1), "torch.float32") + "]}}}";
  write_text(d.path / "ms" / "dump.json", ms);
  write_text(d.path / "pt" / "dump.json", pt);
  for (auto c : {td::match::Compat::tensordiff, td::match::Compat::msprobe}) {
    td::match::CompareRequest req;
    req.npu = d.path / "ms";
    req.bench = d.path / "pt";
    req.compat = c;
    const auto r = td::match::run_compare(req);
    ASSERT_TRUE(r.ranks[0].rows[0].matched());
    // msprobe compares the dtype strings, so Float32 vs torch.float32 is an error there
    EXPECT_EQ(r.ranks[0].rows[0].result, c == td::match::Compat::msprobe ? "error" : "pass");
  }
}

TEST(MatchMd5, Crc32ColumnsAndRules) {
  const std::string n = R"("Torch.f.0.forward": {"input_args": [)" + leaf(stats(1, 0, 0.5, 1), "torch.float32", "[2, 2]", R"(, "md5": "0badf00d")") +
                        R"(, {"type": "int", "value": -1}, {"type": "int", "value": 2}], "output": [)" +
                        leaf(stats(1, 0, 0.5, 1), "torch.float32", "[2, 2]", R"(, "md5": "12345678")") + "]}";
  const std::string b = R"("Torch.f.0.forward": {"input_args": [)" + leaf(stats(1, 0, 0.5, 1), "torch.float32", "[2, 2]", R"(, "md5": "0badf00d")") +
                        R"(, {"type": "int", "value": -1}, {"type": "int", "value": 3}], "output": [)" +
                        leaf(stats(1, 0, 0.5, 1), "torch.float32", "[2, 2]", R"(, "md5": "87654321")") + "]}";
  Pair p(n, b);
  const auto t = p.csv();
  const auto& h = t[0];
  const std::vector<std::string> want = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
                                         "NPU Requires_grad", "Bench Requires_grad", "NPU MD5", "BENCH MD5", "Requires_grad Consistent",
                                         "Result", "Err_message"};
  EXPECT_EQ(h, want);
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.input.0")[col(h, "Result")], "pass");
  // non-tensor leaves: crc32(str(value)); spec §2.2: -1 → 302d482a, 2 → 1ad5be0d
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.input.1")[col(h, "NPU MD5")], "302d482a");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.input.2")[col(h, "NPU MD5")], "1ad5be0d");
  EXPECT_EQ(row_of(t, "Torch.f.0.forward.input.2")[col(h, "Result")], "error");
  const auto out = row_of(t, "Torch.f.0.forward.output.0");
  EXPECT_EQ(out[col(h, "NPU MD5")], "12345678");
  EXPECT_EQ(out[col(h, "BENCH MD5")], "87654321");
  EXPECT_EQ(out[col(h, "Result")], "error");
  EXPECT_EQ(out[col(h, "Err_message")], "[\"error: The CRC-32 value of NPU differs from that of the bench.\"]");
  // legacy md5 table: no Err_message, Result pass / Different
  const auto lt = p.csv(td::match::Compat::tensordiff, td::match::ResultRules::legacy);
  EXPECT_EQ(lt[0].back(), "Result");
  EXPECT_EQ(row_of(lt, "Torch.f.0.forward.output.0")[col(lt[0], "Result")], "Different");
  EXPECT_EQ(row_of(lt, "Torch.f.0.forward.input.0")[col(lt[0], "Result")], "pass");
}
