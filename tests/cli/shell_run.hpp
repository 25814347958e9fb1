// Runs a shell command line for the CLI tests, capturing stdout, stderr and
// the exit code (-1 when the command did not exit normally).
#pragma once
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace td_test {

struct CliRun {
  int code = -1;
  std::string out, err;
};

inline CliRun shell(const std::string& cmd) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path err_file =
      fs::temp_directory_path() / ("td_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  CliRun r;
  FILE* p = ::popen((cmd + " 2>" + err_file.string()).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  fs::remove(err_file);
  return r;
}

}  // namespace td_test
