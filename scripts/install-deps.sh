#!/usr/bin/env bash
# Installs the Debian packages tensordiff builds with, if any are missing.
# Idempotent: a no-op (no apt-get call at all) when everything is present.
# Works as root, or through sudo otherwise. Extra package names may be passed
# as arguments (e.g. chromium for the HTML report check).
set -euo pipefail

packages=(
  g++ cmake make
  libgtest-dev libgmock-dev libbenchmark-dev   # tests, benchmarks
  libhwy-dev libxsimd-dev libeigen3-dev         # SIMD kernels
  nlohmann-json3-dev libyaml-cpp-dev            # dump.json, mapping files
  libcli11-dev zlib1g-dev                       # CLI, deflated .npz
  libopenmpi-dev openmpi-bin                    # tensordiff::mpi, mpirun (distributed compare)
  pybind11-dev python3-dev                      # the Python module (python/)
  python3-pytest python3-numpy python3-torch python3-pandas  # its tests and references; numpy: td_cli_hostile
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tensordiff: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
