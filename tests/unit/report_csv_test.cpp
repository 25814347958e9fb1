// Python float formatting (repr, '{:.12f}', round) and the CSV / JSON-lines
// writers. Literal expectations are Python's documented output (spec §1.2,
// §1.3, §3.1), not tensordiff's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <limits>
#include <random>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/report/csv.hpp>
#include <tensordiff/report/outputs.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
namespace pyformat = td::pyformat;

TEST(PyRepr, PythonFloatReprFacts) {
  EXPECT_EQ(pyformat::repr(9.14298e-05), "9.14298e-05");  // spec §1.2
  EXPECT_EQ(pyformat::repr(1e-05), "1e-05");
  EXPECT_EQ(pyformat::repr(0.0001), "0.0001");
  EXPECT_EQ(pyformat::repr(0.1), "0.1");
  EXPECT_EQ(pyformat::repr(1.0), "1.0");
  EXPECT_EQ(pyformat::repr(-0.0), "-0.0");
  EXPECT_EQ(pyformat::repr(0.0), "0.0");
  EXPECT_EQ(pyformat::repr(1e16), "1e+16");
  EXPECT_EQ(pyformat::repr(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(pyformat::repr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(pyformat::repr(1.5e300), "1.5e+300");
  EXPECT_EQ(pyformat::repr(5e-324), "5e-324");
  EXPECT_EQ(pyformat::repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(pyformat::repr(2.0 / 3.0), "0.6666666666666666");
  EXPECT_EQ(pyformat::repr(100.0), "100.0");
  EXPECT_EQ(pyformat::repr(-12345.678), "-12345.678");
  EXPECT_EQ(pyformat::repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(pyformat::repr(std::nan("")), "nan");
}

TEST(PyRepr, ShortestRoundTripOnRandomDoubles) {
  // Property: the string parses back to the same double, and no shorter
  // %.{p}g string (p < digits) does.
  std::mt19937_64 g(42);
  for (int i = 0; i < 20000; ++i) {
    double x;
    const std::uint64_t b = g();
    std::memcpy(&x, &b, sizeof x);
    if (!std::isfinite(x)) continue;
    const std::string s = pyformat::repr(x);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
    std::string digits;
    for (char c : s.substr(0, s.find('e'))) if (c >= '0' && c <= '9') digits += c;
    while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    if (digits.size() > 1) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", static_cast<int>(std::min<std::size_t>(digits.size(), 18)) - 1, x);
      EXPECT_NE(std::strtod(buf, nullptr), x) << s << " is not shortest";
    }
  }
}

TEST(PyFormat, TwelveDecimalsAndCosineRule) {
  // float('{:.12f}'.format(x))
  EXPECT_EQ(pyformat::repr(pyformat::fixed12(0.1234567890123456)), "0.123456789012");
  EXPECT_EQ(pyformat::repr(pyformat::fixed12(1e-13)), "0.0");
  EXPECT_EQ(pyformat::repr(pyformat::fixed12(4.9999999999995e-13)), "0.0");
  EXPECT_EQ(pyformat::repr(pyformat::fixed12(2.5e-05)), "2.5e-05");
  EXPECT_EQ(pyformat::repr(pyformat::fixed12(123.4567890123456789)), "123.456789012346");
  // cosine: 12 decimals, then round(x, 6) above 0.9999
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.99999987654321)), "1.0");
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.99994321987654)), "0.999943");
  // not above 0.9999: only the 12-decimal rounding applies
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.99981234567891)), "0.999812345679");
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.99981234567891234)), "0.999812345679");
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.9998)), "0.9998");
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.5000000000004)), "0.5");
  EXPECT_EQ(pyformat::repr(pyformat::cosine(0.123456789012345)), "0.123456789012");
}

TEST(Cells, CsvSpellings) {
  using td::match::Cell;
  EXPECT_EQ(csv_text(Cell::number(std::numeric_limits<double>::infinity())), " inf");
  EXPECT_EQ(csv_text(Cell::number(-std::numeric_limits<double>::infinity())), " -inf");
  EXPECT_EQ(csv_text(Cell::number(std::nan(""))), "Nan");
  EXPECT_EQ(csv_text(Cell::none()), "None");
  EXPECT_EQ(csv_text(Cell::flag(true)), "True");
  EXPECT_EQ(csv_text(Cell::integral(-3)), "-3");
  EXPECT_EQ(csv_text(Cell::number(12.5, Cell::Style::percent)), "12.5%");
  EXPECT_EQ(csv_text(Cell::number(0.1234567890123456, Cell::Style::fixed12)), "0.123456789012");
  EXPECT_EQ(csv_text(Cell::number(0.1234567890123456)), "0.1234567890123456");
}

