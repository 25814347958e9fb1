// `--compat msprobe` tables against msprobe 26.0's own: tests/data/msprobe_goldens (dumps made
// by msprobe's PrecisionDebugger, CSVs by msprobe's compare; see generate.py there). Every cell
// must equal msprobe's as text; only Cosine and EucDist may differ in their last printed digits
// (they depend on the BLAS under msprobe's numpy). Prints the count of identical cells.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/report/csv.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(TD_TEST_DATA_DIR) / "msprobe_goldens";

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Digits after the decimal point of a printed number ("0.999" -> 3); -1 when not a plain decimal.
int decimals(const std::string& s) {
  const auto dot = s.find('.');
  if (dot == std::string::npos || s.find_first_of("eE") != std::string::npos) return -1;
  return static_cast<int>(s.size() - dot - 1);
}

/// Cosine / EucDist: equal but for the last printed digits (≤ 1e-12 relative, as the Decisions allow).
bool close_in_last_digits(const std::string& ours, const std::string& theirs) {
  char* e1 = nullptr;
  char* e2 = nullptr;
  const double a = std::strtod(ours.c_str(), &e1), b = std::strtod(theirs.c_str(), &e2);
  if (*e1 || *e2 || ours.empty() || theirs.empty()) return false;
  const int d = decimals(theirs);
  const double unit = d >= 0 ? std::pow(10.0, -d) : 0.0;
  return std::fabs(a - b) <= std::max(3 * unit, 1e-12 * std::fabs(b));
}

struct Tally {
  std::size_t identical = 0, last_digits = 0, differing = 0;
};

Tally& total() {
  static Tally t;
  return t;
}

void compare_tables(const std::string& what, const std::vector<std::vector<std::string>>& ours,
                    const std::vector<std::vector<std::string>>& theirs, Tally& t) {
  ASSERT_FALSE(theirs.empty()) << what;
  ASSERT_EQ(ours.front(), theirs.front()) << what << ": header";
  EXPECT_EQ(ours.size(), theirs.size()) << what << ": rows";
  const auto& hdr = theirs.front();
  int reported = 0;
  for (std::size_t i = 1; i < std::min(ours.size(), theirs.size()); ++i) {
    ASSERT_EQ(ours[i].size(), theirs[i].size()) << what << " row " << i;
    for (std::size_t k = 0; k < hdr.size(); ++k) {
      if (ours[i][k] == theirs[i][k]) {
        ++t.identical;
        continue;
      }
      if ((hdr[k] == "Cosine" || hdr[k] == "EucDist") && close_in_last_digits(ours[i][k], theirs[i][k])) {
        ++t.last_digits;
        std::cout << what << " row " << i << " " << hdr[k] << ": tensordiff " << ours[i][k] << ", msprobe " << theirs[i][k]
                  << " (last digits)\n";
        continue;
      }
      ++t.differing;
      if (reported++ < 12)
        ADD_FAILURE() << what << " row " << i << " (" << theirs[i][0] << ") column " << hdr[k] << ":\n  tensordiff: "
                      << ours[i][k] << "\n  msprobe:    " << theirs[i][k];
    }
  }
}

nlohmann::json cases() { return nlohmann::json::parse(read_all(kRoot / "cases.json")); }

class MsprobeParity : public ::testing::TestWithParam<std::size_t> {};


TEST(MsprobeParityData, CasesArePresent) {
  const auto c = cases();
  ASSERT_GE(c.size(), 20u);
  std::size_t with_tables = 0;
  for (const auto& e : c) with_tables += !e["files"].empty();
  EXPECT_GE(with_tables, 20u);
}

TEST_P(MsprobeParity, CellByCell) {
  const auto all = cases();
  ASSERT_LT(GetParam(), all.size());
  const auto& e = all[GetParam()];
  const std::string name = e["case"].get<std::string>() + "/" + fs::path(e["npu"].get<std::string>()).filename().string();
  td::match::CompareRequest req;
  req.npu = kRoot / e["npu"].get<std::string>();
  req.bench = kRoot / e["bench"].get<std::string>();
  req.compat = td::match::Compat::msprobe;
  req.workers = 1;
  if (e["fuzzy"].get<bool>()) req.matcher = std::make_shared<td::match::FuzzyMatcher>();
  const td::match::DumpComparison r = td::match::run_compare(req);
  if (e["files"].empty()) {  // msprobe wrote nothing (statistics + fuzzy): tensordiff still writes a table
    ASSERT_FALSE(r.ranks.empty()) << name;
    EXPECT_FALSE(r.ranks.front().rows.empty()) << name;
    return;
  }
  ASSERT_EQ(r.ranks.size(), e["files"].size()) << name;
  td::report::CsvOptions o;
  o.formula = td::report::CsvOptions::Formula::reject;
  Tally t;
  for (std::size_t k = 0; k < r.ranks.size(); ++k) {
    const auto& rc = r.ranks[k];
    const std::string file = td::report::result_file_name(rc, r.compat, r.multi_rank, "TS");
    const std::string expected = e["files"][k].get<std::string>();
    EXPECT_EQ(file, expected.substr(0, expected.size() - 4) + "_TS.csv") << name;
    std::ostringstream os;
    td::report::write_csv(os, rc, r.layout_for(rc), o);
    compare_tables(name + "/" + expected, mt::parse_csv(os.str()),
                   mt::parse_csv(read_all(kRoot / e["expected"].get<std::string>() / expected)), t);
  }
  total().identical += t.identical;
  total().last_digits += t.last_digits;
  total().differing += t.differing;
}

INSTANTIATE_TEST_SUITE_P(Goldens, MsprobeParity, ::testing::Range<std::size_t>(0, cases().size()));

struct PrintTotal : ::testing::Environment {
  void TearDown() override {
    const Tally& t = total();
    std::cout << "msprobe parity: " << t.identical << " / " << (t.identical + t.last_digits + t.differing)
              << " cells identical, " << t.last_digits << " Cosine/EucDist cells differ in the last digits, " << t.differing
              << " differ\n";
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new PrintTotal);

}  // namespace
