// tensordiff::yaml: msprobe mapping files are parsed by yaml-cpp.
#include <tensordiff/match/mapping_files.hpp>

#include <cstdio>
#include <fstream>
#include <string>

int main() {
  const std::string good = "consumer_yaml_good.yaml", bad = "consumer_yaml_bad.yaml";
  std::ofstream(good) << "fc2.Dense: fc2.Linear\n";
  std::ofstream(bad) << "a: [unclosed\n";
  tensordiff::match::load_cell_mapping(good);
  try {
    tensordiff::match::load_cell_mapping(bad);
  } catch (const tensordiff::Error& e) {
    std::printf("yaml: %s\n", e.what());
    return std::string(e.what()).find("malformed YAML") != std::string::npos ? 0 : 1;
  }
  return 1;
}
