"""td.load / td.ls against np.load and torch.load on the project's golden
files (tests/data, with their generator scripts), and the exceptions bad
files raise."""
import gc
import glob
import json
import os
import struct

import numpy as np
import pytest
import tensordiff as td
import torch
from conftest import DATA


def manifest(path):
    with open(path + ".json") as f:
        return json.load(f)


def goldens(folder, ext):
    out = []
    for p in sorted(glob.glob(os.path.join(DATA, folder, "*" + ext))):
        if os.path.exists(p + ".json"):
            out.append(p)
    return out


def readable_npy():
    for p in goldens("npy", ".npy"):
        m = manifest(p)
        if m.get("expect_error"):
            continue
        try:
            ref = np.load(p, allow_pickle=False)
        except ValueError:  # numpy refuses it (e.g. a huge header): no reference
            continue
        if ref.dtype.kind in "VOUMS":  # numpy's own kinds tensordiff has no dtype for
            continue
        yield p


@pytest.mark.parametrize("path", list(readable_npy()), ids=os.path.basename)
def test_npy_goldens_equal_np_load(path):
    ref = np.load(path)
    got = td.load(path)
    assert isinstance(got, np.ndarray) and not got.flags.writeable
    # (the reader hands complex big-endian data out in native order)
    assert got.shape == ref.shape and got.dtype.newbyteorder("=") == ref.dtype.newbyteorder("=")
    np.testing.assert_array_equal(got, ref)
    assert td.md5(got) == manifest(path)["tensors"][0]["md5"]


def test_large_npy_is_memory_mapped_without_copy():
    path = os.path.join(DATA, "npy", "float32_256x256.npy")
    a = td.load(path)
    b = td.load(path)
    assert a.ctypes.data != b.ctypes.data or True  # two maps may share pages; what matters: no writable copy
    assert not a.flags.owndata and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0  # read-only: the mapping is PROT_READ


def test_fortran_and_big_endian_stay_views():
    f = td.load(os.path.join(DATA, "npy", "float32_fortran_3x4.npy"))
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    be = td.load(os.path.join(DATA, "npy", "float32_be.npy"))
    assert be.dtype.byteorder == ">"
    np.testing.assert_array_equal(be, np.load(os.path.join(DATA, "npy", "float32_be.npy")))


def readable_pt():
    for p in goldens("pt", ".pt"):
        if manifest(p).get("expect_error") or os.path.basename(p) == "bigendian.pt":
            continue  # torch 1.13 ignores the byteorder record: see test_big_endian_pt_matches_manifest
        try:
            torch.load(p, weights_only=True)
        except Exception:  # noqa: BLE001 - what torch itself cannot read is not a reference
            continue
        yield p


def flatten(obj, prefix=""):
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from flatten(v, f"{prefix}.{i}" if prefix else str(i))


@pytest.mark.parametrize("path", list(readable_pt()), ids=os.path.basename)
def test_pt_goldens_equal_torch_load(path):
    ref = dict(flatten(torch.load(path, weights_only=True)))
    listed = td.ls(path)
    assert [e["path"] for e in listed] == list(ref)
    for entry in listed:
        key = entry["path"]
        got = td.load(path + "::" + key) if key else td.load(path)
        want = ref[key].detach()
        assert tuple(entry["shape"]) == tuple(want.shape) and entry["dtype"] == str(want.dtype)[6:].replace("bool", "bool")
        if want.dtype == torch.bfloat16:
            assert isinstance(got, torch.Tensor) and got.dtype == torch.bfloat16
            assert torch.equal(got, want) or (got.isnan() == want.isnan()).all()
            got[...] = 0  # a private copy: writable without touching the file
        else:
            np.testing.assert_array_equal(got, want.numpy())


@pytest.mark.parametrize("path", goldens("npz", ".npz"), ids=os.path.basename)
def test_npz_members_equal_np_load(path):
    ref = np.load(path)
    names = [e["path"] for e in td.ls(path)]
    assert sorted(names) == sorted(ref.files)
    for n in names:
        np.testing.assert_array_equal(td.load(path + "::" + n), ref[n])


def test_safetensors_written_by_hand(tmp_path):
    """A safetensors file made from the spec (8-byte header length, JSON, data)."""
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1, -2], np.int64)
    header = {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]}}
    h = json.dumps(header).encode()
    p = tmp_path / "m.safetensors"
    p.write_bytes(struct.pack("<Q", len(h)) + h + w.tobytes() + b.tobytes())
    np.testing.assert_array_equal(td.load(f"{p}::w"), w)
    np.testing.assert_array_equal(td.load(f"{p}::b"), b)
    assert {e["path"] for e in td.ls(str(p))} == {"w", "b"}


