#!/usr/bin/python3
"""Generate two folders of TF precision_tool-style plain .npy dumps for name-normalised pairing tests.

    /usr/bin/python3 tests/data/generate_plain_dumps.py

File name = TF tensor name with '/' -> '_' and ':' -> '.', plus '.{microsecond timestamp}.npy'
(formats.md 4.3), i.e. `{op_name_with_underscores}.{output_index}.{timestamp}.npy`. The two sides have
different timestamps (different runs), so files must be paired on the name with the timestamp
stripped. Writes tests/data/plain_dumps/{npu,bench}/ and tests/data/plain_dumps/expected.json.
"""
import shutil
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tdgold as T  # noqa: E402


def tf_file_name(tensor_name, ts):
    op, idx = tensor_name.rsplit(":", 1)
    return f"{op.replace('/', '_')}.{idx}.{ts}.npy"


def main():
    out = HERE / "plain_dumps"
    if out.exists():
        shutil.rmtree(out)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    w1 = rng.standard_normal((8, 16)).astype(np.float32) * 0.3
    w2 = rng.standard_normal((16, 4)).astype(np.float32) * 0.3
    h = x @ w1
    r = np.maximum(h, 0)
    y = r @ w2
    mx = y.max(axis=1)
    am = y.argmax(axis=1).astype(np.int32)
    # (TF tensor name, bench value, npu value or None if absent on the NPU side)
    ops = [
        ("input/IteratorGetNext:0", x, x),
        ("model/dense/MatMul:0", h, h),
        ("model/dense/Relu:0", r, r),
        ("model/dense_1/MatMul:0", y, (y * (1 + 1e-2 * rng.standard_normal(y.shape))).astype(np.float32)),
        ("model/ArgMax:0", am, am),
        ("model/Max:0", mx, mx),
        ("model/TopKV2:0", np.sort(y, axis=1)[:, ::-1][:, :2].copy(), None),   # bench-only op
        ("model/TopKV2:1", np.argsort(-y, axis=1)[:, :2].astype(np.int32), None),
        ("model/is_finite:0", np.isfinite(y), np.isfinite(y)),
        ("model/scalar_loss:0", np.array(0.25, dtype=np.float32), np.array(0.25, dtype=np.float32)),
    ]
    npu_only = [("model/npu_fused_op/FusedMulAdd:0", (y * 2 + 1).astype(np.float32))]
    sides = {"bench": 1700000000000000, "npu": 1700000123456789}
    files = OrderedDict((s, []) for s in sides)
    for side, ts0 in sides.items():
        d = out / side
        d.mkdir(parents=True)
        ts = ts0
        items = [(n, b if side == "bench" else nv) for n, b, nv in ops]
        if side == "npu":
            items = items[:3] + npu_only + items[3:]
        for name, val in items:
            if val is None:
                continue
            ts += 1371 if side == "npu" else 997
            fn = tf_file_name(name, ts)
            np.save(d / fn, val)
            back = np.load(d / fn)
            assert back.dtype == val.dtype and np.array_equal(back, val)
            files[side].append(OrderedDict(file=fn, tensor=name, timestamp=ts, key=fn.rsplit(".", 2)[0],
                                           **{k: v for k, v in T.entry_np("", val).items() if k != "path"}))
        # the same tensor dumped twice on one side (e.g. a while-loop body): two timestamps, one key
        if side == "bench":
            ts += 997
            fn = tf_file_name("model/dense/Relu:0", ts)
            np.save(d / fn, r)
            files[side].append(OrderedDict(file=fn, tensor="model/dense/Relu:0", timestamp=ts,
                                           key=fn.rsplit(".", 2)[0], note="second dump of the same tensor",
                                           **{k: v for k, v in T.entry_np("", r).items() if k != "path"}))
    bkeys = [f["key"] for f in files["bench"]]
    nkeys = [f["key"] for f in files["npu"]]
    exp = OrderedDict()
    exp["description"] = ("TF precision_tool plain dumps: key = file name minus '.{timestamp}.npy'. NPU and bench "
                          "timestamps differ. model/dense_1/MatMul.0 differs by 1e-2 relative noise on the NPU; "
                          "everything else is bitwise equal. The bench side holds model/dense/Relu.0 twice "
                          "(two timestamps).")
    exp["pairs"] = [k for k in nkeys if k in bkeys]
    exp["npu_only"] = [k for k in nkeys if k not in bkeys]
    exp["bench_only"] = sorted(set(k for k in bkeys if k not in nkeys))
    exp["duplicate_keys_bench"] = sorted(set(k for k in bkeys if bkeys.count(k) > 1))
    first = None
    for f in sorted(files["npu"], key=lambda f: f["timestamp"]):
        match = [g for g in files["bench"] if g["key"] == f["key"]]
        if match and not np.array_equal(np.load(out / "npu" / f["file"]), np.load(out / "bench" / match[0]["file"])):
            first = f["key"]
            break
    assert first == "model_dense_1_MatMul.0"
    exp["first_divergent_in_npu_timestamp_order"] = first
    exp["files"] = files
    T.write_json(out / "expected.json", exp)
    print(f"plain dumps: {sum(len(v) for v in files.values())} files")


if __name__ == "__main__":
    main()
