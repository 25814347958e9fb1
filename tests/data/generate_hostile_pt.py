#!/usr/bin/python3
"""Hostile .pt files for the allow-list pickle reader (tests/unit/io_pt_test.cpp).

Run with Debian's interpreter: /usr/bin/python3 tests/data/generate_hostile_pt.py
Writes tests/data/pt_hostile/<name>.pt and <name>.json. Every pickle is assembled
by hand (nothing here is ever unpickled). The zip container is torch's own writer
(torch._C.PyTorchFileWriter: 64-byte alignment, data descriptors, ZIP64 end record).

Sidecar: {"file", "expect_error", "category" (tensordiff's to_string of the
ErrorCategory: "refused", "format error", "unsupported"), "message" (a substring
of the error), "offset" (byte offset in the file, where it is known here),
"tensors" (for files that load)}.
"""
import io
import json
import struct
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tdgold as T  # noqa: E402
import torch  # noqa: E402

OUT = HERE / "pt_hostile"


def pkl_offset(path):
    """File offset of the data.pkl bytes (from the local header, as the reader does)."""
    with zipfile.ZipFile(path) as z:
        info = [i for i in z.infolist() if i.filename.endswith("/data.pkl")][0]
    raw = Path(path).read_bytes()
    h = info.header_offset
    name_len, extra_len = struct.unpack("<HH", raw[h + 26:h + 30])
    return h + 30 + name_len + extra_len


def sidecar(name, expect_error, category=None, message=None, offset=None, tensors=None):
    meta = {"file": name, "expect_error": expect_error}
    if expect_error:
        meta["category"] = category
        meta["message"] = message
        if offset is not None:
            meta["offset"] = offset
    else:
        meta["tensors"] = tensors
    (OUT / (Path(name).stem + ".json")).write_text(json.dumps(meta, indent=1) + "\n")


def zip_case(name, pkl, category, message, pickle_pos=None, records=(), expect_error=True, tensors=None):
    """pickle_pos: offset of the failing opcode inside data.pkl (gives the file offset)."""
    path = OUT / name
    T.write_torch_zip(path, [("data.pkl", pkl)] + list(records))
    off = pkl_offset(path) + pickle_pos if pickle_pos is not None else None
    sidecar(name, expect_error, category, message, off, tensors)


def proto2(body):
    return b"\x80\x02" + body + b"."


def binunicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def odict():
    return b"ccollections\nOrderedDict\n)R"


def storage(cls, key, numel, loc="cpu"):
    return b"(" + binunicode("storage") + b"ctorch\n" + cls.encode() + b"\n" + binunicode(key) + binunicode(loc) + \
        b"J" + struct.pack("<i", numel) + b"tQ"


def ints(xs):
    out = b"("
    for x in xs:
        out += b"\x8a\x08" + struct.pack("<q", x)
    return out + b"t"


def v2(cls, key, numel, off, size, stride):
    return b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage(cls, key, numel) + b"\x8a\x08" + struct.pack("<q", off) + \
        ints(size) + ints(stride) + b"\x89" + odict() + b"tR"


def v3(cls, key, numel, dtype, size, stride):
    return b"ctorch._utils\n_rebuild_tensor_v3\n(" + storage(cls, key, numel) + b"K\x00" + ints(size) + ints(stride) + \
        b"\x89" + odict() + b"ctorch\n" + dtype.encode() + b"\ntR"


F4 = struct.pack("<4f", 1, 2, 3, 4)


