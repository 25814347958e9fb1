// examples/engine_dump (a C++ MLP dumping itself with io::DumpWriter) against
// tests/data/writer_msprobe, made by tests/data/generate_writer_msprobe.py:
// the engine's dumps, the same model dumped by msprobe 26.0's own dumper, and
// msprobe's own `compare` table of the two. Checks that the engine still
// writes the files msprobe accepted, and that `tensordiff compare --compat
// msprobe` gives msprobe's table and finds the injected bug.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string run(const std::string& cmd, int* code) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  const int status = ::pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Minimal RFC 4180 reader (quoted cells may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  const std::string s = slurp(p);
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell), cell.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      rows.back().push_back(cell), cell.clear();
      rows.emplace_back();
    } else {
      cell += c;
    }
  }
  if (!cell.empty() || !rows.back().empty()) rows.back().push_back(cell);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

struct Case {
  const char* name;
  const char* args;
};
const Case kCases[] = {{"tensor_f32", "--dtype float32 --task tensor --inject"},
                       {"statistics_bf16", "--dtype bfloat16 --task statistics --inject"},
                       {"md5_f32", "--dtype float32 --task md5 --inject"}};

fs::path golden(const char* c) { return fs::path(TD_TEST_DATA_DIR) / "writer_msprobe" / c; }

std::string without_data_dir(const std::string& s) {
  return std::regex_replace(s, std::regex(R"("dump_data_dir": "[^"]*")"), "\"dump_data_dir\": \"\"");
}

}  // namespace

TEST(EngineDump, WritesTheDumpsMsprobeAccepted) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const fs::path out = fs::temp_directory_path() / ("td_engine_" + std::to_string(::getpid()) + "_" + c.name);
    fs::remove_all(out);
    int code = -1;
    const std::string log = run(std::string(TD_ENGINE) + " " + out.string() + " " + c.args, &code);
    ASSERT_EQ(code, 0) << log;
    const fs::path mine = out / "step0" / "rank0", ref = golden(c.name) / "engine" / "step0" / "rank0";
    EXPECT_EQ(without_data_dir(slurp(mine / "dump.json")), without_data_dir(slurp(ref / "dump.json")));
    EXPECT_EQ(slurp(mine / "construct.json"), slurp(ref / "construct.json"));
    EXPECT_EQ(fs::exists(mine / "dump_tensor_data"), fs::exists(ref / "dump_tensor_data"));
    if (fs::exists(ref / "dump_tensor_data")) {
      for (const auto& f : fs::directory_iterator(ref / "dump_tensor_data"))
        EXPECT_EQ(slurp(mine / "dump_tensor_data" / f.path().filename()), slurp(f.path())) << f.path().filename();
    }
    fs::remove_all(out);
  }
}

// In tensor mode msprobe itself passes the leaky ReLU (its one-thousandth rule, see the spec's quirks);
// tensordiff's own rules and any md5 comparison stop at it.
TEST(EngineDump, CompareFindsTheInjectedBug) {
  for (const char* c : {"tensor_f32", "md5_f32"}) {
    SCOPED_TRACE(c);
    const fs::path out = fs::temp_directory_path() / ("td_engine_bug_" + std::to_string(::getpid()) + "_" + c);
    const fs::path g = golden(c);
    int code = -1;
    const std::string log = run(std::string(TD_CLI) + " compare " + (g / "engine").string() + " " + (g / "torch").string() +
                                    " -o " + out.string() + " --quiet",
                                &code);
    EXPECT_EQ(code, 1) << log;
    EXPECT_NE(log.find("first divergence: Functional.relu.0.forward"), std::string::npos) << log;
    fs::remove_all(out);
  }
}

TEST(EngineDump, CompareCompatGivesMsprobesTable) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const fs::path out = fs::temp_directory_path() / ("td_engine_cmp_" + std::to_string(::getpid()) + "_" + c.name);
    fs::remove_all(out);
    const fs::path g = golden(c.name);
    int code = -1;
    const std::string log = run(std::string(TD_CLI) + " compare " + (g / "engine").string() + " " + (g / "torch").string() +
                                    " -o " + out.string() + " --compat msprobe --quiet",
                                &code);
    EXPECT_NE(code, 2) << log;
    fs::path csv;
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().filename().string().rfind("compare_result_", 0) == 0 && e.path().extension() == ".csv") csv = e.path();
    ASSERT_FALSE(csv.empty()) << log;
    const auto ours = read_csv(csv), theirs = read_csv(g / "msprobe_compare.csv");
    ASSERT_EQ(ours.size(), theirs.size());
    ASSERT_EQ(ours[0], theirs[0]);
    for (std::size_t r = 1; r < ours.size(); ++r) {
      ASSERT_EQ(ours[r].size(), theirs[r].size()) << "row " << r;
      for (std::size_t k = 0; k < ours[r].size(); ++k) {
        const std::string& col = theirs[0][k];
        if ((col == "Cosine" || col == "EucDist") && ours[r][k] != theirs[r][k]) {
          // the decision allows BLAS-dependent last digits here
          EXPECT_NEAR(std::stod(ours[r][k]), std::stod(theirs[r][k]), 1e-9) << theirs[r][0] << " " << col;
        } else {
          EXPECT_EQ(ours[r][k], theirs[r][k]) << theirs[r][0] << " " << col;
        }
      }
    }
    fs::remove_all(out);
  }
}
