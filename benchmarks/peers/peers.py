#!/usr/bin/python3
"""Times the same compare with the peers tensordiff replaces, side by side
with tensordiff's own numbers.

Peers, on identical data (bench x ~ N(0,1) via the same xorshift recipe is not
needed: only sizes and dtypes must match, every peer computes the same metrics):
  numpy-f64  msprobe's way (spec msprobe-compare.md §1.2): relative error in the
             result_type(n, b, float32) with eps at bench zeros, then astype(float)
             and cosine / EucDist / MaxAbs / MaxRel / thousandth ratios in float64
  numpy-f32  the same metrics kept in float32 (a fast but inexact baseline)
  torch      the same metrics with torch CPU ops (float64 like msprobe)
  td-python  tensordiff's Python module (`import tensordiff`, PYTHONPATH=<build>/python):
             td.compare(a, b, threads=1) on the same numpy arrays / torch tensors, no copy;
             "py/C++" is its time over tensordiff_bench's for the same input
A missing peer (no torch, no ml_dtypes for bf16, no module) is skipped.
The module's call overhead on small pairs (1 KiB per side) is printed first:
the median of many td.compare() calls, numpy and torch inputs.

Usage:
  <build>/bin/tensordiff_bench --benchmark_filter='BM_compare/(f32|bf16|f16)/highway/(1048576|16777216)/t1' \
      --benchmark_format=json > td.json
  PYTHONPATH=<build>/python /usr/bin/python3 benchmarks/peers/peers.py --tensordiff-json td.json
  (Debian python3-numpy / python3-torch)
"""
import argparse
import json
import statistics
import time

import numpy as np

try:
    import torch
except Exception:  # pragma: no cover - peer absent
    torch = None

try:
    import tensordiff as tdpy
except Exception:  # pragma: no cover - module not built or not on PYTHONPATH
    tdpy = None

SIZES = [1 << 20, 16 << 20]
DTYPES = ["f32", "f16", "bf16"]


def make(dtype, nbytes):
    item = 4 if dtype == "f32" else 2
    n = nbytes // (2 * item)
    rng = np.random.default_rng(n)
    b = rng.standard_normal(n)
    a = b * (1 + 1e-3 * rng.standard_normal(n))
    if dtype == "f32":
        return a.astype(np.float32), b.astype(np.float32)
    if dtype == "f16":
        return a.astype(np.float16), b.astype(np.float16)
    if torch is None:
        return None
    # bf16: torch holds it; numpy sees it widened to float32 (as msprobe loads .pt)
    return torch.from_numpy(a.astype(np.float32)).bfloat16(), torch.from_numpy(b.astype(np.float32)).bfloat16()


def msprobe_numpy(n, b):
    """compare_ops_apply: RE in result_type(n, b, float32), then float64 metrics."""
    rt = np.result_type(n, b, np.float32)
    nn, bb = n.astype(rt), b.astype(rt)
    zero = bb == 0
    eps = np.finfo(rt).eps
    nn = np.where(zero, nn + eps, nn)
    bb = np.where(zero, bb + eps, bb)
    rel = np.abs((nn - bb) / bb)
    n64, b64 = n.astype(float), b.astype(float)
    cos = np.dot(n64, b64) / (np.linalg.norm(n64) * np.linalg.norm(b64))
    euc = np.linalg.norm(n64 - b64, ord=2)
    max_abs = np.max(np.abs(n64 - b64))
    max_rel = np.max(rel)
    t1 = np.sum(rel < 0.001) / rel.size
    t5 = np.sum(rel < 0.005) / rel.size
    return cos, euc, max_abs, max_rel, t1, t5


def numpy_f32(n, b):
    n32, b32 = n.astype(np.float32), b.astype(np.float32)
    d = n32 - b32
    rel = np.abs(d / np.where(b32 == 0, np.float32(1.1920929e-07), b32))
    cos = np.dot(n32, b32) / (np.linalg.norm(n32) * np.linalg.norm(b32))
    return cos, np.linalg.norm(d), np.max(np.abs(d)), np.max(rel), np.mean(rel < 0.001), np.mean(rel < 0.005)


def torch_cpu(n, b):
    n64, b64 = n.double(), b.double()
    d = n64 - b64
    rel = (d / torch.where(b64 == 0, torch.full_like(b64, 1.1920929e-07), b64)).abs()
    cos = torch.dot(n64, b64) / (n64.norm() * b64.norm())
    return (cos.item(), d.norm().item(), d.abs().max().item(), rel.max().item(),
            (rel < 0.001).double().mean().item(), (rel < 0.005).double().mean().item())


