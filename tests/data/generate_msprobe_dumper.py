#!/usr/bin/python3
"""Dumps made by msprobe 26.0's own PyTorch dumper (not an emulation), for DumpWriter's schema tests.

    MSPROBE_PYTHON=/work/msprobe-src/python /usr/bin/python3 tests/data/generate_msprobe_dumper.py

msprobe's source (github.com/... msprobe, commit 8ff00da) runs on CPU with Debian's torch 1.13 given two
shims that live only in this script's process: `einops` (imported by an NPU fusion-attention bench function
that is never called here) and `Tensor.untyped_storage` (torch >= 2.0; torch 1.13's `Tensor.storage()` has
the same `data_ptr()`).

Writes tests/data/msprobe_dumper/<case>/step0/rank0/{dump,stack,construct}.json (+ dump_tensor_data/*.pt in
tensor mode) for: tensor_mix_bf16 (bf16 model, every leaf kind msprobe writes from this model),
tensor_mix_f32 (the same in float32), statistics_L0_f32 and md5_L1_f32 (float32, summary_mode md5; their
tensors are the float32 files of tensor_mix_f32, so a test can replay them). Absolute paths (dump_data_dir, stack file names) are
rewritten to be relative to the repository so the files are reproducible. The model is small on purpose:
the whole folder is ~100 KB.
"""
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = HERE / "msprobe_dumper"
MSPROBE = os.environ.get("MSPROBE_PYTHON", "/work/msprobe-src/python")

shim = Path(tempfile.mkdtemp(prefix="td_msprobe_shim_"))
(shim / "einops.py").write_text("def rearrange(*a, **k):\n    raise NotImplementedError('einops shim')\n")
sys.path[:0] = [MSPROBE, str(shim)]

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

if not hasattr(torch.Tensor, "untyped_storage"):
    torch.Tensor.untyped_storage = lambda self: self.storage()

from msprobe.pytorch import PrecisionDebugger  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 3)

    def forward(self, x):
        h = F.gelu(self.fc1(x), approximate="none")
        h = F.dropout(h, p=0.0, training=False)
        return self.fc2(h)


def run(case, task, level, dtype, summary_mode=None):
    work = Path(tempfile.mkdtemp(prefix="td_msprobe_"))
    cfg = {"task": task, "dump_path": str(work / "dump"), "rank": [], "step": [], "level": level, "risk_level": "ALL",
           task: {"scope": [], "list": [], "data_mode": ["all"]}}
    if summary_mode:
        cfg[task]["summary_mode"] = summary_mode
    (work / "config.json").write_text(json.dumps(cfg))
    debugger = PrecisionDebugger(config_path=str(work / "config.json"))
    torch.manual_seed(0)
    model = MLP().to(dtype)
    x = torch.randn(2, 4).to(dtype)
    debugger.start(model)
    y = model(x)
    y = y[0:2, ...]                        # Tensor.__getitem__: slice + ellipsis
    z = torch.softmax(y, dim=-1)           # kwargs int
    flat = z.reshape(torch.Size([6]))      # torch.Size argument
    big = torch.argmax(flat)               # int64 0-d output
    pos = flat.gt(0.2)                     # bool output
    half = flat.to(dtype=torch.float16)    # torch.dtype kwarg, float16 output
    loss = torch.cat([flat, half.to(dtype)], dim=0).sum()  # list argument, 0-d output
    loss.backward()
    debugger.stop()
    debugger.step()
    del big, pos
    src = next((work / "dump" / "step0").iterdir())
    dst = OUT / case / "step0" / "rank0"
    shutil.copytree(src, dst)
    normalize(dst, work)
    shutil.rmtree(work)


def normalize(rank_dir, work):
    """Machine paths out: dump_data_dir and stack frames become repository-relative."""
    for name in ("dump.json", "stack.json"):
        p = rank_dir / name
        text = p.read_text()
        text = text.replace(str(work / "dump" / "step0"), "/DUMP_ROOT/step0")
        text = text.replace(str(HERE) + "/", "tests/data/")
        text = text.replace(str(Path(torch.__file__).parent) + "/", "TORCH/")
        text = text.replace(MSPROBE.rstrip("/") + "/", "MSPROBE/")
        # proc<pid> → rank0 (the folder was renamed too)
        import re
        text = re.sub(r"/proc\d+", "/rank0", text)
        p.write_text(text)


CASES = {
    "tensor_mix_bf16": ("tensor", "mix", torch.bfloat16, None),
    "tensor_mix_f32": ("tensor", "mix", torch.float32, None),  # the data the two cases below were computed from
    "statistics_L0_f32": ("statistics", "L0", torch.float32, None),
    "md5_L1_f32": ("statistics", "L1", torch.float32, "md5"),
}

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--case":  # msprobe's debugger is a process-wide singleton
        run(sys.argv[2], *CASES[sys.argv[2]])
        shutil.rmtree(shim)
        sys.exit(0)
    shutil.rmtree(shim)
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    import subprocess
    for case in CASES:
        subprocess.run([sys.executable, __file__, "--case", case], check=True)
    total = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"wrote {OUT.relative_to(REPO)} ({total / 1024:.0f} KB)")
