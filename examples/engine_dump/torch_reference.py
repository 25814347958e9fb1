#!/usr/bin/python3
"""The engine's model in PyTorch, dumped in msprobe's layout: the reference side of a comparison.

    MSPROBE_PYTHON=/path/to/msprobe/python python3 torch_reference.py OUT [--dtype float32|bfloat16]
                                                                     [--task tensor|statistics|md5]

Writes OUT/step0/rank0/{dump,stack,construct}.json (+ dump_tensor_data/*.pt in tensor mode) with msprobe's own
PyTorch dumper (PrecisionDebugger, level "mix", risk_level ALL). msprobe 26.0 runs on CPU with torch 1.13 given
two shims installed here for this process only: an `einops` stub (imported by an NPU bench function that is
never called) and `Tensor.untyped_storage` (torch >= 2.0). Without msprobe (`--no-msprobe`, or msprobe not
importable) a small built-in dumper writes the same five entries in the same layout.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import zlib
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, IN, HIDDEN, OUT = 2, 4, 8, 3


# The model's numbers, written the same way in engine.cpp.
def x_at(b, i): return ((b * IN + i) % 9 - 4) / 4.0
def w1_at(h, i): return ((h * 7 + i * 3) % 11 - 5) / 8.0
def b1_at(h): return ((h * 5) % 7 - 3) / 8.0
def w2_at(o, h): return ((o * 5 + h * 3) % 13 - 6) / 8.0
def b2_at(o): return (o % 3 - 1) / 4.0


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, OUT)
        with torch.no_grad():
            self.fc1.weight.copy_(torch.tensor([[w1_at(h, i) for i in range(IN)] for h in range(HIDDEN)]))
            self.fc1.bias.copy_(torch.tensor([b1_at(h) for h in range(HIDDEN)]))
            self.fc2.weight.copy_(torch.tensor([[w2_at(o, h) for h in range(HIDDEN)] for o in range(OUT)]))
            self.fc2.bias.copy_(torch.tensor([b2_at(o) for o in range(OUT)]))

    def forward(self, x):
        h = self.fc1(x)
        h = F.relu(h)
        return self.fc2(h)


def inputs(dtype):
    model = MLP().to(dtype)
    x = torch.tensor([[x_at(b, i) for i in range(IN)] for b in range(BATCH)]).to(dtype)
    return model, x


def with_msprobe(out, dtype, task):
    shim = Path(tempfile.mkdtemp(prefix="td_shim_"))
    (shim / "einops.py").write_text("def rearrange(*a, **k):\n    raise NotImplementedError('einops shim')\n")
    sys.path[:0] = [p for p in [os.environ.get("MSPROBE_PYTHON"), str(shim)] if p]
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage()
    from msprobe.pytorch import PrecisionDebugger

    work = Path(tempfile.mkdtemp(prefix="td_torch_ref_"))
    real_task = "statistics" if task == "md5" else task
    cfg = {"task": real_task, "dump_path": str(work), "rank": [], "step": [], "level": "mix", "risk_level": "ALL",
           real_task: {"scope": [], "list": [], "data_mode": ["all"]}}
    if task == "md5":
        cfg[real_task]["summary_mode"] = "md5"
    (work / "config.json").write_text(json.dumps(cfg))
    debugger = PrecisionDebugger(config_path=str(work / "config.json"))
    model, x = inputs(dtype)
    with torch.no_grad():
        debugger.start(model)
        y = model(x)
        debugger.stop()
        debugger.step()
    proc = next((work / "step0").glob("proc*"))
    dst = Path(out) / "step0" / "rank0"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(proc, dst)
    for name in ("dump.json", "stack.json"):  # machine paths out, so the dump is reproducible
        text = (dst / name).read_text().replace(str(proc), str(dst.resolve()))
        text = text.replace(str(Path(torch.__file__).parent) + "/", "TORCH/")
        text = text.replace(str(Path(__file__).resolve().parent.parent.parent) + "/", "")
        (dst / name).write_text(text)
    shutil.rmtree(work)
    shutil.rmtree(shim)
    return y


def built_in(out, dtype, task):
    """msprobe's layout for this model only: the same names, keys, statistics rules and files."""
    dst = Path(out) / "step0" / "rank0"
    if dst.exists():
        shutil.rmtree(dst)
    data_dir = dst / "dump_tensor_data"
    data_dir.mkdir(parents=True)
    model, x = inputs(dtype)

    def leaf(t, stem, requires_grad):
        t = t.detach()
        d = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape),
             "Max": t.max().item(), "Min": t.min().item(), "Mean": t.mean().item(), "Norm": t.norm().item(),
             "requires_grad": requires_grad}
        if task == "tensor":
            torch.save(t.clone().contiguous(), data_dir / (stem + ".pt"))
            d["data_name"] = stem + ".pt"
        elif task == "md5":
            d["md5"] = f"{zlib.crc32(t.contiguous().view(torch.uint8).numpy().tobytes()):08x}"
        return d

    data = {}

    def api(name, args, out_t):
        data[name] = {"input_args": [leaf(a, f"{name}.input.{i}", rg) for i, (a, rg) in enumerate(args)],
                      "input_kwargs": {}, "output": [leaf(out_t, f"{name}.output.0", False)]}

    def module(name, lin, x_in, out_t):
        data.pop(name, None)
        data[name] = {"input_args": [leaf(x_in, f"{name}.input.0", False)], "input_kwargs": {},
                      "output": [leaf(out_t, f"{name}.output.0", False)],
                      "parameters": {p: leaf(getattr(lin, p), f"{name}.parameters.{p}", True) for p in ("weight", "bias")}}

    with torch.no_grad():
        h = model.fc1(x)
        api("Functional.linear.0.forward", [(x, False), (model.fc1.weight, True), (model.fc1.bias, True)], h)
        module("Module.fc1.Linear.forward.0", model.fc1, x, h)
        a = F.relu(h)
        api("Functional.relu.0.forward", [(h, False)], a)
        y = model.fc2(a)
        api("Functional.linear.1.forward", [(a, False), (model.fc2.weight, True), (model.fc2.bias, True)], y)
        module("Module.fc2.Linear.forward.0", model.fc2, a, y)
    dump = {"task": "statistics" if task == "md5" else task, "level": "mix", "framework": "pytorch",
            "dump_data_dir": str(data_dir.resolve()) if task == "tensor" else None, "data": data}
    (dst / "dump.json").write_text(json.dumps(dump, indent=1))
    (dst / "construct.json").write_text(json.dumps({
        "Functional.linear.0.forward": "Module.fc1.Linear.forward.0", "Module.fc1.Linear.forward.0": None,
        "Functional.relu.0.forward": None, "Functional.linear.1.forward": "Module.fc2.Linear.forward.0",
        "Module.fc2.Linear.forward.0": None}, indent=1))
    (dst / "stack.json").write_text("{}")
    return y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--task", default="tensor", choices=["tensor", "statistics", "md5"])
    ap.add_argument("--no-msprobe", action="store_true", help="use the built-in dumper")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    y = None
    if not args.no_msprobe:
        try:
            y = with_msprobe(args.out, dtype, args.task)
        except ImportError as e:
            print(f"msprobe not importable ({e}); using the built-in dumper", file=sys.stderr)
    if y is None:
        y = built_in(args.out, dtype, args.task)
    print("y[0] =", " ".join(f"{v:g}" for v in y[0].float().tolist()))
    print(f"dump: {Path(args.out) / 'step0' / 'rank0'}")


if __name__ == "__main__":
    main()
