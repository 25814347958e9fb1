#!/usr/bin/python3
"""Generate the golden .npy / .npz / .pt files (+ JSON sidecars) used by tensordiff's reader tests.

    /usr/bin/python3 tests/data/generate_goldens.py        # Debian numpy 1.24 + torch 1.13

Writes tests/data/{npy,npz,pt,msprobe_pt}/ and tests/data/manifest.json. Every file `X` gets `X.json`
(see tdgold.py for the sidecar conventions). Files that a reader must refuse carry
"expect_error": true and "error_reason". Files built by hand (not by np.save / torch.save) carry
"synthetic": true. The output is deterministic except for the legacy .pt storage keys (memory
addresses, chosen by torch) and the zip timestamps torch does not write (it writes none).
"""
import io
import json
import os
import shutil
import struct
import sys
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import numpy.lib.format as npf
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tdgold as T  # noqa: E402

MANIFEST = []


def reset(d):
    p = HERE / d
    if p.exists():
        shutil.rmtree(p)
    p.mkdir(parents=True)
    return p


def sidecar(path, synthetic, tensors, expect_error=False, reason=None, **extra):
    rel = str(Path(path).relative_to(HERE))
    meta = OrderedDict()
    meta["file"] = Path(path).name
    meta["synthetic"] = bool(synthetic)
    meta["expect_error"] = bool(expect_error)
    if reason:
        meta["error_reason"] = reason
    meta.update(extra)
    meta["tensors"] = tensors
    T.write_json(str(path) + ".json", meta)
    MANIFEST.append(OrderedDict(file=rel, synthetic=bool(synthetic), expect_error=bool(expect_error),
                                size=os.path.getsize(path), tensors=len(tensors)))


# =============================================================================================
# .npy


def npy_info(path):
    b = Path(path).read_bytes()
    major, minor = b[6], b[7]
    if major == 1:
        hl = struct.unpack("<H", b[8:10])[0]
        off = 10 + hl
    else:
        hl = struct.unpack("<I", b[8:12])[0]
        off = 12 + hl
    return OrderedDict(npy_version=[major, minor], header_len=hl, data_offset=off,
                       header=b[off - hl:off].decode("latin-1" if major < 3 else "utf-8").rstrip())


def npy_real(d, name, arr, note=None, logical=None, version=None, **extra):
    p = d / name
    if version is None:
        np.save(p, arr)
    else:
        with open(p, "wb") as f:
            npf.write_array(f, arr, version=version)
    back = np.load(p)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert np.array_equal(back, arr, equal_nan=arr.dtype.kind in "fc")
    info = npy_info(p)
    info["fortran_order"] = bool(np.isfortran(arr)) and arr.ndim > 1
    if note:
        info["note"] = note
    info.update(extra)
    ent = T.entry_np("", back)
    if logical is not None:
        ent["interpreted_as"] = logical
    sidecar(p, False, [ent], **info)


def npy_write_raw(path, header_text, data, version=1, pad_to=64, extra_pad=0):
    """Hand-built npy: header text padded with spaces + '\\n' so the data starts on pad_to."""
    prefix = 10 if version == 1 else 12
    h = header_text.encode("latin-1" if version < 3 else "utf-8")
    total = prefix + len(h) + 1 + extra_pad
    if pad_to:
        total = (total + pad_to - 1) // pad_to * pad_to
    h = h + b" " * (total - prefix - len(h) - 1) + b"\n"
    hdr = b"\x93NUMPY" + bytes([version, 0])
    hdr += struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    Path(path).write_bytes(hdr + h + data)