TEST(Csv, FileNames) {
  EXPECT_EQ(td::report::result_file_name(-1, "20260101120000"), "compare_result_20260101120000.csv");
  EXPECT_EQ(td::report::result_file_name(3, "20260101120000"), "compare_result_rank3_20260101120000.csv");
  EXPECT_EQ(td::report::result_file_name(0, "20260101120000", "step2"), "compare_result_step2_rank0_20260101120000.csv");
  const std::string ts = td::report::timestamp_now();
  EXPECT_EQ(ts.size(), 14u);
  EXPECT_EQ(ts.find_first_not_of("0123456789"), std::string::npos);
}

namespace {
// A one-entry statistics comparison built from a dump folder written here.
struct OneRow {
  mt::TempDir d{"csv"};
  td::match::DumpComparison r;
  explicit OneRow(const std::string& npu_name, const std::string& value = "1.0") {
    const std::string leaf = R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": )" + value +
                             R"(, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false})";
    const std::string j = R"({"task": "statistics", "data": {")" + npu_name + R"(": {"input_args": [)" + leaf + R"(], "output": [)" + leaf + "]}}}";
    mt::write_text(d.path / "a" / "dump.json", j);
    mt::write_text(d.path / "b" / "dump.json", j);
    td::match::CompareRequest req;
    req.npu = d.path / "a";
    req.bench = d.path / "b";
    r = td::match::run_compare(req);
  }
};
}  // namespace

TEST(Csv, QuotingAndFormulaGuard) {
  OneRow ok("Torch.add.0.forward");
  std::ostringstream os;
  td::report::write_csv(os, ok.r.ranks[0], ok.r.layout_for(ok.r.ranks[0]));
  const auto t = mt::parse_csv(os.str());
  ASSERT_EQ(t.size(), 3u);
  // Err_message "[]" and names need no quotes; the parsed table round-trips
  EXPECT_EQ(t[1][0], "Torch.add.0.forward.input.0");
  EXPECT_EQ(os.str().find("\"[2]\""), std::string::npos);  // no comma, so no quotes
  // a name starting with '=' is a formula: escaped by default, refused under msprobe's rule
  OneRow bad("=cmd|' /C calc'!A0.x.0.forward");
  std::ostringstream o2;
  td::report::write_csv(o2, bad.r.ranks[0], bad.r.layout_for(bad.r.ranks[0]));
  EXPECT_EQ(mt::parse_csv(o2.str())[1][0], "'=cmd|' /C calc'!A0.x.0.forward.input.0");
  td::report::CsvOptions strict;
  strict.formula = td::report::CsvOptions::Formula::reject;
  std::ostringstream o3;
  try {
    td::report::write_csv(o3, bad.r.ranks[0], bad.r.layout_for(bad.r.ranks[0]), strict);
    FAIL() << "no error";
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::security);
  }
  // numbers starting with '-' are not formulas
  OneRow neg("Torch.neg.0.forward", "-1.5");
  std::ostringstream o4;
  td::report::write_csv(o4, neg.r.ranks[0], neg.r.layout_for(neg.r.ranks[0]), strict);
  EXPECT_NE(o4.str().find(",-1.5,"), std::string::npos);
}

TEST(Csv, SplitsIntoParts) {
  OneRow x("Torch.add.0.forward");
  td::report::CsvOptions o;
  o.rows_per_file = 1;
  const auto files = td::report::write_csv_file(x.r.ranks[0], x.r.layout_for(x.r.ranks[0]), (x.d.path / "compare_result_1.csv").string(), o);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(std::filesystem::path(files[0]).filename(), "compare_result_1_part_1.csv");
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    const auto t = mt::parse_csv(ss.str());
    ASSERT_EQ(t.size(), 2u);  // header + one row
    EXPECT_EQ(t[0][0], "NPU Name");
  }
}

TEST(Jsonl, TypedFieldsSameAsCsv) {
  OneRow x("Torch.add.0.forward");
  std::ostringstream os;
  td::report::write_jsonl(os, x.r.ranks[0], x.r.layout_for(x.r.ranks[0]));
  std::istringstream in(os.str());
  std::string line;
  std::vector<nlohmann::json> rows;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  const auto hdr = td::match::table_header(x.r.layout_for(x.r.ranks[0]));
  for (const auto& h : hdr) EXPECT_TRUE(rows[0].contains(h)) << h;
  EXPECT_TRUE(rows[0]["Requires_grad Consistent"].is_boolean());
  EXPECT_TRUE(rows[0]["NPU max"].is_number_float());
  EXPECT_EQ(rows[0]["NPU max"].get<double>(), 1.0);
  EXPECT_TRUE(rows[0]["Err_message"].is_array());
  EXPECT_EQ(rows[0]["Result"], "pass");
  EXPECT_EQ(rows[0]["match_reason"], "exact");
  EXPECT_EQ(rows[0]["Max diff"], "0");
}

namespace {
std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `write` and returns the io Error it must throw.
template <class Write>
td::Error expect_io_error(Write&& write) {
  try {
    write();
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::io) << e.what();
    return e;
  }
  ADD_FAILURE() << "no error";
  return td::Error(td::ErrorCategory::io, "none");
}
}  // namespace

