// tensordiff::zlib: deflated .npz members (np.savez_compressed) are read.
#include <tensordiff/io/npz.hpp>

#include <cstdio>

int main() {
  const auto t = tensordiff::io::read_npz(TD_DEFLATED_NPZ);
  std::printf("zlib: %zu tensors, first '%s'\n", t.size(), t.empty() ? "" : t[0].path.c_str());
  return t.size() == 3 && t[0].path == "weight" ? 0 : 1;
}
