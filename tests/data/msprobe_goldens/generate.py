#!/usr/bin/env python3
"""Goldens for `tensordiff compare --compat msprobe`, made by msprobe 26.0 itself.

msprobe's own PyTorch dumper (PrecisionDebugger, CPU) dumps every scenario twice, "npu" and
"bench" (the NPU side perturbed), then msprobe's own `compare` writes the expected tables.
tests/unit/msprobe_parity_test.cpp compares tensordiff's tables with them cell by cell.

    /usr/bin/python3 tests/data/msprobe_goldens/generate.py --msprobe /path/to/msprobe  # commit 8ff00da

Needs Debian's python3-torch (1.13), numpy, pandas, openpyxl, yaml, tqdm, protobuf, matplotlib,
packaging. Two stand-ins, both outside the dumped numbers: `einops` (not in Debian; compare never
calls it) and `Tensor.untyped_storage` (torch 2 name; 1.13 has `storage()`).
Rewrites cases/ and cases.json. Folder names are made deterministic (proc<pid> -> proc4242,
rank0, ...); the dumps, stack.json included, are otherwise as msprobe wrote them.
"""
import argparse, glob, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")

# --------------------------------------------------------------------------------------------
# Scenarios: fn(side) runs the model once under the debugger; side is "npu" or "bench".
# --------------------------------------------------------------------------------------------

def _noise(t, side, scale, seed=1):
    import torch
    if side == "bench":
        return t
    g = torch.Generator().manual_seed(seed)
    return t + scale * torch.randn(t.shape, generator=g, dtype=torch.float32).to(t.dtype)


def sc_mlp(side):
    import torch
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 4))
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(_noise(p, side, 1e-3))
    x = torch.randn(3, 8)
    return net, lambda: net(x).pow(2).mean().backward()


def sc_cnn_noise(side):
    import torch
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8, 3))
    x = _noise(torch.randn(2, 1, 6, 6), side, 2e-2)
    return net, lambda: torch.nn.functional.cross_entropy(net(x), torch.tensor([0, 2])).backward()


def sc_bf16_block(side):
    """A small attention block: bf16 on the NPU side, float32 bench (as NPU vs GPU runs)."""
    import torch
    torch.manual_seed(2)

    class Attn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(8)
            self.qkv = torch.nn.Linear(8, 24)
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x):
            h = self.norm(x)
            q, k, v = self.qkv(h).chunk(3, dim=-1)
            a = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, dim=-1)
            return x + self.proj(torch.nn.functional.gelu(a @ v))

    net = Attn()
    x = torch.randn(1, 4, 8)
    if side == "npu":
        net = net.to(torch.bfloat16)
        x = x.to(torch.bfloat16)
    return net, lambda: net(x).float().sum().backward()


def sc_naninf(side):
    import torch

    class M(torch.nn.Module):
        def forward(self, x, y):
            a = torch.log(x)            # log(0) = -inf on both sides, log(<0) = nan
            b = torch.div(y, x)         # inf / nan where x == 0
            return torch.nan_to_num(a, nan=0.0, posinf=1.0, neginf=-1.0) + torch.where(torch.isfinite(b), b, x)

    x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 0.5]])
    y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    if side == "npu":
        x = x.clone(); x[1, 2] = -0.5          # nan only on the NPU side
        y = y.clone(); y[0, 1] = float("inf")  # inf only on the NPU side
    net = M()
    return net, lambda: net(x, y)


def sc_argkinds(side):
    """Every argument kind msprobe dumps, and every dtype, 0-d tensors, bench zeros, thresholds."""
    import torch
    import torch.nn.functional as F

    class M(torch.nn.Module):
        def forward(self, x, th, z):
            c = torch.clamp(x, min=-0.5, max=None)                      # float kwarg, None kwarg
            h = c.to(torch.float16)                                      # dtype object
            h2 = torch.add(h, h, alpha=2)                                # fp16 x fp16, int kwarg
            r = torch.reshape(c, torch.Size([3, 4]))                     # shape object
            cat = torch.cat([c, c], dim=0)                               # list of tensors
            st = torch.stack((c, c))                                     # tuple of tensors
            p = F.pad(c, (1, 1), mode="constant", value=0.0)             # tuple of ints, str
            ints = torch.arange(6, dtype=torch.int64).reshape(2, 3)      # int64
            i32 = torch.mul(ints.to(torch.int32), 3 if side == "npu" else 2)  # int32, int scalar differs
            s0 = c.sum()                                                 # 0-d float32
            s1 = torch.mul(s0, 2.5)                                      # 0-d x python float
            d64 = torch.mul(x.double(), 1.5)                             # float64
            d0 = d64.sum()                                               # 0-d float64
            b = torch.gt(c, 0)                                           # bool
            w = torch.where(b, c, torch.zeros_like(c))                   # bool input
            sd = torch.sum(c, dim=1, keepdim=True, dtype=torch.float64)  # bool + dtype kwargs
            dr = F.dropout(c, p=0.0, training=False)
            t1 = torch.mul(th, 1.0)                                      # relative errors on 0.001 / 0.005
            zz = torch.add(z, 0.0)                                       # bench zeros
            i0 = ints.sum()                                              # 0-d int64
            return h2.float().sum() + r.sum() + cat.sum() + st.sum() + p.sum() + i32.sum() + s1 + d0 + \
                w.sum() + sd.sum() + dr.sum() + t1.sum() + zz.sum() + i0

    torch.manual_seed(3)
    x = torch.randn(4, 3)
    # bench 1000 vs npu 1001 / 1005: float32 relative error exactly f32(0.001) / f32(0.005)
    th = torch.tensor([1000.0, 1000.0, 1000.0, 1000.0, 2.0, 3.0])
    z = torch.tensor([0.0, 0.0, -0.0, 1.0, 2.0, 0.0])
    if side == "npu":
        x = _noise(x, side, 1e-3)
        th = torch.tensor([1001.0, 1005.0, 1000.5, 1004.0, 2.002, 3.0])
        z = torch.tensor([1e-8, 0.0, 1e-3, 1.0, 2.0, -1e-8])
    net = M()
    return net, lambda: net(x, th, z)


