// tensordiff::json: nlohmann/json through tensordiff's JSON writers.
#include <tensordiff/report/json.hpp>

#include <cmath>
#include <cstdio>

int main() {
  const std::string s = tensordiff::report::shape_json({2, 3}).dump() + tensordiff::report::number(std::nan("")).dump();
  std::printf("json %s\n", s.c_str());
  return s == "[2,3]\"nan\"" ? 0 : 1;
}
