"""Shared helpers for the tensordiff golden-data generators (tests/data/generate_*.py).

Run with Debian's interpreter (numpy 1.24, torch 1.13): /usr/bin/python3.

Conventions of the sidecar `<file>.json` written next to every golden file:
  - dtype: canonical name (bool, int8, ..., float16, bfloat16, float32, float64, complex64, complex128)
  - shape, numel
  - sum / l2: float64, computed exactly-rounded with math.fsum over the float64 values
    (ints: exact integer arithmetic, then rounded to float64)
  - min / max: JSON ints for integer and bool dtypes, float64 for floats
  - any non-finite stat or value is written as the string "nan", "inf" or "-inf"
  - complex: sum_real, sum_imag, l2 (= sqrt(sum |z|^2)); no min/max; values as [re, im] pairs
  - md5 / crc32: of the C-order little-endian bytes in the tensor's own dtype (bf16: its 16-bit pattern)
  - values: the full flat C-order list when numel <= 16
"""
import hashlib
import json
import math
import pickle
import struct
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np

try:
    import torch
except ImportError:  # the npy part works without torch
    torch = None

VALUES_LIMIT = 16

_NP_CANON = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16", np.dtype(np.uint16): "uint16",
    np.dtype(np.int32): "int32", np.dtype(np.uint32): "uint32",
    np.dtype(np.int64): "int64", np.dtype(np.uint64): "uint64",
    np.dtype(np.float16): "float16", np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
    np.dtype(np.complex64): "complex64", np.dtype(np.complex128): "complex128",
}


def canon_np(dt):
    dt = np.dtype(dt)
    return _NP_CANON[dt.newbyteorder("=")]


def canon_torch(dt):
    return str(dt).replace("torch.", "").replace("bool", "bool")


def fnum(x):
    """float -> JSON-safe value (non-finite as strings)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _fsum(vals):
    vals = list(vals)
    try:
        return math.fsum(vals)
    except (OverflowError, ValueError):
        return float(np.sum(np.asarray(vals, dtype=np.float64)))


def stats_entry(path, values, dtype_name, raw_le, **extra):
    """values: numpy array (C-order) holding the logical values (bf16 given as float32).
    raw_le: the little-endian bytes in the tensor's own dtype."""
    values = np.array(values, order="C", copy=True)
    e = OrderedDict()
    e["path"] = path
    e["dtype"] = dtype_name
    e["shape"] = list(values.shape)
    n = int(values.size)
    e["numel"] = n
    flat = values.reshape(-1)
    if dtype_name in ("complex64", "complex128"):
        re = flat.real.astype(np.float64)
        im = flat.imag.astype(np.float64)
        e["sum_real"] = fnum(_fsum(re))
        e["sum_imag"] = fnum(_fsum(im))
        e["l2"] = fnum(math.hypot(*re, *im))
        vals = [[fnum(a), fnum(b)] for a, b in zip(re, im)]
    elif dtype_name == "bool" or values.dtype.kind in "iu":
        ints = [int(v) for v in flat]
        e["sum"] = float(sum(ints))
        if n:
            e["min"] = min(ints)
            e["max"] = max(ints)
        e["l2"] = math.sqrt(float(sum(v * v for v in ints)))
        vals = [bool(v) for v in ints] if dtype_name == "bool" else ints
    else:
        f = flat.astype(np.float64)
        if n:
            if np.isnan(f).any():
                e["sum"] = "nan"
                e["min"] = "nan"
                e["max"] = "nan"
                e["l2"] = "nan"
            else:
                e["sum"] = fnum(_fsum(f))
                e["min"] = fnum(f.min())
                e["max"] = fnum(f.max())
                e["l2"] = fnum(math.hypot(*f))
            e["nan_count"] = int(np.isnan(f).sum())
            e["inf_count"] = int(np.isinf(f).sum())
        else:
            e["sum"] = 0.0
            e["l2"] = 0.0
        vals = [fnum(v) for v in f]
    e["md5"] = hashlib.md5(raw_le).hexdigest()
    e["crc32"] = "%08x" % (zlib.crc32(raw_le) & 0xFFFFFFFF)
    e["nbytes"] = len(raw_le)
    if n <= VALUES_LIMIT:
        e["values"] = vals
    for k, v in extra.items():
        e[k] = v
    return e


