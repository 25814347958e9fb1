#!/usr/bin/env bash
# End-to-end cost of the distributed dump compare: `tensordiff compare` on one
# plain dump pair (TD_BENCH_DUMP_MB MiB for both sides, files of 4 KiB .. 4 MiB,
# float16/32/64, bench = npu x (1 + 1e-4 noise)), page cache warm, as one
# process and as `mpirun -n 2`, each with --jobs 1 and 2. Prints the best of
# REPEAT wall times. Also: 2 shards run one after the other + merge.
#   benchmarks/distributed.sh [BUILD_DIR]      (needs python3-numpy; mpirun for the MPI rows)
set -euo pipefail
build=${1:-build}
cli=$build/bin/tensordiff
mib=${TD_BENCH_DUMP_MB:-512}
repeat=${REPEAT:-3}
root=${TMPDIR:-/tmp}/td_bench_dist_$mib
if [ ! -f "$root/complete" ]; then
  rm -rf "$root"
  /usr/bin/python3 - "$root" "$mib" <<'PY'
import sys, os, numpy as np
root, mib = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(42)
for side in ("npu", "bench"):
    os.makedirs(os.path.join(root, side))
per_side, i = 0, 0
while per_side < (mib << 20) // 2:
    dt = (np.float16, np.float32, np.float64)[i % 3]
    nbytes = 4096 << int(rng.integers(0, 11))
    a = rng.standard_normal(nbytes // np.dtype(dt).itemsize)
    b = a * (1 + 1e-4 * rng.standard_normal(a.size))
    name = f"Functional.op_{i}.0.forward.output.0.npy"
    np.save(os.path.join(root, "npu", name), a.astype(dt))
    np.save(os.path.join(root, "bench", name), b.astype(dt))
    per_side += nbytes
    i += 1
open(os.path.join(root, "complete"), "w").close()
PY
fi
cat "$root"/npu/* "$root"/bench/* > /dev/null  # warm the page cache
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag="--allow-run-as-root"
best() {  # best wall time of $repeat runs of "$@"
  local b=""
  for _ in $(seq "$repeat"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || [ $? -eq 1 ]
    t1=$(date +%s.%N)
    b=$(echo "$t0 $t1 ${b:-1e9}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
  done
  printf "%.2f s" "$b"
}
out=$(mktemp -d)
echo "dump: $mib MiB ($(ls "$root/npu" | wc -l) pairs), $(nproc) cores, $(uptime | sed 's/.*load/load/')"
for jobs in 1 2; do
  echo "1 process,  --jobs $jobs: $(best "$cli" compare -q --jobs $jobs "$root/npu" "$root/bench" -o "$out/one")"
  if command -v mpirun > /dev/null && "$cli" --version | grep -q "MPI: built"; then
    echo "mpirun -n 2, --jobs $jobs: $(best mpirun -n 2 --oversubscribe $root_flag "$cli" compare -q --jobs $jobs "$root/npu" "$root/bench" -o "$out/mpi")"
  fi
done
shards() {
  "$cli" compare -q "$root/npu" "$root/bench" -o "$out/s1" --shard 1/2
  "$cli" compare -q "$root/npu" "$root/bench" -o "$out/s2" --shard 2/2
  "$cli" merge -q "$out/m" "$out/s1" "$out/s2"
}
echo "2 shards one after the other + merge: $(best shards)"
rm -rf "$out"