def sc_extra_calls(side):
    """The NPU side makes calls the bench does not, and the other way round."""
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            if side == "npu":
                h = torch.sigmoid(h) * 2 - 1                    # NPU-only calls
                h = torch.add(h, x, alpha=0.5)                  # an extra input
            else:
                h = torch.tanh(h)                               # bench-only call
                h = torch.add(h, x)
            return torch.relu(h)

    torch.manual_seed(4)
    net = M()
    x = torch.randn(2, 4)
    return net, lambda: net(x).sum().backward()


def sc_fuzzy(side):
    """Call indices differ between the sides (fuzzy matching renames them away)."""
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.feed_forward = torch.nn.Linear(4, 4)

        def forward(self, x):
            if side == "npu":
                torch.relu(torch.zeros(1))                      # shifts relu's call index
            h = torch.relu(self.feed_forward(x))
            h = torch.mul(h, 2.0)
            return torch.relu(h - 0.1)

    torch.manual_seed(5)
    net = M()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(_noise(p, side, 1e-3))
    x = torch.randn(2, 4)
    return net, lambda: net(x).sum().backward()


def sc_fuzzy_tail(side):
    """Forward only; the NPU side makes two more calls at the end: msprobe's fuzzy walk stops."""
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x):
            h = torch.relu(self.fc(x))
            if side == "npu":
                h = torch.sigmoid(h)
                h = torch.mul(h, 3.0)
            return h

    torch.manual_seed(8)
    net = M()
    x = torch.randn(2, 3)
    return net, lambda: net(x)


def sc_recompute(side):
    import torch
    import torch.utils.checkpoint as cp
    torch.manual_seed(6)
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh())
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(_noise(p, side, 1e-3))
    x = torch.randn(2, 4, requires_grad=True)
    return net, lambda: cp.checkpoint(net, x).sum().backward()


def sc_small(side):
    import torch
    torch.manual_seed(7)
    net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Sigmoid())
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(_noise(p, side, 1e-2))
    x = torch.randn(2, 3)
    return net, lambda: net(x).sum().backward()


SCENARIOS = {f.__name__[3:]: f for f in [sc_mlp, sc_cnn_noise, sc_bf16_block, sc_naninf, sc_argkinds,
                                          sc_extra_calls, sc_fuzzy, sc_fuzzy_tail, sc_recompute, sc_small]}

# name, scenario, modes, layout, fuzzy, steps
#   layout: proc (one proc<pid> folder), ranks (rank0 + rank1), bare (a folder named "rank")
CASE_LIST = [
    ("mlp", "mlp", ["tensor", "statistics", "md5"], "proc", False, 1),
    ("cnn_noise", "cnn_noise", ["tensor", "statistics"], "proc", False, 1),
    ("bf16_block", "bf16_block", ["tensor", "statistics", "md5"], "proc", False, 1),
    ("naninf", "naninf", ["tensor", "statistics", "md5"], "proc", False, 1),
    ("argkinds", "argkinds", ["tensor", "statistics", "md5"], "proc", False, 1),
    ("extra_calls", "extra_calls", ["tensor", "statistics", "md5"], "proc", False, 1),
    ("fuzzy", "fuzzy", ["tensor", "md5"], "proc", True, 1),
    ("fuzzy_stats", "fuzzy", ["statistics"], "proc", True, 1),  # msprobe raises: no golden
    ("fuzzy_tail", "fuzzy_tail", ["tensor", "md5"], "proc", True, 1),
    ("recompute", "recompute", ["tensor", "statistics"], "proc", False, 1),
    ("multirank", "small", ["tensor", "statistics"], "ranks", False, 1),
    ("bare_rank", "small", ["md5"], "bare", False, 1),
    ("multistep", "small", ["tensor", "statistics"], "proc", False, 2),
]