def gen_npy():
    d = reset("npy")
    rng = np.random.default_rng(1234)
    # --- integers 2x3 with extremes
    for dt in [np.int8, np.int16, np.int32, np.int64]:
        i = np.iinfo(dt)
        a = np.array([[i.min, -1, 0], [1, i.max - 1, i.max]], dtype=dt)
        npy_real(d, f"{T.canon_np(dt)}_2x3.npy", a)
    for dt in [np.uint8, np.uint16, np.uint32, np.uint64]:
        i = np.iinfo(dt)
        a = np.array([[0, 1, 2], [i.max // 2 + 1, i.max - 1, i.max]], dtype=dt)
        npy_real(d, f"{T.canon_np(dt)}_2x3.npy", a)
    npy_real(d, "bool_2x3.npy", np.array([[True, False, True], [False, False, True]]))
    f16 = np.array([65504.0, -65504.0, 2.0 ** -24, 2.0 ** -14, -0.0, 1.0 / 3.0, 0.1, 1.0], dtype=np.float16)
    npy_real(d, "float16_8.npy", f16, note="max, -max, smallest subnormal, smallest normal, -0, 1/3, 0.1, 1")
    npy_real(d, "float32_2x3x4.npy", (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5) * np.float32(0.1))
    npy_real(d, "float64_2x3.npy", rng.standard_normal((2, 3)))
    c64 = (np.array([[1, -2], [0.5, 3]]) + 1j * np.array([[0.25, 4], [-1, 0]])).astype(np.complex64)
    npy_real(d, "complex64_2x2.npy", c64)
    npy_real(d, "complex128_2x2.npy", c64.astype(np.complex128) * (1 + 1e-9j))
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 1.0, np.finfo(np.float32).max,
                        np.finfo(np.float32).tiny, 1.4e-45], dtype=np.float32)
    npy_real(d, "float32_special.npy", special, note="nan, inf, -inf, -0, 1, max, min normal, min subnormal")
    # --- Fortran order
    npy_real(d, "float32_fortran_3x4.npy", np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)))
    npy_real(d, "int16_fortran_2x3x4.npy", np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4) - 7))
    npy_real(d, "float32_fortran_be_2x3.npy",
             np.asfortranarray((np.arange(6, dtype=">f4").reshape(2, 3) * np.float32(1.5)).astype(">f4")))
    # --- big endian
    be = {
        "float32_be.npy": np.array([1.5, -2.25, 3e-3, 1e30, -0.0], dtype=">f4"),
        "float64_be.npy": np.array([1.5, -2.25, 1e-300, 1e300, np.pi], dtype=">f8"),
        "float16_be.npy": np.array([1.5, -2.25, 65504, 2 ** -24], dtype=">f2"),
        "int32_be.npy": np.array([1, -2, 2 ** 31 - 1, -(2 ** 31)], dtype=">i4"),
        "uint16_be.npy": np.array([1, 2, 0x1234, 65535], dtype=">u2"),
        "int64_be.npy": np.array([1, -2, 2 ** 62 + 3, -(2 ** 63)], dtype=">i8"),
        "int16_be.npy": np.array([1, -2, 0x1234, -32768], dtype=">i2"),
        "uint32_be.npy": np.array([1, 2, 0x12345678, 2 ** 32 - 1], dtype=">u4"),
        "uint64_be.npy": np.array([1, 2 ** 63 + 5, 2 ** 64 - 1], dtype=">u8"),
        "complex64_be.npy": np.array([1 + 2j, -3.5 - 0.25j], dtype=">c8"),
        "complex128_be.npy": np.array([1 + 2j, -3.5 - 0.25j], dtype=">c16"),
    }
    for n, a in be.items():
        npy_real(d, n, a)
    # --- 0-d, empty, 5-D, large
    npy_real(d, "float32_scalar.npy", np.array(3.25, dtype=np.float32))
    npy_real(d, "int64_scalar.npy", np.array(-(2 ** 40) - 1, dtype=np.int64))
    npy_real(d, "float32_empty_0.npy", np.zeros((0,), dtype=np.float32))
    npy_real(d, "float64_empty_2x0x3.npy", np.zeros((2, 0, 3), dtype=np.float64))
    npy_real(d, "float32_ones_5d.npy", np.ones((2, 1, 3, 1, 2), dtype=np.float32))
    npy_real(d, "float32_256x256.npy", rng.standard_normal((256, 256)).astype(np.float32))
    # --- v2 / v3 headers (numpy's writer, version forced)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    npy_real(d, "float32_v2.npy", a, version=(2, 0))
    npy_real(d, "float32_v3.npy", a, version=(3, 0))
    # --- bf16 from torch
    tb = torch.tensor([1.0, -2.5, 3.140625, 0.0078125, -0.0, 65280.0], dtype=torch.bfloat16)
    npy_real(d, "bfloat16_as_float32.npy", tb.float().numpy(), note="bf16 tensor saved as t.float().numpy()",
             logical="bfloat16 upcast to float32")
    npy_real(d, "bfloat16_as_int16_view.npy", tb.view(torch.int16).numpy(),
             note="bf16 tensor saved as t.view(torch.int16).numpy(); values are the raw bf16 bit patterns",
             logical="bfloat16 bits", bf16_values=[float(x) for x in tb.float()])

    # --- synthetic npy (hand-built headers)
    def syn(name, header, data_arr, version=1, pad_to=64, note=None, logical_entry=None, extra_pad=0):
        p = d / name
        npy_write_raw(p, header, T.le_bytes_np(data_arr) if data_arr.dtype.byteorder != ">" else data_arr.tobytes(),
                      version=version, pad_to=pad_to, extra_pad=extra_pad)
        info = npy_info(p)
        if note:
            info["note"] = note
        ent = logical_entry or T.entry_np("", data_arr)
        try:  # numpy can read most of them: double check
            back = np.load(p, max_header_size=1 << 20)
            if back.dtype.kind != "V":
                assert np.array_equal(back, data_arr, equal_nan=True), name
            info["numpy_loads"] = True
        except Exception as e:  # noqa: BLE001
            info["numpy_loads"] = False
            info["numpy_error"] = str(e)[:200]
        sidecar(p, True, [ent], **info)

    bits = tb.view(torch.int16).numpy().view(np.uint16).reshape(2, 3)
    syn("bfloat16_mldtypes_style_V2.npy", "{'descr': '<V2', 'fortran_order': False, 'shape': (2, 3), }",
        bits, note="ml_dtypes-style bfloat16: opaque 2-byte void; values below are the bf16 interpretation",
        logical_entry=T.entry_torch("", tb.reshape(2, 3), view_meta=False))
    u8 = np.array([[0, 1, 127], [128, 254, 255]], dtype=np.uint8)
    syn("uint8_cnpy_style.npy", "{'descr': '<u1', 'fortran_order': False, 'shape': (2, 3), }", u8, pad_to=16,
        note="cnpy writes '<' on 1-byte types and pads to 16")
    syn("bool_cnpy_style.npy", "{'descr': '<b1', 'fortran_order': False, 'shape': (4,), }",
        np.array([True, False, False, True]), pad_to=16)
    i8 = np.arange(6, dtype=np.int64).reshape(2, 3) * (2 ** 33) - 5
    syn("int64_python2_L.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (2L, 3L), }", i8,
        note="Python 2 numpy wrote long ints with an L suffix")
    f4 = np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(8)
    syn("float32_reordered_keys.npy", "{'shape':(3,4),'fortran_order':False,'descr':'<f4'}", f4,
        note="unsorted keys, no spaces, no trailing comma")
    syn("float32_native_eq.npy", "{'descr': '=f4', 'fortran_order': False, 'shape': (5,), }",
        np.array([1, 2, 3, 4.5, -1], dtype=np.float32), note="'=' byte order (native = little here)")
    syn("float32_double_quotes.npy", '{"descr": "<f4", "fortran_order": False, "shape": (2,), }',
        np.array([0.5, -0.5], dtype=np.float32), note="double-quoted strings")
    syn("float32_unaligned_nopad.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
        np.array([1, 2, 3], dtype=np.float32), pad_to=0, note="no padding: data offset not a multiple of 4")
    syn("float32_growth_spaces.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + " " * 21,
        np.array([7, 8, 9], dtype=np.float32), note="21 growth-axis spaces after the dict")
    syn("float32_v1_huge_padding.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
        np.array([[1, 2], [3, 4]], dtype=np.float32), extra_pad=9000,
        note="v1 header padded to ~9 KB (still under numpy's 10000-char default limit)")
    syn("float32_v2_huge_header.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
        np.array([[1, 2], [3, 4]], dtype=np.float32), version=2, extra_pad=70000,
        note="v2 header of ~70 KB (over 65535, over numpy's default 10000 read limit: np.load needs "
             "max_header_size)")
    syn("float32_v3_utf8.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } # \u00e9\u4e2d",
        np.array([1.25, 2.5], dtype=np.float32), version=3,
        note="v3 header with non-latin-1 UTF-8 bytes in the padding region (after the dict)")

    # --- error npy
    def err(name, synthetic, reason, writer):
        p = d / name
        writer(p)
        try:
            np.load(p, allow_pickle=False)
            numpy_loads = True
        except Exception:  # noqa: BLE001
            numpy_loads = False
        sidecar(p, synthetic, [], expect_error=True, reason=reason, numpy_loads_without_pickle=numpy_loads)

    err("object_dtype.npy", False, "unsupported npy dtype |O",
        lambda p: np.save(p, np.array([1, "a", None], dtype=object), allow_pickle=True))
    mal = b"cposix\nsystem\n(X\x12\x00\x00\x00echo td-owned >&2tR."  # never executed
    err("malicious_object_pickle.npy", True, "unsupported npy dtype |O (payload is a posix.system pickle)",
        lambda p: npy_write_raw(p, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", mal))
    err("structured_dtype.npy", False, "structured dtype",
        lambda p: np.save(p, np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")])))
    err("unicode_U3.npy", False, "unsupported npy dtype <U3", lambda p: np.save(p, np.array(["abc", "de"])))
    err("datetime_M8.npy", False, "unsupported npy dtype <M8[D]",
        lambda p: np.save(p, np.array(["2024-01-01"], dtype="M8[D]")))
    err("longdouble_f16.npy", False, "unsupported npy dtype <f16 (long double)",
        lambda p: np.save(p, np.array([1, 2], dtype=np.longdouble)))
    err("subarray_dtype.npy", True, "subarray descr tuple",
        lambda p: npy_write_raw(p, "{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': (1,), }",
                                b"\0" * 8))

    def trunc(p):
        np.save(p, np.arange(100, dtype=np.float32))
        b = Path(p).read_bytes()
        Path(p).write_bytes(b[:-10])
    err("truncated_data.npy", False, "truncated: file shorter than the data size", trunc)

    def badmagic(p):
        np.save(p, np.arange(4, dtype=np.float32))
        b = bytearray(Path(p).read_bytes())
        b[1:6] = b"NUMPX"
        Path(p).write_bytes(bytes(b))
    err("bad_magic.npy", True, "bad magic", badmagic)

    def badver(p):
        np.save(p, np.arange(4, dtype=np.float32))
        b = bytearray(Path(p).read_bytes())
        b[6] = 4
        Path(p).write_bytes(bytes(b))
    err("bad_version_4_0.npy", True, "unsupported npy version 4.0", badver)
    err("shape_overflow.npy", True, "shape product overflows",
        lambda p: npy_write_raw(p, "{'descr': '<f8', 'fortran_order': False, "
                                   "'shape': (4294967296, 4294967296, 4294967296), }", b"\0" * 8))
    err("truncated_header.npy", True, "header length beyond end of file",
        lambda p: Path(p).write_bytes(b"\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', "))
    err("header_missing_shape.npy", True, "header lacks 'shape'",
        lambda p: npy_write_raw(p, "{'descr': '<f4', 'fortran_order': False, }", b"\0" * 4))


# =============================================================================================
# .npz


def gen_npz():
    d = reset("npz")
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    b = np.array([1, -2, 3], dtype=np.int64)
    c = np.array(True)
    cases = [
        ("named_stored.npz", lambda p: np.savez(p, weight=a, bias=b, flag=c), 0),
        ("named_deflate.npz", lambda p: np.savez_compressed(p, weight=a, bias=b, flag=c), 8),
        ("positional_stored.npz", lambda p: np.savez(p, a, b), 0),
        ("positional_deflate.npz", lambda p: np.savez_compressed(p, a, np.zeros((0, 3), np.float16)), 8),
    ]
    for name, w, method in cases:
        p = d / name
        w(p)
        z = zipfile.ZipFile(p)
        members = [OrderedDict(name=i.filename, compress_type=i.compress_type, file_size=i.file_size,
                               compress_size=i.compress_size, header_offset=i.header_offset)
                   for i in z.infolist()]
        assert all(m["compress_type"] == method for m in members)
        ents = []
        with np.load(p) as f:
            for k in f.files:
                ents.append(T.entry_np(k, f[k]))
        sidecar(p, False, ents, members=members)


# =============================================================================================
# .pt


def pt_meta(path):
    b = Path(path).read_bytes()
    meta = OrderedDict()
    if b[:4] == b"PK\x03\x04":
        z = zipfile.ZipFile(path)
        meta["format"] = "zip"
        meta["archive_root"] = z.namelist()[0].split("/")[0]
        meta["records"] = [i.filename for i in z.infolist()]
    else:
        meta["format"] = "legacy"
    return meta


def tensors_and_others(obj):
    ents, others = [], []
    for path, leaf in T.flatten(obj):
        if isinstance(leaf, torch.Tensor):
            ents.append(T.entry_torch(path, leaf))
        else:
            others.append(OrderedDict(path=path, type=type(leaf).__name__,
                                      value=leaf if not isinstance(leaf, float) else T.fnum(leaf)))
    return ents, others


def check_ref(path, ents):
    """Cross-check the sidecar with the independent reference loader (zip files only)."""
    if Path(path).read_bytes()[:2] != b"PK":
        return
    obj = T.ref_load_pt(path)
    leaves = [(p, x) for p, x in T.flatten(obj) if isinstance(x, T.RefTensor)]
    assert len(leaves) == len(ents), (path, len(leaves), len(ents))
    for (p, rt), e in zip(leaves, ents):
        assert p == e["path"], (path, p, e["path"])
        r = T.ref_entry(p, rt)
        bad = T.same_stats(r, e)
        assert not bad, (path, p, bad, r, e)
        if "requires_grad" in e:
            assert rt.requires_grad == e["requires_grad"], (path, p)
        if "is_parameter" in e:
            assert rt.is_parameter == e["is_parameter"], (path, p)


def pt_real(d, name, obj, note=None, check_torch=True, **save_kw):
    p = d / name
    torch.save(obj, p, **save_kw)
    back = torch.load(p)
    ents, others = tensors_and_others(back)
    ents0, _ = tensors_and_others(obj)
    for e0, e1 in zip(ents0, ents):
        assert T.same_stats(e0, e1) == [], (name, e0["path"])
    meta = pt_meta(p)
    if note:
        meta["note"] = note
    meta["object_type"] = type(obj).__name__
    if others:
        meta["others"] = others
    check_ref(p, ents)
    sidecar(p, False, ents, **meta)
    return p


class MyTensor(torch.Tensor):
    """A Tensor subclass: torch.save pickles it as _rebuild_from_type_v2 with __main__.MyTensor."""


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.norm = torch.nn.LayerNorm(2)
        self.register_buffer("steps", torch.tensor(7, dtype=torch.int64))


def gen_pt():
    d = reset("pt")
    torch.manual_seed(0)
    base = torch.arange(-5, 7, dtype=torch.float64).reshape(3, 4) * 0.75
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
               torch.int16, torch.int32, torch.int64, torch.bool]:
        t = base.to(dt) if dt != torch.uint8 else (base + 5).to(dt)
        pt_real(d, f"{T.canon_torch(dt)}_3x4.pt", t)
    pt_real(d, "complex64_2x3.pt", torch.complex(torch.randn(2, 3), torch.randn(2, 3)))
    pt_real(d, "complex128_2x3.pt", torch.complex(torch.randn(2, 3, dtype=torch.float64),
                                                    torch.randn(2, 3, dtype=torch.float64)))
    pt_real(d, "float32_special.pt", torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 1.0,
                                                    3.4028234663852886e38, 1.4e-45]))
    pt_real(d, "bfloat16_special.pt", torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0,
                                                     3.3895313892515355e38, 9.183549615799121e-41],
                                                    dtype=torch.bfloat16))
    pt_real(d, "float32_128x128.pt", torch.randn(128, 128))
    pt_real(d, "scalar_float32.pt", torch.tensor(2.5))
    pt_real(d, "scalar_int64.pt", torch.tensor(-(2 ** 40) - 3))
    pt_real(d, "empty_0.pt", torch.zeros(0))
    pt_real(d, "empty_2x0x3.pt", torch.zeros(2, 0, 3))
    # views
    m45 = torch.arange(20, dtype=torch.float32).reshape(4, 5)
    pt_real(d, "view_transposed.pt", m45.t(), note="transpose of 4x5: size (5,4) stride (1,5)")
    pt_real(d, "view_slice_offset.pt", m45[1:, 1:3], note="t[1:,1:3] of 4x5: offset 6, size (3,2), stride (5,1)")
    pt_real(d, "view_step_slice.pt", torch.arange(30, dtype=torch.int32)[2::3], note="offset 2, stride 3")
    pt_real(d, "view_expand_stride0.pt", torch.tensor([1.5, -2.0, 3.25]).reshape(3, 1).expand(3, 4),
            note="expand: stride (1, 0)")
    pt_real(d, "view_noncontig_bf16.pt",
            torch.arange(24, dtype=torch.float32).reshape(2, 3, 4).to(torch.bfloat16).permute(2, 0, 1),
            note="permuted bf16: size (4,2,3) stride (1,12,4)")
    s = torch.arange(16, dtype=torch.float32) * 0.5
    pt_real(d, "shared_storage_views.pt", {"a": s[:4], "b": s[4:].reshape(3, 4), "c": s.reshape(4, 4).t()},
            note="three views of one 16-element storage (one data/0 record)")
    t = torch.randn(2, 3)
    pt_real(d, "same_tensor_twice.pt", [t, t], note="the same tensor object twice: memo BINGET")
    big = (torch.arange(66000 + 6, dtype=torch.int64) % 251 - 125).to(torch.int8)
    pt_real(d, "offset_66000_int8.pt", big[66000:], note="storage_offset 66000 (BININT), storage 66006 bytes")
    pt_real(d, "dict.pt", {"w": torch.randn(2, 2), "b": torch.zeros(2), "n": torch.tensor([1, 2, 3])})
    od = OrderedDict()
    od["z_last_first"] = torch.ones(2)
    od["a"] = torch.full((2, 2), -1.0)
    od[3] = torch.tensor([True, False])
    pt_real(d, "ordered_dict.pt", od, note="hand OrderedDict; keys in insertion order incl. an int key")
    torch.manual_seed(1)
    net = TinyNet()
    pt_real(d, "module_state_dict.pt", net.state_dict(), note="nn.Module state_dict: ends with BUILD _metadata")
    pt_real(d, "list.pt", [torch.ones(2), torch.zeros(1, dtype=torch.int32), torch.tensor(5.0)])
    pt_real(d, "tuple.pt", (torch.arange(3), torch.eye(2)))
    rec = {"name": "layer1", "step": 3, "big": 2 ** 40, "neg": -7, "lr": 1e-3, "ok": True, "none": None,
           "inputs": [torch.randn(2).to(torch.float16), {"mask": torch.tensor([True, False, True])}],
           "outputs": (torch.randn(1, 2).to(torch.bfloat16),), "empty_list": [], "empty_dict": {}}
    pt_real(d, "nested_record.pt", rec, note="str / int / LONG1 / BINFLOAT / bool / None leaves mixed with tensors")
    p = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [2.0, 3.0]]))
    pt_real(d, "parameter.pt", p, note="nn.Parameter (requires_grad True)")
    pt_real(d, "parameter_no_grad.pt", torch.nn.Parameter(torch.ones(3), requires_grad=False))
    pt_real(d, "requires_grad.pt", torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    pt_real(d, "protocol4.pt", {"x": torch.arange(5, dtype=torch.float32), "y": [torch.ones(2, dtype=torch.int16)]},
            pickle_protocol=4, note="pickle protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE, ...)")
    pt_real(d, "legacy_single.pt", torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4,
            _use_new_zipfile_serialization=False, note="legacy (non-zip) format")
    s2 = torch.arange(10, dtype=torch.float64)
    pt_real(d, "legacy_shared.pt", {"x": s2[:5], "y": s2[3:].reshape(7), "i": torch.tensor([1, 2], dtype=torch.int32)},
            _use_new_zipfile_serialization=False, note="legacy format, two tensors sharing one storage + another")
    pt_real(d, "legacy_bf16_views.pt", [torch.arange(12, dtype=torch.bfloat16).reshape(3, 4).t()],
            _use_new_zipfile_serialization=False)
    pt_real(d, "multi_storage_12.pt", [torch.full((2,), float(i)) for i in range(12)],
            note="12 storages: torch 1.13 writes records in lexicographic key order 0,1,10,11,2,...")

    # --- location tags via a registered tagger (real torch writer and pickle; only the tag differs)
    tag = {"loc": None}

    def tagger(storage):
        return tag["loc"]
    torch.serialization.register_package(1, tagger, lambda obj, loc: None)
    for loc, name in [("cuda:0", "location_cuda0.pt"), ("npu:0", "location_npu0.pt")]:
        tag["loc"] = loc
        pp = d / name
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3) - 1
        torch.save(x, pp)
        tag["loc"] = None
        back = torch.load(pp, map_location="cpu")
        ents = [T.entry_torch("", back, location=loc)]
        assert torch.equal(back, x)
        check_ref(pp, ents)
        meta = pt_meta(pp)
        meta["note"] = f"real torch.save; location tag '{loc}' produced by a registered serialization tagger"
        sidecar(pp, True, ents, **meta)
    tag["loc"] = None

    gen_pt_synthetic(d)
    gen_pt_errors(d)