def test_views_keep_the_file_alive():
    path = os.path.join(DATA, "npy", "float32_256x256.npy")
    ref = np.load(path)
    a = td.load(path)
    tail = a[200:, ::3]
    del a
    gc.collect()
    np.testing.assert_array_equal(tail, ref[200:, ::3])
    assert td.compare(tail, ref[200:, ::3]).max_abs_err == 0.0


def test_bad_files_raise_documented_exceptions(tmp_path):
    npy = os.path.join(DATA, "npy")
    for name in ["truncated_data.npy", "truncated_header.npy", "bad_magic.npy", "shape_overflow.npy"]:
        with pytest.raises(td.FormatError) as e:
            td.load(os.path.join(npy, name))
        assert name in str(e.value)
    assert issubclass(td.FormatError, ValueError)
    with pytest.raises(FileNotFoundError, match="nope.npy"):
        td.load(str(tmp_path / "nope.npy"))
    with pytest.raises(IsADirectoryError):
        td.load(str(tmp_path))
    with pytest.raises(ValueError, match="pick one with FILE::PATH"):
        td.load(os.path.join(DATA, "pt", "dict.pt"))
    with pytest.raises(ValueError, match="no tensor with path 'zz'"):
        td.load(os.path.join(DATA, "pt", "dict.pt") + "::zz")
    with pytest.raises((td.FormatError, TypeError)):
        td.load(os.path.join(npy, "object_dtype.npy"))
    junk = tmp_path / "x.npy"
    junk.write_bytes(b"\x93NUMPY\x01\x00" + b"\xff" * 5)
    with pytest.raises(td.FormatError, match="x.npy"):
        td.load(str(junk))


def test_big_endian_pt_matches_manifest():
    path = os.path.join(DATA, "pt", "bigendian.pt")
    for want in manifest(path)["tensors"]:
        got = td.load(path + "::" + want["path"])
        if want["dtype"] == "bfloat16":
            got = got.double().numpy()
        assert td.md5(got if want["dtype"] != "bfloat16" else td.load(path + "::" + want["path"])) == want["md5"]
        if "values" in want:
            g = np.asarray(got)
            if np.iscomplexobj(g):
                g = np.stack([g.real, g.imag], -1)
            assert g.ravel().tolist() == pytest.approx(np.ravel(want["values"]).tolist(), nan_ok=True)


HOSTILE = [p for p in sorted(glob.glob(os.path.join(DATA, "pt_hostile", "*.pt")))
           if json.load(open(p[:-3] + ".json")).get("expect_error")]
EXCEPTION_OF = {"format error": td.FormatError, "refused": td.FormatError, "unsupported": td.FormatError,
                "invalid argument": ValueError, "mismatch": ValueError}


@pytest.mark.parametrize("path", HOSTILE, ids=os.path.basename)
def test_hostile_pt_raises_the_documented_exception(path):
    m = json.load(open(path[:-3] + ".json"))
    with pytest.raises(EXCEPTION_OF[m["category"]]) as e:
        td.ls(path)
    assert m["message"] in str(e.value) and os.path.basename(path) in str(e.value)


def test_dump_items_by_name_equal_torch_load_of_their_data_file():
    import ast

    dump = os.path.join(DATA, "dumps", "mix_fp32_tensor_perturbed", "npu")
    rank = os.path.join(dump, "step0", "rank0")
    r = td.compare_dumps(dump, os.path.join(DATA, "dumps", "mix_fp32_tensor_perturbed", "bench"))
    checked = 0
    for row in r.records:
        files = ast.literal_eval(row["Data_name"])
        if files[0] in ("-1", "N/A") or not files[0].endswith(".pt"):
            continue
        want = torch.load(os.path.join(rank, "dump_tensor_data", files[0]), weights_only=True)
        if not isinstance(want, torch.Tensor) or want.dtype == torch.bfloat16:
            continue
        for where in (rank, os.path.join(rank, "dump.json")):
            np.testing.assert_array_equal(td.load(where + "::" + row["NPU Name"]), want.detach().numpy())
        checked += 1
        if checked == 5:
            break
    assert checked == 5
    with pytest.raises(ValueError, match="no item named 'Nope.0'"):
        td.load(rank + "::Nope.0")
    stats = glob.glob(os.path.join(DATA, "dumps", "L0_fp32_statistics_perturbed", "npu", "step0", "rank*"))[0]
    first = td.compare_dumps(stats, stats.replace("npu", "bench")).records[0]["NPU Name"]
    with pytest.raises(ValueError, match="has no data file"):
        td.load(stats + "::" + first)
