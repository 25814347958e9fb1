// Helpers for the dump-matching tests: temporary dump folders written by the
// test itself (dump.json text, .npy data files), CSV parsing, and long-double
// reference metrics computed independently of tensordiff's kernels.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tensordiff/io/npy.hpp>
#include <tensordiff/core/pyformat.hpp>

namespace mt {
namespace fs = std::filesystem;

/// The bundled dump scenarios (tests/data/dumps/<scenario>/{npu,bench,expected.json}).
inline const fs::path kDumps = fs::path(TD_TEST_DATA_DIR) / "dumps";

/// A fresh temporary folder, removed at destruction.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    std::random_device rd;
    path = fs::temp_directory_path() / ("td_match_" + tag + "_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline void write_text(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << s;
}

/// Writes a float32 / float64 / int64 .npy with the given shape through numpy's format (io::save_npy).
template <class T>
void write_npy(const fs::path& p, const std::vector<T>& v, const tensordiff::Shape& shape) {
  fs::create_directories(p.parent_path());
  const auto t = tensordiff::Tensor::from_values<T>(v, shape);
  tensordiff::io::save_npy(p.string(), t.view());
}

/// Parses a CSV written with Python's QUOTE_MINIMAL rules.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool q = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (q) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') q = false;
      else cell += c;
      continue;
    }
    if (c == '"') q = true, any = true;
    else if (c == ',') rows.back().push_back(cell), cell.clear();
    else if (c == '\n') rows.back().push_back(cell), cell.clear(), rows.emplace_back();
    else cell += c;
  }
  if (!cell.empty() || !rows.back().empty()) rows.back().push_back(cell);
  (void)any;
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

/// Reference metrics of two equally long vectors, msprobe's formulas in long double.
struct RefMetrics {
  long double cosine = 0, euc = 0, max_abs = 0, max_rel = 0, thousandth = 0, five_thousandths = 0;
};

template <class A, class B>
RefMetrics reference(const std::vector<A>& a, const std::vector<B>& b, long double zero_eps = 1.1920928955078125e-07L) {
  RefMetrics r;
  long double dot = 0, na = 0, nb = 0, sq = 0;
  std::size_t t1 = 0, t5 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long double x = static_cast<long double>(a[i]), y = static_cast<long double>(b[i]);
    dot += x * y;
    na += x * x;
    nb += y * y;
    sq += (x - y) * (x - y);
    r.max_abs = std::max(r.max_abs, std::fabs(x - y));
    const long double rel = y == 0 ? std::fabs(x) / zero_eps : std::fabs((x - y) / y);
    r.max_rel = std::max(r.max_rel, rel);
    t1 += rel < 0.001L;
    t5 += rel < 0.005L;
  }
  r.cosine = dot / (std::sqrt(na) * std::sqrt(nb));
  r.euc = std::sqrt(sq);
  r.thousandth = static_cast<long double>(t1) / a.size();
  r.five_thousandths = static_cast<long double>(t5) / a.size();
  return r;
}

/// A CSV number cell equals the reference value after msprobe's rounding, up to `tol` (relative).
inline ::testing::AssertionResult NumberCellNear(const std::string& cell, long double ref, double tol = 1e-12) {
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || end != cell.c_str() + cell.size())
    return ::testing::AssertionFailure() << "cell \"" << cell << "\" is not a number";
  const double r = static_cast<double>(ref);
  if (std::fabs(v - r) <= tol * std::max(1.0, std::fabs(r))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "cell " << cell << " vs reference " << std::setprecision(17) << r;
}

/// Column index by header name.
inline std::size_t col(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace mt