def gen_zip_cases():
    # forbidden globals, in both spellings
    body = b"\x8c\x08builtins\x94\x8c\x04eval\x94\x93"
    zip_case("stack_global_eval.pt", b"\x80\x04" + body + b"\x8c\x011\x85R.", "refused", "forbidden global 'builtins.eval'",
             pickle_pos=2 + len(body) - 1)
    zip_case("global_os_system.pt", proto2(b"cos\nsystem\n" + binunicode("true") + b"\x85R"), "refused",
             "forbidden global 'os.system'", pickle_pos=2)
    zip_case("global_torch_load.pt", proto2(b"ctorch\nload\n"), "refused", "forbidden global 'torch.load'", pickle_pos=2)
    zip_case("reduce_storage_class.pt", proto2(b"ctorch\nFloatStorage\n)R"), "refused",
             "REDUCE on 'torch.FloatStorage'", pickle_pos=2 + len(b"ctorch\nFloatStorage\n)"))
    zip_case("build_on_list.pt", proto2(b"]}b"), "refused", "BUILD on a list", pickle_pos=4)
    # malformed pickles
    good = proto2(v2("FloatStorage", "0", 4, 0, [4], [1]))
    zip_case("truncated_pickle.pt", good[: len(good) // 2], "format error", "truncated", records=[("data/0", F4)])
    zip_case("unknown_opcode.pt", proto2(b"N\xff"), "unsupported", "unsupported pickle opcode 0xff", pickle_pos=3)
    zip_case("memo_out_of_range.pt", proto2(b"h\x05"), "format error", "memo index 5", pickle_pos=2)
    zip_case("huge_long4.pt", proto2(b"\x8b\x00\x00\x00\x80" + b"\x01" * 16), "unsupported", "exceeds 64 bits", pickle_pos=2)
    zip_case("huge_binunicode8.pt", proto2(b"\x8d" + struct.pack("<Q", 2 ** 63) + b"abc"), "format error", "truncated",
             pickle_pos=2)
    zip_case("deep_list_nesting.pt", proto2(b"]" * 1500 + b"a" * 1499), "refused", "nested deeper")
    zip_case("self_cycle.pt", proto2(b"]q\x00h\x00a"), "format error", "cannot contain itself", pickle_pos=7)
    zip_case("setitems_odd.pt", proto2(b"}(" + binunicode("a") + b"u"), "format error", "odd number")
    zip_case("stop_with_leftovers.pt", proto2(b"NN"), "format error", "STOP leaves 1 more values", pickle_pos=4)
    zip_case("dict_key_tuple.pt", proto2(b"})NsN"), "format error", "dict key is a tuple")
    # tensor records
    zip_case("dtype_storage_mismatch.pt", proto2(v3("FloatStorage", "0", 4, "int64", [2], [1])), "format error",
             "tensor dtype is int64", records=[("data/0", F4)])
    zip_case("v2_untyped_storage.pt", proto2(v2("UntypedStorage", "0", 16, 0, [4], [1])), "format error",
             "carries no dtype", records=[("data/0", F4)])
    zip_case("size_overflow.pt", proto2(v2("FloatStorage", "0", 4, 0, [2 ** 62, 4], [1, 1])), "format error",
             "overflows 64 bits", records=[("data/0", F4)])
    zip_case("offset_overflow.pt", proto2(v2("FloatStorage", "0", 4, 2 ** 62, [1], [1])), "format error",
             "reaches past", records=[("data/0", F4)])
    zip_case("stride_overflow.pt", proto2(v2("FloatStorage", "0", 4, 0, [2, 2], [2 ** 62, 2 ** 62])), "format error",
             "reaches past", records=[("data/0", F4)])
    zip_case("negative_size.pt", proto2(v2("FloatStorage", "0", 4, 0, [-1], [1])), "format error", "negative",
             records=[("data/0", F4)])
    zip_case("negative_numel.pt", proto2(v2("FloatStorage", "0", -4, 0, [1], [1])), "format error",
             "storage numel is negative", records=[("data/0", F4)])
    zip_case("storage_key_missing.pt", proto2(v2("FloatStorage", "7", 4, 0, [4], [1])), "format error",
             "missing record data/7", records=[("data/0", F4)])
    zip_case("storage_too_small.pt", proto2(v2("FloatStorage", "0", 8, 0, [8], [1])), "format error",
             "storage size mismatch", records=[("data/0", F4)])
    zip_case("subclass_parameter_type.pt",
             proto2(b"ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\n"
                    b"ctorch.nn.parameter\nParameter\n)}tR"), "unsupported", "only torch.Tensor")
    zip_case("bad_byteorder.pt", good, "format error", "byteorder record says 'middle'",
             records=[("byteorder", b"middle"), ("data/0", F4)])
    # a DAG of shared lists: 40 levels of [x, x] expand to 2^40 paths
    dag = v2("FloatStorage", "0", 4, 0, [4], [1]) + b"q\x00"
    for level in range(40):  # top of stack is L_k: push it again, pair them, memoise L_k+1
        dag += b"h" + bytes([level]) + b"\x86" + b"q" + bytes([level + 1])
    zip_case("shared_dag_bomb.pt", proto2(dag), "refused", "expands to more than", records=[("data/0", F4)])
    # loads: two tensors, one storage, memo reuse and a protocol-5 FRAME
    ok = b"\x80\x05\x95" + struct.pack("<Q", 10) + b"(" + v2("FloatStorage", "0", 4, 0, [2], [1]) + b"\x94" + \
        v2("FloatStorage", "0", 4, 2, [2], [1]) + b"h\x00t."
    zip_case("ok_protocol5_frame.pt", ok, None, None, records=[("data/0", F4)], expect_error=False, tensors=3)


def gen_outside_root():
    name = "outside_root.pt"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("a/data.pkl", proto2(b"N"))
        z.writestr("b/version", b"3\n")
    (OUT / name).write_bytes(buf.getvalue())
    sidecar(name, True, "format error", "outside the archive root")
    name = "missing_data_pkl.pt"
    T.write_torch_zip(OUT / name, [("data/0", F4)])
    sidecar(name, True, "format error", "data.pkl")


def gen_legacy():
    t = torch.arange(4, dtype=torch.float32)
    buf = io.BytesIO()
    torch.save(t, buf, _use_new_zipfile_serialization=False)
    real = buf.getvalue()
    # 1: cut inside the raw storage
    (OUT / "legacy_truncated_storage.pt").write_bytes(real[:-3])
    sidecar("legacy_truncated_storage.pt", True, "format error", "truncated")
    # 2: element count header says 5 instead of 4
    cnt = real[: -16 - 8] + struct.pack("<q", 5) + real[-16:]
    (OUT / "legacy_count_mismatch.pt").write_bytes(cnt)
    sidecar("legacy_count_mismatch.pt", True, "format error", "storage size mismatch", offset=len(real) - 24)
    # 3: a forbidden global in the object pickle
    head = bytes([0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19, 0x2E])
    head += proto2(b"M\xe9\x03")  # 1001
    head += proto2(b"}" + binunicode("little_endian") + b"\x88s")
    evil = proto2(b"cposix\nsystem\n" + binunicode("echo") + b"\x85R")
    (OUT / "legacy_forbidden.pt").write_bytes(head + evil + proto2(b"]"))
    sidecar("legacy_forbidden.pt", True, "refused", "forbidden global 'posix.system'", offset=len(head) + 2)
    # 4: the key list names a storage the pickle never used
    obj = proto2(v2("FloatStorage", "1", 4, 0, [4], [1]))
    keys = proto2(b"](" + binunicode("9") + b"e")
    (OUT / "legacy_unknown_key.pt").write_bytes(head + obj + keys + struct.pack("<q", 4) + F4)
    sidecar("legacy_unknown_key.pt", True, "format error", "never used by the pickle")


def main():
    OUT.mkdir(exist_ok=True)
    for f in OUT.iterdir():
        f.unlink()
    gen_zip_cases()
    gen_outside_root()
    gen_legacy()
    print(f"wrote {len(list(OUT.glob('*.pt')))} files to {OUT}")


if __name__ == "__main__":
    main()
