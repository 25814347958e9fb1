#!/usr/bin/env python3
"""Hand-written float8 tensor files (no installed framework here can write them:
torch 1.13 has no float8 and safetensors is not packaged).

  all_bytes.safetensors  "e4m3fn": F8_E4M3 [16, 16] and "e5m2": F8_E5M2 [16, 16], each
                         holding the bytes 0..255 in order (the safetensors format: u64 LE header
                         length, JSON header, data).
  all_bytes.pt           the same two tensors as torch >= 2.1's torch.save writes them, in a
                         dict: "e4m3fn" through the typed storage class torch.Float8_e4m3fnStorage
                         (_rebuild_tensor_v2), "e5m2" through torch.UntypedStorage plus the dtype
                         torch.float8_e5m2 (_rebuild_tensor_v3); "e5m2_t" a transposed view of the
                         same storage. The pickle is written opcode by opcode below.

Every byte's value is in float8_table.txt (generate_float8_table.py), which tests use as the
reference. Run: python3 tests/data/float8/generate_float8_files.py
"""
import io
import json
import struct
import zipfile
from pathlib import Path

HERE = Path(__file__).parent
DATA = bytes(range(256))


def safetensors():
    header = {"e4m3fn": {"dtype": "F8_E4M3", "shape": [16, 16], "data_offsets": [0, 256]},
              "e5m2": {"dtype": "F8_E5M2", "shape": [16, 16], "data_offsets": [256, 512]}}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # the format pads the header with spaces to 8 bytes
    (HERE / "all_bytes.safetensors").write_bytes(struct.pack("<Q", len(h)) + h + DATA + DATA)


class Pickle:
    """Protocol-2 opcodes, as Python's pickler emits them for torch.save (no memo needed)."""

    def __init__(self):
        self.b = bytearray(b"\x80\x02")  # PROTO 2

    def op(self, code):
        self.b += code
        return self

    def global_(self, module, name):
        return self.op(b"c" + module.encode() + b"\n" + name.encode() + b"\n")

    def str_(self, s):
        e = s.encode()
        return self.op(b"X" + struct.pack("<I", len(e)) + e)  # BINUNICODE

    def int_(self, n):
        return self.op(b"K" + bytes([n]) if 0 <= n < 256 else b"J" + struct.pack("<i", n))

    def ints(self, xs):
        self.op(b"(")
        for x in xs:
            self.int_(x)
        return self.op(b"t")

    def storage(self, cls, key, numel):  # persistent id ('storage', cls, key, 'cpu', numel)
        self.op(b"(").str_("storage").global_("torch", cls).str_(key).str_("cpu").int_(numel)
        return self.op(b"tQ")  # TUPLE, BINPERSID

    def hooks(self):
        return self.global_("collections", "OrderedDict").op(b")R")  # OrderedDict()

    def v2(self, cls, key, numel, shape, stride):
        self.global_("torch._utils", "_rebuild_tensor_v2").op(b"(").storage(cls, key, numel)
        self.int_(0).ints(shape).ints(stride).op(b"\x89").hooks()  # offset, size, stride, False, hooks
        return self.op(b"tR")

    def v3(self, key, nbytes, shape, stride, dtype):
        self.global_("torch._utils", "_rebuild_tensor_v3").op(b"(").storage("UntypedStorage", key, nbytes)
        self.int_(0).ints(shape).ints(stride).op(b"\x89").hooks().global_("torch", dtype)
        return self.op(b"tR")


def pt():
    p = Pickle().op(b"}(")  # EMPTY_DICT, MARK
    p.str_("e4m3fn").v2("Float8_e4m3fnStorage", "0", 256, [16, 16], [16, 1])
    p.str_("e5m2").v3("1", 256, [16, 16], [16, 1], "float8_e5m2")
    p.str_("e5m2_t").v3("1", 256, [16, 16], [1, 16], "float8_e5m2")
    pkl = bytes(p.op(b"u.").b)  # SETITEMS, STOP
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in [("data.pkl", pkl), ("byteorder", b"little"), ("data/0", DATA), ("data/1", DATA),
                           ("version", b"3\n")]:
            z.writestr("all_bytes/" + name, data)
    (HERE / "all_bytes.pt").write_bytes(buf.getvalue())


if __name__ == "__main__":
    safetensors()
    pt()