def le_bytes_np(a):
    a = np.array(a, order="C", copy=True)
    return a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()


def entry_np(path, a, **extra):
    a = np.asarray(a)
    return stats_entry(path, np.array(a, order="C", copy=True), canon_np(a.dtype), le_bytes_np(a), **extra)


def torch_raw_le(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return le_bytes_np(t.numpy())


def torch_values(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    return t.numpy()


def entry_torch(path, t, view_meta=True, **extra):
    ex = OrderedDict()
    ex["requires_grad"] = bool(t.requires_grad)
    ex["is_parameter"] = isinstance(t, torch.nn.Parameter)
    if view_meta:
        ex["storage_offset"] = int(t.storage_offset())
        ex["stride"] = list(t.stride())
        ex["storage_numel"] = int(t.storage().size())
        ex["is_contiguous"] = bool(t.is_contiguous())
    ex.update(extra)
    return stats_entry(path, torch_values(t), canon_torch(t.dtype), torch_raw_le(t), **ex)


def flatten(obj, prefix=""):
    """Nested dict/list/tuple -> list of (path, leaf). Paths join keys / indices with '.'."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out += flatten(v, f"{prefix}.{i}" if prefix else str(i))
    else:
        out.append((prefix, obj))
    return out


def write_json(path, obj):
    Path(path).write_text(json.dumps(obj, indent=1, allow_nan=False) + "\n")


# --------------------------------------------------------------------------------------------
# Minimal protocol-2 pickle emitter for hand-built .pt pickles (synthetic fixtures).


class G:
    """GLOBAL module name."""

    def __init__(self, module, name):
        self.module, self.name = module, name


class R:
    """REDUCE: func(*args)."""

    def __init__(self, func, args):
        self.func, self.args = func, tuple(args)


class PID:
    """BINPERSID of a tuple."""

    def __init__(self, tup):
        self.tup = tuple(tup)


class ODict:
    """collections.OrderedDict built as GLOBAL/EMPTY_TUPLE/REDUCE + SETITEMS."""

    def __init__(self, items=()):
        self.items = list(items)


class Build:
    """obj then state then BUILD."""

    def __init__(self, obj, state):
        self.obj, self.state = obj, state


class PickleEmitter:
    def __init__(self):
        self.out = bytearray()
        self.memo_globals = {}
        self.next_memo = 0

    def put(self):
        i = self.next_memo
        self.next_memo += 1
        if i < 256:
            self.out += b"q" + bytes([i])
        else:
            self.out += b"r" + struct.pack("<I", i)
        return i

    def get(self, i):
        self.out += (b"h" + bytes([i])) if i < 256 else (b"j" + struct.pack("<I", i))

    def emit(self, o):
        out = self.out
        if o is None:
            out += b"N"
        elif o is True:
            out += b"\x88"
        elif o is False:
            out += b"\x89"
        elif isinstance(o, int):
            if 0 <= o < 256:
                out += b"K" + bytes([o])
            elif 0 <= o < 65536:
                out += b"M" + struct.pack("<H", o)
            elif -(2 ** 31) <= o < 2 ** 31:
                out += b"J" + struct.pack("<i", o)
            else:
                n = (o.bit_length() + 8) // 8
                out += b"\x8a" + bytes([n]) + o.to_bytes(n, "little", signed=True)
        elif isinstance(o, float):
            out += b"G" + struct.pack(">d", o)
        elif isinstance(o, str):
            b = o.encode("utf-8")
            out += b"X" + struct.pack("<I", len(b)) + b
            self.put()
        elif isinstance(o, G):
            key = (o.module, o.name)
            if key in self.memo_globals:
                self.get(self.memo_globals[key])
            else:
                out += b"c" + o.module.encode() + b"\n" + o.name.encode() + b"\n"
                self.memo_globals[key] = self.put()
        elif isinstance(o, R):
            self.emit(o.func)
            self.emit(o.args)
            out += b"R"
            self.put()
        elif isinstance(o, PID):
            self.emit(o.tup)
            out += b"Q"
        elif isinstance(o, tuple):
            if len(o) == 0:
                out += b")"
            elif len(o) <= 3:
                for x in o:
                    self.emit(x)
                out += bytes([0x84 + len(o)])
                self.put()
            else:
                out += b"("
                for x in o:
                    self.emit(x)
                out += b"t"
                self.put()
        elif isinstance(o, list):
            out += b"]"
            self.put()
            if o:
                out += b"("
                for x in o:
                    self.emit(x)
                out += b"e"
        elif isinstance(o, ODict):
            self.emit(R(G("collections", "OrderedDict"), ()))
            if o.items:
                out += b"("
                for k, v in o.items:
                    self.emit(k)
                    self.emit(v)
                out += b"u"
        elif isinstance(o, dict):
            out += b"}"
            self.put()
            if o:
                out += b"("
                for k, v in o.items():
                    self.emit(k)
                    self.emit(v)
                out += b"u"
        elif isinstance(o, Build):
            self.emit(o.obj)
            self.emit(o.state)
            out += b"b"
        else:
            raise TypeError(type(o))

    def dumps(self, o):
        self.out = bytearray(b"\x80\x02")
        self.emit(o)
        self.out += b"."
        return bytes(self.out)


def pickle2(o):
    return PickleEmitter().dumps(o)


def storage_pid(storage_cls, key, location, numel):
    return PID(("storage", G("torch", storage_cls), key, location, numel))


def rebuild_v2(pid, offset, size, stride, requires_grad=False, extra=None):
    args = [pid, offset, tuple(size), tuple(stride), requires_grad, ODict()]
    if extra is not None:
        args.append(extra)
    return R(G("torch._utils", "_rebuild_tensor_v2"), args)


def write_torch_zip(path, records):
    """records: list of (name, bytes) written in order with torch's own miniz writer
    (64-byte FB alignment, data descriptors, ZIP64 EOCD). The writer appends 'version'."""
    w = torch._C.PyTorchFileWriter(str(path))
    for name, data in records:
        w.write_record(name, data, len(data))
    w.write_end_of_file()
    del w


# --------------------------------------------------------------------------------------------
# Independent reference loader for .pt zip files (python zipfile + restricted Unpickler),
# used to verify both real and synthetic fixtures without torch.load.

_STORAGE_NP = {
    "DoubleStorage": "<f8", "FloatStorage": "<f4", "HalfStorage": "<f2", "BFloat16Storage": "<u2",
    "LongStorage": "<i8", "IntStorage": "<i4", "ShortStorage": "<i2", "CharStorage": "i1",
    "ByteStorage": "u1", "BoolStorage": "?", "ComplexFloatStorage": "<c8", "ComplexDoubleStorage": "<c16",
}
_DTYPE_NP = {"uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float8_e4m3fn": "u1", "bfloat16": "<u2",
             "float32": "<f4", "float16": "<f2", "int64": "<i8", "int32": "<i4"}


class RefTensor:
    def __init__(self, arr, dtype, requires_grad=False, is_parameter=False, location=None, meta=None):
        self.arr, self.dtype, self.requires_grad = arr, dtype, requires_grad
        self.is_parameter, self.location, self.meta = is_parameter, location, meta or {}


def ref_load_pt(path):
    import zipfile

    z = zipfile.ZipFile(path)
    names = z.namelist()
    root = names[0].split("/")[0]
    assert all(n.startswith(root + "/") for n in names)
    big = False
    if f"{root}/byteorder" in names:
        big = z.read(f"{root}/byteorder") == b"big"
    cache = {}

    class Storage:
        def __init__(self, cls, key, location, numel):
            self.cls, self.key, self.location, self.numel = cls, key, location, numel

    def get_bytes(key):
        if key not in cache:
            cache[key] = z.read(f"{root}/data/{key}")
        return cache[key]

    def materialize(st, offset, size, stride, npdt, dtype_name):
        raw = get_bytes(st.key)
        dt = np.dtype(npdt)
        if big:
            dt = dt.newbyteorder(">")
        if st.cls == "UntypedStorage":
            assert len(raw) == st.numel, "storage size mismatch"
        else:
            assert len(raw) == st.numel * dt.itemsize, "storage size mismatch"
        buf = np.frombuffer(raw, dtype=dt)
        numel = int(np.prod(size)) if size else 1
        if numel:
            last = offset + sum((s - 1) * d for s, d in zip(size, stride))
            assert last < len(buf), "view out of bounds"
            a = np.lib.stride_tricks.as_strided(buf[offset:], shape=size,
                                                strides=[s * dt.itemsize for s in stride])
        else:
            a = np.zeros(size, dtype=dt)
        a = np.array(a, order="C", copy=True).astype(dt.newbyteorder("<"))
        return a

    def rebuild_v2(st, offset, size, stride, rg, hooks, *meta):
        npdt = _STORAGE_NP[st.cls]
        name = {"BFloat16Storage": "bfloat16"}.get(st.cls)
        a = materialize(st, offset, tuple(size), tuple(stride), npdt, name)
        dname = name or canon_np(a.dtype)
        return RefTensor(a, dname, rg, location=st.location,
                         meta={"storage_key": st.key, "storage_offset": offset, "stride": list(stride)})

    def rebuild_v3(st, offset, size, stride, rg, hooks, dtype, *meta):
        a = materialize(st, offset, tuple(size), tuple(stride), _DTYPE_NP[dtype], dtype)
        return RefTensor(a, dtype, rg, location=st.location,
                         meta={"storage_key": st.key, "storage_offset": offset, "stride": list(stride)})

    def rebuild_npu(st, offset, size, stride, rg, hooks, info):
        t = rebuild_v2(st, offset, size, stride, rg, hooks)
        t.meta["npu_storage_info"] = info
        return t

    def rebuild_parameter(t, rg, hooks, *state):
        t.requires_grad = rg
        t.is_parameter = True
        return t

    def rebuild_from_type_v2(func, new_type, args, state):
        assert new_type == "torch.Tensor", "tensor subclass"
        return func(*args)

    class TorchDtype(str):
        pass

    class U(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("collections", "OrderedDict"):
                return OrderedDict
            if module == "torch._utils" and name == "_rebuild_tensor_v2":
                return rebuild_v2
            if module == "torch._utils" and name == "_rebuild_tensor_v3":
                return rebuild_v3
            if module == "torch._utils" and name == "_rebuild_parameter":
                return rebuild_parameter
            if module == "torch._tensor" and name == "_rebuild_from_type_v2":
                return rebuild_from_type_v2
            if module == "torch_npu.utils.storage" and name == "_rebuild_npu_tensor":
                return rebuild_npu
            if module == "torch" and (name.endswith("Storage")):
                return name
            if module == "torch" and name == "Tensor":
                return "torch.Tensor"
            if module == "torch" and name in _DTYPE_NP:
                return TorchDtype(name)
            raise pickle.UnpicklingError(f"forbidden global {module}.{name}")

        def persistent_load(self, pid):
            assert pid[0] == "storage"
            return Storage(pid[1], pid[2], pid[3], pid[4])

    import io

    return U(io.BytesIO(z.read(f"{root}/data.pkl"))).load()


def ref_entry(path, rt):
    """Sidecar-style entry computed from a RefTensor (reference loader)."""
    a = rt.arr
    if rt.dtype == "bfloat16":
        vals = (a.astype(np.uint32) << 16).view(np.float32)
        return stats_entry(path, vals, "bfloat16", a.astype("<u2").tobytes())
    if rt.dtype in ("uint16", "float8_e4m3fn"):
        return stats_entry(path, a, rt.dtype, le_bytes_np(a))
    return stats_entry(path, a, canon_np(a.dtype), le_bytes_np(a))


STAT_KEYS = ("dtype", "shape", "numel", "sum", "sum_real", "sum_imag", "min", "max", "l2", "md5", "crc32", "values")


def same_stats(a, b):
    """Compare the stat keys of two entries; returns list of mismatching keys."""
    bad = []
    for k in STAT_KEYS:
        if a.get(k) != b.get(k):
            bad.append(k)
    return bad
