"""float8 (OCP E4M3FN / E5M2) through the Python module: DLPack 1.0 float8
inputs (from a ctypes-built producer, since torch 1.13 cannot make float8),
torch >= 2.1 float8 tensors where available, and load()/load_bits() of the
hand-written files of tests/data/float8. The reference values are the golden
table that tests/data/float8/generate_float8_table.py computes from the OCP
formulas with exact fractions."""
import math
import os
import struct

import numpy as np
import pytest
import tensordiff as td
import torch
from conftest import DATA, reference_metrics
from test_compare import CtypesExporter

F8 = os.path.join(DATA, "float8")
CODE = {"float8_e4m3fn": 10, "float8_e5m2": 12}  # DLPack 1.0 kDLFloat8_e4m3fn / kDLFloat8_e5m2


def golden():
    table = {"float8_e4m3fn": [], "float8_e5m2": []}
    with open(os.path.join(F8, "float8_table.txt")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            _, a, b = line.split()
            table["float8_e4m3fn"].append(float(a) if a in ("nan", "inf", "-inf") else float.fromhex(a))
            table["float8_e5m2"].append(float(b) if b in ("nan", "inf", "-inf") else float.fromhex(b))
    return {k: np.array(v) for k, v in table.items()}


GOLDEN = golden()


@pytest.mark.parametrize("name", sorted(CODE))
def test_dlpack_float8_summary_matches_the_golden_table(name):
    raw = np.arange(256, dtype=np.uint8).reshape(16, 16)
    s = td.summarize(CtypesExporter(raw, code=CODE[name], bits=8))
    ref = GOLDEN[name]
    finite = ref[np.isfinite(ref)]
    assert s.dtype == name
    assert s.nan_count == int(np.isnan(ref).sum())
    assert s.pos_inf_count == int((ref == np.inf).sum()) and s.neg_inf_count == int((ref == -np.inf).sum())
    assert s.finite_min == finite.min() and s.finite_max == finite.max()
    # the finite bytes alone: sum exact (float8 values are short enough), norm to rounding
    f = td.summarize(CtypesExporter(np.flatnonzero(np.isfinite(ref)).astype(np.uint8), code=CODE[name], bits=8))
    assert f.sum == math.fsum(finite) and f.nan_count == 0
    assert f.l2norm == pytest.approx(math.sqrt(math.fsum(finite * finite)), rel=1e-15)


@pytest.mark.parametrize("name", sorted(CODE))
def test_dlpack_float8_compare_against_float32_matches_numpy(name):
    raw = np.arange(1, 112, dtype=np.uint8)  # non-zero and finite in both formats
    values = GOLDEN[name][1:112]
    bench = (values * (1 + 2.0 ** -12) + 2.0 ** -20).astype(np.float32)
    c = td.compare(CtypesExporter(raw, code=CODE[name], bits=8), bench)
    want = reference_metrics(values, bench)
    for k in ("max_abs_err", "euclidean_distance", "mean_abs_err", "rmse"):
        assert getattr(c, k) == pytest.approx(want[k], rel=1e-12, abs=0), k
    assert c.max_abs_index == want["max_abs_index"]
    # msprobe widens float8 to float32, so numpy computes the relative error in float32
    x32 = values.astype(np.float32)
    assert c.max_rel_err == float(np.abs((x32 - bench) / bench).max())


def test_dlpack_float8_pair_of_both_formats():
    raw = np.arange(1, 112, dtype=np.uint8)
    c = td.compare(CtypesExporter(raw, code=10, bits=8), CtypesExporter(raw, code=12, bits=8))
    want = reference_metrics(GOLDEN["float8_e4m3fn"][1:112], GOLDEN["float8_e5m2"][1:112])
    assert c.max_abs_err == want["max_abs_err"]
    assert c.euclidean_distance == pytest.approx(want["euclidean_distance"], rel=1e-12)


def test_dlpack_float8_variants_tensordiff_does_not_hold_are_refused():
    for code in (7, 8, 9, 11, 13, 14):  # e3m4, e4m3, e4m3b11fnuz, e4m3fnuz, e5m2fnuz, e8m0fnu
        e = CtypesExporter(np.zeros(4, np.uint8), code=code, bits=8)
        with pytest.raises(TypeError, match="float8 variant"):
            td.summarize(e)
        assert e.deleted == 1  # the consumed capsule is still freed


@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="torch < 2.1 has no float8")
def test_torch_float8_tensors():
    t = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn)
    assert td.summarize(t).nan_count == 2


def test_load_bits_of_the_hand_written_files():
    raw = np.arange(256, dtype=np.uint8).reshape(16, 16)
    for spec, name, want in [("all_bytes.pt::e4m3fn", "float8_e4m3fn", raw), ("all_bytes.pt::e5m2", "float8_e5m2", raw),
                             ("all_bytes.pt::e5m2_t", "float8_e5m2", raw.T),
                             ("all_bytes.safetensors::e4m3fn", "float8_e4m3fn", raw),
                             ("all_bytes.safetensors::e5m2", "float8_e5m2", raw)]:
        bits, dtype = td.load_bits(os.path.join(F8, spec))
        assert dtype == name and bits.dtype == np.uint8
        np.testing.assert_array_equal(bits, want)
    assert [e["dtype"] for e in td.ls(os.path.join(F8, "all_bytes.pt"))] == ["float8_e4m3fn", "float8_e5m2", "float8_e5m2"]


def test_load_returns_float8_or_names_load_bits():
    path = os.path.join(F8, "all_bytes.pt::e4m3fn")
    if hasattr(torch, "float8_e4m3fn"):
        t = td.load(path)
        assert t.dtype == torch.float8_e4m3fn
        np.testing.assert_array_equal(t.float().numpy().ravel(), GOLDEN["float8_e4m3fn"].astype(np.float32))
        return
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        with pytest.raises(TypeError, match="load_bits"):
            td.load(path)
        return
    a = td.load(path)
    np.testing.assert_array_equal(a.astype(np.float64).ravel(), GOLDEN["float8_e4m3fn"])


def npy_void1(tmp_path, payload):
    d = "{'descr': '|V1', 'fortran_order': False, 'shape': (%d,), }" % len(payload)
    d += " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
    p = tmp_path / "f8.npy"
    p.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + payload)
    return str(p)


def test_npy_void1_needs_the_float8_option(tmp_path):
    p = npy_void1(tmp_path, b"\x38\x40\x44\xc8")
    with pytest.raises(td.FormatError, match="float8_e4m3fn"):
        td.load(p)
    bits, name = td.load_bits(p, float8="float8_e5m2")
    assert name == "float8_e5m2"
    np.testing.assert_array_equal(bits, [0x38, 0x40, 0x44, 0xC8])
    with pytest.raises(ValueError, match="float8="):
        td.load_bits(p, float8="int8")