def dump_one(scenario, side, mode, out, steps):
    """Runs in a child process: one PrecisionDebugger session."""
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage()
    from msprobe.pytorch import PrecisionDebugger
    task = "tensor" if mode == "tensor" else "statistics"
    cfg = {"task": task, "dump_path": out, "rank": [], "step": list(range(steps)), "level": "mix",
           task: {"scope": [], "list": [], "data_mode": ["all"]}}
    if task == "statistics":
        cfg[task]["summary_mode"] = mode
    cfg_path = os.path.join(out, "config.json")
    os.makedirs(out, exist_ok=True)
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    dbg = PrecisionDebugger(config_path=cfg_path)
    for _ in range(steps):
        net, run = SCENARIOS[scenario](side)
        dbg.start(model=net)
        run()
        dbg.stop()
        dbg.step()
    os.remove(cfg_path)


def run_py(args, env):
    r = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-3000:] + r.stderr[-3000:])
        raise SystemExit(f"failed: {args}")
    return r


def make_dump(env, scenario, side, mode, dest, layout, steps, rank_index=0):
    with tempfile.TemporaryDirectory() as tmp:
        run_py([os.path.abspath(__file__), "--dump", scenario, side, mode, tmp, str(steps)], env)
        for step in range(steps):
            procs = glob.glob(os.path.join(tmp, f"step{step}", "proc*"))
            assert len(procs) == 1, procs
            folder = {"proc": "proc4242", "ranks": f"rank{rank_index}", "bare": "rank"}[layout]
            target = os.path.join(dest, f"step{step}", folder)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.move(procs[0], target)
            # dump_data_dir names the temporary folder; point it at the committed one.
            dj = os.path.join(target, "dump.json")
            with open(dj) as f:
                text = f.read()
            text = text.replace(procs[0], os.path.relpath(target, HERE))
            with open(dj, "w") as f:
                f.write(text)


def msprobe_compare(env, npu, bench, out, fuzzy):
    os.makedirs(out, exist_ok=True)
    args = ["-m", "msprobe.msprobe", "compare", "-tp", npu, "-gp", bench, "-o", out]
    if fuzzy:
        args.append("-fm")
    r = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True)
    files = sorted(glob.glob(os.path.join(out, "compare_result_*.csv")))
    for f in files:  # drop the timestamp: compare_result_rank0_20261125123945.csv -> compare_result_rank0.csv
        os.rename(f, re.sub(r"_\d{14}\.csv$", ".csv", f))
    for f in glob.glob(os.path.join(out, "*")):
        if not f.endswith(".csv"):
            os.remove(f) if os.path.isfile(f) else shutil.rmtree(f)
    return r, [re.sub(r"_\d{14}\.csv$", ".csv", os.path.basename(f)) for f in files]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msprobe", default="/work/msprobe-src", help="msprobe source tree (commit 8ff00da)")
    ap.add_argument("--dump", nargs=5, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.dump:
        scenario, side, mode, out, steps = a.dump
        return dump_one(scenario, side, mode, out, int(steps))

    stub = tempfile.mkdtemp()
    os.makedirs(os.path.join(stub, "einops"))
    with open(os.path.join(stub, "einops", "__init__.py"), "w") as f:
        f.write("def rearrange(*a, **k):\n    raise NotImplementedError('einops stand-in')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(a.msprobe, "python"), stub]),
               PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    shutil.rmtree(CASES, ignore_errors=True)
    manifest = []
    os.chdir(HERE)
    for name, scenario, modes, layout, fuzzy, steps in CASE_LIST:
        for mode in modes:
            case = f"{name}_{mode}"
            root = os.path.join("cases", case)
            for side in ("npu", "bench"):
                ranks = 2 if layout == "ranks" else 1
                for k in range(ranks):
                    make_dump(env, scenario, side, mode, os.path.join(root, side), layout, steps, k)
            for step in range(steps):
                npu = os.path.join(root, "npu", f"step{step}")
                bench = os.path.join(root, "bench", f"step{step}")
                out = os.path.join(root, "expected", f"step{step}")
                r, files = msprobe_compare(env, npu, bench, out, fuzzy)
                entry = {"case": case, "mode": mode, "fuzzy": fuzzy, "npu": npu, "bench": bench,
                         "expected": out, "files": files}
                if not files:
                    err = [l for l in (r.stdout + r.stderr).splitlines() if "rror" in l]
                    entry["msprobe_error"] = err[-1] if err else "no table written"
                    shutil.rmtree(out, ignore_errors=True)
                manifest.append(entry)
                print(case, f"step{step}", files or entry["msprobe_error"])
    with open("cases.json", "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    shutil.rmtree(stub)


if __name__ == "__main__":
    main()