def extract_zip_records(path):
    z = zipfile.ZipFile(path)
    root = z.namelist()[0].split("/")[0]
    return OrderedDict((i.filename[len(root) + 1:], z.read(i.filename)) for i in z.infolist())


def syn_pt(d, name, records, ents, note, torch_loads=None, others=None):
    p = d / name
    T.write_torch_zip(p, records)
    check_ref(p, ents)
    meta = pt_meta(p)
    meta["note"] = note
    if others:
        meta["others"] = others
    if torch_loads is not None:
        try:
            torch.load(p)
            meta["torch_1_13_loads"] = True
        except Exception as e:  # noqa: BLE001
            meta["torch_1_13_loads"] = False
            meta["torch_1_13_error"] = str(e).splitlines()[0][:200]
    sidecar(p, True, ents, **meta)


def gen_pt_synthetic(d):
    # torch 2.x record set around an authentic torch-1.13 pickle
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 3
    buf = io.BytesIO()
    torch.save({"w": x, "b": torch.tensor([1, 2], dtype=torch.int64)}, buf)
    recs = extract_zip_records(io.BytesIO(buf.getvalue()))
    sid = "".join(str((i * 7 + 3) % 10) for i in range(40)).encode()
    records = [("data.pkl", recs["data.pkl"]), (".format_version", b"1"), (".storage_alignment", b"64"),
               ("byteorder", b"little"), ("data/0", recs["data/0"]), ("data/1", recs["data/1"]),
               (".data/serialization_id", sid)]
    ents = [T.entry_torch("w", x), T.entry_torch("b", torch.tensor([1, 2], dtype=torch.int64))]
    syn_pt(d, "torch2_records.pt", records, ents,
           "torch 2.x record set (.format_version, .storage_alignment, byteorder=little, .data/serialization_id)",
           torch_loads=True)

    # big-endian: authentic pickle, storages byte-swapped, byteorder=big
    vals = {"f": torch.tensor([1.5, -2.0, 1e-3], dtype=torch.float32),
            "d": torch.tensor([[1.0, -1e300]], dtype=torch.float64),
            "h": torch.tensor([0.5, 65504.0], dtype=torch.float16),
            "bf": torch.tensor([1.0, -3.0], dtype=torch.bfloat16),
            "i": torch.tensor([1, -2, 70000], dtype=torch.int32),
            "l": torch.tensor([2 ** 40 + 1], dtype=torch.int64),
            "c": torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64),
            "u8": torch.tensor([1, 255], dtype=torch.uint8),
            "b": torch.tensor([True, False])}
    buf = io.BytesIO()
    torch.save(vals, buf)
    recs = extract_zip_records(io.BytesIO(buf.getvalue()))
    # map storage key -> element size: keys are assigned in first-use order = dict order
    sizes = {str(i): (t.element_size() if not t.is_complex() else t.element_size() // 2)
             for i, t in enumerate(vals.values())}
    records = [("data.pkl", recs["data.pkl"]), ("byteorder", b"big")]
    for k in sorted(sizes, key=int):
        raw = np.frombuffer(recs[f"data/{k}"], dtype=np.uint8)
        es = sizes[k]
        swapped = raw.reshape(-1, es)[:, ::-1].tobytes() if es > 1 else raw.tobytes()
        records.append((f"data/{k}", swapped))
    ents = [T.entry_torch(k, v) for k, v in vals.items()]
    syn_pt(d, "bigendian.pt", records, ents,
           "byteorder=big: every storage swapped per element (complex: each half); pickle authentic")

    # _rebuild_tensor_v3 uint16 / float8_e4m3fn over UntypedStorage (torch >= 2.1 layout)
    u16 = np.array([[0, 1, 2], [40000, 65534, 65535]], dtype="<u2")
    f8 = np.array([0x38, 0xB8, 0x7E, 0x00, 0x01, 0x40], dtype=np.uint8)  # 1.0 -1.0 448 0 2^-9 2.0
    obj = {"u16": T.R(T.G("torch._utils", "_rebuild_tensor_v3"),
                      [T.PID(("storage", T.G("torch", "UntypedStorage"), "0", "cpu", u16.nbytes)), 0, (2, 3),
                       (3, 1), False, T.ODict(), T.G("torch", "uint16")]),
           "f8": T.R(T.G("torch._utils", "_rebuild_tensor_v3"),
                     [T.PID(("storage", T.G("torch", "UntypedStorage"), "1", "cpu", f8.nbytes)), 0, (6,), (1,),
                      False, T.ODict(), T.G("torch", "float8_e4m3fn")])}
    e16 = T.stats_entry("u16", u16, "uint16", u16.tobytes(), requires_grad=False)
    e8 = T.stats_entry("f8", f8, "float8_e4m3fn", f8.tobytes(), requires_grad=False,
                       note="values are the raw fp8 bytes; e4m3fn decodes to [1, -1, 448, 0, 0.001953125, 2]",
                       float8_values=[1.0, -1.0, 448.0, 0.0, 0.001953125, 2.0])
    syn_pt(d, "rebuild_v3_uint16_float8.pt",
           [("data.pkl", T.pickle2(obj)), ("byteorder", b"little"), ("data/0", u16.tobytes()),
            ("data/1", f8.tobytes())], [e16, e8],
           "_rebuild_tensor_v3 with UntypedStorage (numel in bytes) and dtype GLOBALs torch.uint16 / "
           "torch.float8_e4m3fn; readers without fp8 may reject 'f8' but must read 'u16'", torch_loads=True)

    # _rebuild_tensor_v2 with the 7th metadata arg (torch 2.x) + _rebuild_from_type_v2 with state
    y = np.array([1.0, 2.0, -3.0, 0.25], dtype="<f4")
    inner = T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 0, (2, 2), (2, 1), False, extra={})
    obj = {"meta_arg": T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 1, (3,), (1,), True,
                                    extra={"some_meta": 1}),
           "from_type": T.R(T.G("torch._tensor", "_rebuild_from_type_v2"),
                            [T.G("torch._utils", "_rebuild_tensor_v2"), T.G("torch", "Tensor"),
                             inner.args, {"my_attr": "hello", "n": 3}])}
    t_meta = torch.from_numpy(y.copy())[1:].requires_grad_(True)
    ents = [T.entry_torch("meta_arg", t_meta, view_meta=False, storage_offset=1, stride=[1]),
            T.entry_torch("from_type", torch.from_numpy(y.copy()).reshape(2, 2), view_meta=False)]
    syn_pt(d, "rebuild_from_type_v2_state.pt",
           [("data.pkl", T.pickle2(obj)), ("byteorder", b"little"), ("data/0", y.tobytes())], ents,
           "torch 2.x style: v2 with 7th metadata dict; _rebuild_from_type_v2(func=v2, torch.Tensor, args, "
           "state dict) for a plain Tensor with Python attributes", torch_loads=True)

    # torch_npu _rebuild_npu_tensor
    z = np.array([[0.5, -1.5, 2.0], [4.0, 8.0, -16.0]], dtype="<f4")
    zb = torch.from_numpy(z).to(torch.bfloat16)
    zbits = zb.view(torch.int16).numpy().astype("<i2")
    obj = T.R(T.G("torch_npu.utils.storage", "_rebuild_npu_tensor"),
              [T.PID(("storage", T.G("torch", "BFloat16Storage"), "0", "npu:0", 6)), 0, (2, 3), (3, 1), True,
               T.ODict(), 2])
    syn_pt(d, "npu_rebuild.pt", [("data.pkl", T.pickle2(obj)), ("data/0", zbits.tobytes())],
           [T.entry_torch("", zb.requires_grad_(True), view_meta=False, location="npu:0", npu_storage_info=2)],
           "torch_npu _rebuild_npu_tensor(storage, offset, size, stride, requires_grad, hooks, npu_format=2 (ND))",
           torch_loads=True)

    # msprobe-style archive root containing dots (real torch.save, file name as msprobe writes)
    w = torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.bfloat16)
    pt_real(d, "Functional.linear.0.forward.input.0.pt", w.clone().contiguous().detach(),
            note="msprobe file name: archive root has dots")