def best_time(fn, *args, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def median_call_time(fn, *args, calls=20000):
    """Median seconds per call over batches of 100 calls (timer cost amortised)."""
    batches = []
    for _ in range(calls // 100):
        t = time.perf_counter()
        for _ in range(100):
            fn(*args)
        batches.append((time.perf_counter() - t) / 100)
    batches.sort()
    return batches[len(batches) // 2]


def small_overhead(threads):
    """td.compare on 1 KiB per side: the Python module's cost per call."""
    if tdpy is None:
        print("# td-python: module not importable (PYTHONPATH=<build>/python)")
        return
    print("# td-python call overhead, 1 KiB per side (median of 20,000 calls):")
    for dt in DTYPES:
        data = make(dt, 2048)
        if data is None:
            continue
        a, b = data
        t = median_call_time(lambda x, y: tdpy.compare(x, y, threads=threads), a, b)
        kind = "torch" if torch is not None and isinstance(a, torch.Tensor) else "numpy"
        print(f"#   {dt:5} {kind:6} {t * 1e6:7.2f} us per call")


def load_tensordiff(path):
    """{(dtype, backend, bytes, threads): seconds} from Google Benchmark JSON (BM_compare/<dt>/<backend>/<bytes>/t<k>).

    With --benchmark_repetitions: the median aggregate where the run reports one, else the median
    of the repetitions (the mean / stddev / cv aggregates are not times of a run)."""
    if not path:
        return {}
    with open(path) as f:
        data = json.load(f)
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    runs, medians = {}, {}
    for b in data.get("benchmarks", []):
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) < 5 or parts[0] != "BM_compare":
            continue
        key = (parts[1], parts[2], int(parts[3]), parts[4])
        seconds = b["real_time"] * unit[b.get("time_unit", "ns")]
        if b.get("run_type") != "aggregate":
            runs.setdefault(key, []).append(seconds)
        elif b.get("aggregate_name") == "median":
            medians[key] = seconds
    for key, times in runs.items():
        medians.setdefault(key, statistics.median(times))
    return medians


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tensordiff-json", help="tensordiff_bench --benchmark_format=json output")
    ap.add_argument("--backend", default="highway")
    ap.add_argument("--threads", default="t1")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="input bytes (both sides)")
    args = ap.parse_args()
    td = load_tensordiff(args.tensordiff_json)
    torch_threads = torch.get_num_threads() if torch is not None else 0
    print(f"# peers: numpy {np.__version__}" + (f", torch {torch.__version__} ({torch_threads} threads)" if torch else ", torch missing"))
    py_threads = int(args.threads[1:]) if args.threads.startswith("t") else 0
    small_overhead(py_threads)
    hdr = (f"{'dtype':6} {'bytes':>10} {'tensordiff':>11} {'td-python':>11} {'numpy-f64':>11} {'numpy-f32':>11} {'torch':>11} "
           f"{'x np64':>8} {'x np32':>8} {'x torch':>8} {'py/C++':>7}")
    print(hdr)
    for nbytes in map(int, args.sizes.split(",")):
        for dt in DTYPES:
            data = make(dt, nbytes)
            if data is None:
                continue
            a, b = data
            if torch is not None and isinstance(a, torch.Tensor):
                an, bn = a.float().numpy(), b.float().numpy()
                at, bt = a, b
            else:
                an, bn = a, b
                at, bt = (torch.from_numpy(a), torch.from_numpy(b)) if torch is not None else (None, None)
            t64 = best_time(msprobe_numpy, an, bn)
            t32 = best_time(numpy_f32, an, bn)
            tt = best_time(torch_cpu, at, bt) if torch is not None else float("nan")
            tpy = best_time(lambda x, y: tdpy.compare(x, y, threads=py_threads), a, b) if tdpy is not None else float("nan")
            tdt = td.get((dt, args.backend, nbytes, args.threads), float("nan"))
            ratio = lambda x: x / tdt if tdt == tdt and tdt > 0 else float("nan")
            print(f"{dt:6} {nbytes:>10} {tdt*1e3:>9.3f}ms {tpy*1e3:>9.3f}ms {t64*1e3:>9.3f}ms {t32*1e3:>9.3f}ms "
                  f"{tt*1e3:>9.3f}ms {ratio(t64):>8.1f} {ratio(t32):>8.1f} {ratio(tt):>8.1f} {ratio(tpy):>7.2f}")


if __name__ == "__main__":
    main()
