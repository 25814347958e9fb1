#!/usr/bin/python3
"""Goldens for "msprobe's own compare accepts DumpWriter's dumps" (tests/cli/engine_dump_test.cpp).

    MSPROBE_PYTHON=/work/msprobe-src/python /usr/bin/python3 tests/data/generate_writer_msprobe.py build/bin/engine_dump

For each case, writes tests/data/writer_msprobe/<case>/:
  engine/step0/rank0/   the C++ engine's dump (examples/engine_dump, DumpWriter), bug injected (--inject)
  torch/step0/rank0/    the same model in torch, dumped by msprobe 26.0's own dumper (torch_reference.py)
  msprobe_compare.csv   `msprobe compare -tp engine -gp torch` (msprobe 26.0, CPU, Debian numpy/pandas)
Absolute paths are rewritten (dump_data_dir → /DUMP/<side>/..., the CSV's Data_name keeps file names only), so
the files do not depend on the machine. msprobe runs with two process-local shims: an `einops` stub and
`Tensor.untyped_storage` for torch 1.13 (see examples/engine_dump/torch_reference.py).
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = HERE / "writer_msprobe"
MSPROBE = os.environ.get("MSPROBE_PYTHON", "/work/msprobe-src/python")
CASES = {  # case: (dtype, task)
    "tensor_f32": ("float32", "tensor"),
    "statistics_bf16": ("bfloat16", "statistics"),
    "md5_f32": ("float32", "md5"),
}

RUN_MSPROBE = """
import sys, tempfile, pathlib
shim = pathlib.Path(tempfile.mkdtemp())
(shim / "einops.py").write_text("def rearrange(*a, **k):\\n    raise NotImplementedError\\n")
sys.path[:0] = [{msprobe!r}, str(shim)]
import torch
if not hasattr(torch.Tensor, "untyped_storage"):
    torch.Tensor.untyped_storage = lambda self: self.storage()
sys.argv = ["msprobe"] + sys.argv[1:]
from msprobe.msprobe import main
main()
"""


def normalize_dump(rank_dir, side):
    p = rank_dir / "dump.json"
    text = re.sub(r'"dump_data_dir": "[^"]*"', f'"dump_data_dir": "/DUMP/{side}/step0/rank0/dump_tensor_data"', p.read_text())
    p.write_text(text)


def main():
    engine = Path(sys.argv[1]).resolve()
    if OUT.exists():
        shutil.rmtree(OUT)
    for case, (dtype, task) in CASES.items():
        dst = OUT / case
        subprocess.run([str(engine), str(dst / "engine"), "--dtype", dtype, "--task", task, "--inject"], check=True,
                       stdout=subprocess.DEVNULL)
        env = dict(os.environ, MSPROBE_PYTHON=MSPROBE)
        subprocess.run([sys.executable, str(REPO / "examples/engine_dump/torch_reference.py"), str(dst / "torch"),
                        "--dtype", dtype, "--task", task], check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for side in ("engine", "torch"):
            normalize_dump(dst / side / "step0" / "rank0", side)
        work = Path(tempfile.mkdtemp())
        (work / "run.py").write_text(RUN_MSPROBE.format(msprobe=MSPROBE))
        subprocess.run([sys.executable, str(work / "run.py"), "compare",
                        "-tp", str(dst / "engine/step0/rank0/dump.json"), "-gp", str(dst / "torch/step0/rank0/dump.json"),
                        "-o", str(work / "out")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result = next((work / "out").glob("compare_result_*.csv"))
        shutil.copy(result, dst / "msprobe_compare.csv")
        shutil.rmtree(work)
        with open(dst / "msprobe_compare.csv") as f:
            rows = list(csv.reader(f))
        print(f"{case}: {len(rows) - 1} rows, columns {len(rows[0])}")


if __name__ == "__main__":
    main()