def gen_pt_errors(d):
    def err(name, synthetic, reason, writer):
        p = d / name
        writer(p)
        try:
            meta = pt_meta(p)
        except zipfile.BadZipFile:
            meta = OrderedDict(format="broken zip")
        sidecar(p, synthetic, [], expect_error=True, reason=reason, **meta)

    good = np.arange(4, dtype="<f4").tobytes()
    mal = b"\x80\x02cposix\nsystem\nq\x00X\x16\x00\x00\x00echo td-owned-by-pickleq\x01\x85q\x02Rq\x03."
    err("malicious_os_system.pt", True, "forbidden global 'posix.system'",
        lambda p: T.write_torch_zip(p, [("data.pkl", mal)]))
    obj = {"ok": T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 0, (4,), (1,)),
           "evil": T.R(T.G("builtins", "eval"), ["__import__('os').getcwd()"])}
    err("builtins_eval_in_dict.pt", True, "forbidden global 'builtins.eval'",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(obj)), ("data/0", good)]))
    torch.manual_seed(2)
    err("whole_module_linear.pt", False, "forbidden global 'torch.nn.modules.linear.Linear' (torch.save(model))",
        lambda p: torch.save(torch.nn.Linear(2, 2), p))
    err("tensor_subclass.pt", False, "tensor subclass __main__.MyTensor via _rebuild_from_type_v2",
        lambda p: torch.save(torch.ones(3).as_subclass(MyTensor), p))
    two = {"a": T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 0, (4,), (1,)),
           "b": T.rebuild_v2(T.storage_pid("FloatStorage", "1", "cpu", 4), 0, (4,), (1,))}
    err("missing_record.pt", True, "missing record data/1",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(two)), ("data/0", good)]))
    oob = T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 2, (2, 2), (2, 1))
    err("view_out_of_bounds.pt", True, "view out of bounds: offset 2 + (1*2 + 1*1) = 5 >= 4 elements",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(oob)), ("data/0", good)]))
    mis = T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 6), 0, (4,), (1,))
    err("storage_size_mismatch.pt", True, "storage size mismatch: numel 6 * 4 != 16 bytes",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(mis)), ("data/0", good)]))

    def trunc(p):
        torch.save({"x": torch.arange(64, dtype=torch.float32)}, p)
        b = Path(p).read_bytes()
        Path(p).write_bytes(b[: len(b) // 2])
    err("truncated.pt", False, "truncated zip (no end of central directory)", trunc)
    neg = T.rebuild_v2(T.storage_pid("FloatStorage", "0", "cpu", 4), 0, (2,), (-1,))
    err("negative_stride.pt", True, "negative stride",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(neg)), ("data/0", good)]))
    q = T.R(T.G("torch._utils", "_rebuild_qtensor"), [T.storage_pid("QInt8Storage", "0", "cpu", 4), 0, (4,), (1,)])
    err("quantized_tensor.pt", True, "unsupported tensor kind _rebuild_qtensor / QInt8Storage",
        lambda p: T.write_torch_zip(p, [("data.pkl", T.pickle2(q)), ("data/0", b"\0" * 4)]))
    err("torchscript.pt", False, "TorchScript archive (constants.pkl / code/)",
        lambda p: (torch.manual_seed(3), torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), str(p))))
    deep = b"\x80\x02" + b"]" * 5000 + b"a" * 4999 + b"."
    err("deep_nesting.pt", True,
        "containers nested 5000 deep (EMPTY_LIST x5000, APPEND x4999): over the suggested depth cap of 1000",
        lambda p: T.write_torch_zip(p, [("data.pkl", deep)]))
    err("bad_persid.pt", True, "BINPERSID id not shaped like ('storage', ...)",
        lambda p: T.write_torch_zip(p, [("data.pkl", b"\x80\x02X\x03\x00\x00\x00abc\x85Q.")]))
    err("newobj.pt", True, "unsupported pickle opcode 0x81 (NEWOBJ)",
        lambda p: T.write_torch_zip(p, [("data.pkl", b"\x80\x02ccollections\nOrderedDict\n)\x81.")]))