TEST(Outputs, EveryFileOfACompareIsTheWritersOwn) {
  OneRow x("Torch.add.0.forward");
  const auto out = x.d.path / "out";
  const auto files = td::report::write_compare_outputs(x.r, out.string(), {true, true, "npu", "bench"}, "20261125000000");
  ASSERT_EQ(files.size(), 4u);  // CSV, JSON lines, report, summary
  const auto& rc = x.r.ranks[0];
  std::ostringstream csv, jsonl;
  td::report::write_csv(csv, rc, x.r.layout_for(rc));
  td::report::write_jsonl(jsonl, rc, x.r.layout_for(rc));
  EXPECT_EQ(std::filesystem::path(files[0]).filename(), "compare_result_20261125000000.csv");
  EXPECT_EQ(read_file(files[0]), csv.str());
  EXPECT_EQ(read_file(files[1]), jsonl.str());
  EXPECT_EQ(read_file(files[2]), td::report::render_html(td::report::html_report(x.r, "npu", "bench")));
  EXPECT_EQ(nlohmann::ordered_json::parse(read_file(files[3])), td::report::summary_json(x.r));
  // The staging folder is gone: the folder holds exactly the files returned.
  std::set<std::string> listed, returned(files.begin(), files.end());
  for (const auto& e : std::filesystem::directory_iterator(out)) listed.insert(e.path().string());
  EXPECT_EQ(listed, returned);
}

TEST(Outputs, AFailedWriteLeavesNoStagingFolderAndNamesTheFile) {
  OneRow x("Torch.add.0.forward");
  const auto out = x.d.path / "out";
  // A non-empty folder where summary.json must go: its move into place fails.
  std::filesystem::create_directories(out / "summary.json" / "keep");
  const auto e = expect_io_error([&] { td::report::write_compare_outputs(x.r, out.string(), {false, false, "", ""}); });
  EXPECT_NE(std::string(e.what()).find("summary.json"), std::string::npos) << e.what();
  for (const auto& f : std::filesystem::directory_iterator(out))
    EXPECT_EQ(f.path().filename().string().rfind(".tensordiff-partial", 0), std::string::npos) << f.path() << " left behind";
}

TEST(Outputs, AWriteThatFailsWhileStagedNamesTheFinalFile) {
  OneRow x("Torch.add.0.forward");
  const auto out = x.d.path / "out";
  // A file name longer than any file system takes (NAME_MAX 255): creating the CSV fails.
  const std::string timestamp(250, '7');
  const auto e =
      expect_io_error([&] { td::report::write_compare_outputs(x.r, out.string(), {false, false, "", ""}, timestamp); });
  const std::string final_csv = (out / ("compare_result_" + timestamp + ".csv")).string();
  EXPECT_EQ(e.context().file, final_csv) << e.what();
  EXPECT_NE(e.reason().find(".tensordiff-partial-"), std::string::npos) << e.what();  // where it was written
  EXPECT_TRUE(std::filesystem::is_empty(out));
}

TEST(Outputs, AFullDiskIsAnErrorNamingTheFile) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  OneRow x("Torch.add.0.forward");
  const auto& rc = x.r.ranks[0];
  // Small outputs sit in the stream's buffer until it is closed: the close must be checked.
  const auto csv = expect_io_error([&] { td::report::write_csv_file(rc, x.r.layout_for(rc), "/dev/full"); });
  EXPECT_NE(std::string(csv.what()).find("/dev/full"), std::string::npos) << csv.what();
  EXPECT_NE(std::string(csv.what()).find("write failed"), std::string::npos) << csv.what();
  const auto html = expect_io_error([&] { td::report::write_html(td::report::html_report(x.r, "a", "b"), "/dev/full"); });
  EXPECT_NE(std::string(html.what()).find("/dev/full"), std::string::npos) << html.what();
  // Atomic writes: the temporary goes (here a link to the full device), the final name never appears.
  const auto target = x.d.path / "dump.json";
  std::filesystem::create_symlink("/dev/full", x.d.path / "dump.json.tmp");
  const auto atomic = expect_io_error([&] { td::io::detail::write_bytes_atomically(target.string(), std::string(100, 'x')); });
  EXPECT_EQ(atomic.context().file, target.string()) << atomic.what();  // the name asked for, not the temporary's
  EXPECT_NE(atomic.reason().find("dump.json.tmp"), std::string::npos) << atomic.what();
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(x.d.path / "dump.json.tmp")));
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_TRUE(std::filesystem::exists("/dev/full"));
}

TEST(Outputs, AMissingFolderIsAnErrorNamingTheFile) {
  OneRow x("Torch.add.0.forward");
  const auto f = (x.d.path / "no" / "such" / "t.csv").string();
  const auto e = expect_io_error([&] { td::report::write_csv_file(x.r.ranks[0], x.r.layout_for(x.r.ranks[0]), f); });
  EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
}