# =============================================================================================
# msprobe-style mini dump (the formats.md 6 'msprobe_pt/' case)


def gen_msprobe_pt():
    d = reset("msprobe_pt")
    data_dir = d / "dump_tensor_data"
    data_dir.mkdir()
    torch.manual_seed(5)
    x = torch.randn(2, 4).to(torch.bfloat16)
    w = torch.randn(3, 4).to(torch.bfloat16).requires_grad_(True)
    y = torch.nn.functional.linear(x, w).detach()
    entry = OrderedDict()
    name = "Functional.linear.0.forward"

    def leaf(t, item):
        dn = f"{name}.{item}.pt"
        torch.save(t.clone().contiguous().detach().requires_grad_(t.requires_grad), data_dir / dn)
        return OrderedDict(type="torch.Tensor", dtype=str(t.dtype), shape=list(t.shape),
                           Max=t.max().item(), Min=t.min().item(), Mean=t.mean().item(), Norm=t.norm().item(),
                           requires_grad=t.requires_grad, data_name=dn)
    entry["input_args"] = [leaf(x, "input.0"), leaf(w, "input.1")]
    entry["input_kwargs"] = {}
    entry["output"] = [leaf(y, "output.0")]
    dump = OrderedDict(task="tensor", level="L1", framework="pytorch", dump_data_dir=str(data_dir),
                       data=OrderedDict([(name, entry)]))
    (d / "dump.json").write_text(json.dumps(dump, indent=1))
    for f in sorted(data_dir.iterdir()):
        t = torch.load(f)
        ents = [T.entry_torch("", t)]
        check_ref(f, ents)
        sidecar(f, False, ents, **pt_meta(f))


def main():
    gen_npy()
    gen_npz()
    gen_pt()
    gen_msprobe_pt()
    T.write_json(HERE / "manifest.json", OrderedDict(
        generator="tests/data/generate_goldens.py", numpy=np.__version__, torch=torch.__version__,
        files=MANIFEST))
    tot = sum(m["size"] for m in MANIFEST)
    print(f"wrote {len(MANIFEST)} golden files, {tot} bytes")


if __name__ == "__main__":
    main()
