#!/usr/bin/env python3
"""Hostile and odd inputs for the tensordiff CLI (issue #14), written at test time.

    python3 tests/data/generate_hostile.py OUT_DIR

writes the corpus into OUT_DIR plus OUT_DIR/cases.json, which
tests/cli/run_hostile.py runs through the CLI (timeout and memory limit per
case). FIFOs, devices and symlinks cannot live in git, and the bombs are
large once inflated, so the files are generated rather than committed. Each
case names the command, the exit code and the message (regexes) it must give;
numpy writes what it can, raw bytes the rest (pickles by hand: torch is
not needed).

Exit codes: 0 ran clean, 1 something failed (an unreadable data file makes a
dump comparison fail), 2 input error (one line on stderr naming the file).
"""
import hashlib
import io
import json
import os
import shutil
import struct
import sys
import zipfile
import zlib

import numpy as np

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "hostile_corpus")
CASES = []


def case(name, argv, exit_code, stderr=(), stdout=(), not_stderr=(), mem_mb=1024, timeout=20):
    CASES.append(dict(name=name, argv=argv, exit=exit_code, stderr=list(stderr), stdout=list(stdout),
                      not_stderr=list(not_stderr), mem_mb=mem_mb, timeout=timeout))


def path(*parts):
    return os.path.join(OUT, *parts)


def write(rel, data):
    p = path(rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data)
    return p


def npy_bytes(arr):
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def npy_raw(descr, shape, payload):
    """An npy v1 image with a hand-written header."""
    shape_txt = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_txt)
    d += " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode("latin1") + payload


# ---------------------------------------------------------------- dumps
X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def dump_json(name_in, name_out):
    def leaf(a, data_name):
        return {"type": "torch.Tensor", "dtype": "torch.float32", "shape": list(a.shape), "Max": float(a.max()),
                "Min": float(a.min()), "Mean": float(a.mean()), "Norm": float(np.linalg.norm(a)),
                "requires_grad": False, "data_name": data_name}
    return {"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": "/nowhere",
            "data": {"Functional.relu.0.forward": {"input_args": [leaf(X, name_in)], "input_kwargs": {},
                                                   "output": [leaf(X, name_out)]}}}


def make_dump(rel):
    """A valid one-API tensor-mode dump at OUT/rel with data files in0.npy and out0.npy."""
    d = path(rel)
    os.makedirs(os.path.join(d, "dump_tensor_data"), exist_ok=True)
    with open(os.path.join(d, "dump.json"), "w") as f:
        json.dump(dump_json("in0.npy", "out0.npy"), f)
    for n in ("in0.npy", "out0.npy"):
        with open(os.path.join(d, "dump_tensor_data", n), "wb") as f:
            f.write(npy_bytes(X))
    return d


def data_file(rel):
    return os.path.join(path(rel), "dump_tensor_data", "out0.npy")


def compare(npu, bench, extra=()):
    return ["compare", npu, bench, "-o", "{tmp}", "-q"] + list(extra)


def zip_bytes(members, compress=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", compress) as z:
        for n, data in members:
            z.writestr(n, data)
    return bytearray(b.getvalue())


def dumps():
    bench = make_dump("dump_ok")
    case("dump_valid_passes", compare(make_dump("dump_ok_npu"), bench), 0, stdout=[r"pass 2"])

    d = make_dump("dump_missing")
    os.remove(data_file("dump_missing"))
    case("dump_missing_data_file", compare(d, bench), 1,
         stderr=[r"could not be read; first: .*out0\.npy: cannot open: No such file"])
    d = make_dump("dump_missing_msprobe")
    os.remove(data_file("dump_missing_msprobe"))
    case("dump_missing_data_file_msprobe_compat", compare(d, bench, ["--compat", "msprobe"]), 1,
         stderr=[r"1 data file\(s\) could not be read"])

    d = make_dump("dump_corrupt")
    write(os.path.relpath(data_file("dump_corrupt"), OUT), b"\x93NUMPY\x01\x00\xff\xff{'descr'")
    case("dump_corrupt_data_file", compare(d, bench), 1, stderr=[r"out0\.npy: HEADER_LEN at byte 8"])

    d = make_dump("dump_hostile_pickle")
    os.remove(data_file("dump_hostile_pickle"))
    pkl = b"\x80\x02cos\nsystem\nq\x00X\x05\x00\x00\x00touchq\x01\x85q\x02Rq\x03."
    write(os.path.relpath(data_file("dump_hostile_pickle"), OUT), bytes(zip_bytes([("archive/data.pkl", pkl)])))
    case("dump_hostile_pickle", compare(d, bench), 1, stderr=[r"forbidden global 'os\.system'"])

    d = make_dump("dump_dir_as_data")
    os.remove(data_file("dump_dir_as_data"))
    os.mkdir(data_file("dump_dir_as_data"))
    case("dump_directory_as_data_file", compare(d, bench), 1, stderr=[r"out0\.npy: is a directory"])

    d = make_dump("dump_fifo_data")
    os.remove(data_file("dump_fifo_data"))
    os.mkfifo(data_file("dump_fifo_data"))
    case("dump_fifo_as_data_file", compare(d, bench), 1, stderr=[r"out0\.npy: is a FIFO"], timeout=10)

    d = make_dump("dump_devzero")
    os.remove(data_file("dump_devzero"))
    os.symlink("/dev/zero", data_file("dump_devzero"))
    case("dump_devzero_as_data_file", compare(d, bench, ["--follow-symlinks"]), 1, stderr=[r"out0\.npy: is a device"],
         timeout=10)

    # A symlink out of the dump: refused by default (its value never printed), read with --follow-symlinks.
    outside = write("outside/secret.npy", npy_bytes(X))
    d = make_dump("dump_symlink_escape")
    os.remove(data_file("dump_symlink_escape"))
    os.symlink(outside, data_file("dump_symlink_escape"))
    case("dump_symlink_escape_refused", compare(d, bench), 1, stderr=[r"outside the dump folder.*--follow-symlinks"])
    case("dump_symlink_escape_followed", compare(d, bench, ["--follow-symlinks"]), 0, stdout=[r"pass 2"])
    d = make_dump("dump_symlink_inside")
    os.remove(data_file("dump_symlink_inside"))
    os.symlink("in0.npy", data_file("dump_symlink_inside"))
    case("dump_symlink_inside_is_fine", compare(d, bench), 0, stdout=[r"pass 2"])

    d = make_dump("dump_stack_fifo")
    os.mkfifo(os.path.join(d, "stack.json"))
    case("stack_json_fifo", compare(d, bench), 2, stderr=[r"stack\.json: is a FIFO"], timeout=10)
    d = make_dump("dump_stack_devzero")
    os.symlink("/dev/zero", os.path.join(d, "stack.json"))
    case("stack_json_dev_zero", compare(d, bench), 2, stderr=[r"stack\.json: is a device"], timeout=10)

    # One 4 MB stack line shared by 400 names (new format): 1.6 GB once expanded per name.
    d = make_dump("dump_stack_shared")
    with open(os.path.join(d, "stack.json"), "w") as f:
        json.dump({"0": [["n%d" % i for i in range(400)], ["File x" * 700000]]}, f)
    case("stack_json_shared_line_stored_once", compare(d, bench), 0, stdout=[r"pass 2"], mem_mb=512)

    # 300k-deep value: recursion in the JSON parser / value printer must not be reached.
    d = make_dump("dump_deep")
    j = json.dumps(dump_json("in0.npy", "out0.npy"))
    deep = "[" * 300000 + "]" * 300000
    j = j.replace('"input_kwargs": {}', '"input_kwargs": {"x": {"type": "list", "value": %s}}' % deep)
    with open(os.path.join(d, "dump.json"), "w") as f:
        f.write(j)
    case("dump_json_deep_nesting_compare", compare(d, bench), 2, stderr=[r"dump\.json: at byte \d+: JSON nested deeper than 1000 levels"])
    case("dump_json_deep_nesting_overflow", ["overflow", d], 2, stderr=[r"JSON nested deeper than 1000 levels"])

    # construct.json: a 50,000-node parent cycle.
    d = make_dump("dump_construct_cycle")
    n = 50000
    with open(os.path.join(d, "construct.json"), "w") as f:
        json.dump({"Module.m%d" % i: "Module.m%d" % ((i + 1) % n) for i in range(n)}, f)
    case("construct_json_cycle", compare(d, bench), 2, stderr=[r"construct\.json: /Module\.m0: parent cycle"], timeout=5)

    # A dump.json shape of 2^63: an overflow, not a "negative dimension".
    d = make_dump("dump_shape_2p63")
    j = dump_json("in0.npy", "out0.npy")
    j["data"]["Functional.relu.0.forward"]["output"][0]["shape"] = [2 ** 63, 1]
    with open(os.path.join(d, "dump.json"), "w") as f:
        json.dump(j, f)
    case("dump_json_shape_2p63", compare(d, bench), 2, stderr=[r"/shape/0: dimension 9223372036854775808 does not fit"])

    # YAML mapping that is a directory: named, with no C++ library text.
    os.makedirs(path("yaml_dir"), exist_ok=True)
    case("yaml_mapping_is_directory", compare(bench, bench, ["--data-map", path("yaml_dir")]), 2,
         stderr=[r"yaml_dir: is a directory"], not_stderr=[r"basic_filebuf", r"bad file"])

    # YAML alias bombs: 1 MB of layer map naming one 10,000-entry mapping 100,000 times
    # (10^9 pairs), and a data map naming one 64 KiB string 100,000 times (6.5 GB).
    base = "".join("  c%d: x\n" % i for i in range(10000))
    write("yaml_bomb/layer.yaml", ("base: &b\n" + base + "".join("L%d: *b\n" % i for i in range(100000))).encode())
    case("yaml_alias_bomb_layer_map", compare(bench, bench, ["--layer-map", path("yaml_bomb/layer.yaml")]), 2,
         stderr=[r"layer\.yaml: /L\d+.*alias bomb"], timeout=10)
    write("yaml_bomb/data.yaml", ("a: &s " + "y" * 65536 + "\n" + "".join("k%d: *s\n" % i for i in range(100000))).encode())
    case("yaml_alias_bomb_data_map", compare(bench, bench, ["--data-map", path("yaml_bomb/data.yaml")]), 2,
         stderr=[r"data\.yaml: /k\d+.*alias bomb"], timeout=10)


# ---------------------------------------------------------------- tensor files
def tensors():
    # npz with a wrong CRC-32 (numpy refuses it): refused unless --no-crc-check.
    z = zip_bytes([("a.npy", npy_bytes(X))])
    k = z.rfind(b"PK\x01\x02")
    z[k + 16:k + 20] = struct.pack("<I", (struct.unpack("<I", z[k + 16:k + 20])[0] ^ 1))
    f = write("bad_crc.npz", bytes(z))
    case("npz_crc_mismatch", ["stat", f], 2, stderr=[r"bad_crc\.npz: member 'a\.npy' at byte \d+: CRC-32 mismatch"])
    case("npz_crc_mismatch_skipped", ["stat", f, "--no-crc-check"], 0, stdout=[r"^a  float32 \[3,4\]"])

    # Bool bytes other than 0/1 are True: same hashes as the 0/1 tensor.
    ones = write("bool_01.npy", npy_raw("|b1", (4,), b"\x00\x01\x01\x00"))
    twos = write("bool_02.npy", npy_raw("|b1", (4,), b"\x00\x02\xff\x00"))
    case("bool_bytes_normalised_diff", ["diff", ones, twos, "--standard", "bitwise"], 0, stdout=[r"verdict: pass"])
    md5 = hashlib.md5(b"\x00\x01\x01\x00").hexdigest()  # numpy's bytes of [False, True, True, False]
    case("bool_bytes_normalised_md5", ["stat", twos], 0, stdout=[r"md5\s+" + md5])
    case("bool_bytes_md5_reference", ["stat", ones], 0, stdout=[r"md5\s+" + md5])

    # bf16 saved as a 2-byte void (ml_dtypes / JAX): refused, then read exactly with --as bfloat16.
    bits = np.array([0x3F80, 0xC020, 0x4049], dtype="<u2").tobytes()  # 1, -2.5, 3.140625
    f = write("bf16_void.npy", npy_raw("<V2", (3,), bits))
    case("npy_void2_refused", ["stat", f], 2, stderr=[r"bf16_void\.npy: descr at byte \d+: unsupported npy dtype '<V2'.*--as bfloat16"])
    case("npy_void2_as_bfloat16", ["stat", f, "--as", "bfloat16"], 0, stdout=[r"bfloat16 \[3\]", r"min\s+-2\.5", r"max\s+3\.140625"])
    # float8 saved by ml_dtypes as a 1-byte void: refused naming the option, then read with --as float8_*.
    f = write("f8_void.npy", npy_raw("|V1", (4,), b"\x38\x40\x44\xc8"))  # e4m3fn 1, 2, 3, -4; e5m2 0.5, 2, 4, -8
    case("npy_void1_refused", ["stat", f], 2, stderr=[r"f8_void\.npy: descr at byte \d+: unsupported npy dtype '\|V1'.*--as float8_e4m3fn"])
    case("npy_void1_as_float8_e4m3fn", ["stat", f, "--as", "float8_e4m3fn"], 0,
         stdout=[r"float8_e4m3fn \[4\]", r"min\s+-4\b", r"max\s+3\b"])
    case("npy_void1_as_float8_e5m2", ["stat", f, "--as", "float8_e5m2"], 0,
         stdout=[r"float8_e5m2 \[4\]", r"min\s+-8\b", r"max\s+4\b"])
    f = write("subarray.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) +
              b"{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': (3,), }".ljust(117) + b"\n" + b"\0" * 24)
    case("npy_subarray_refused", ["stat", f], 2, stderr=[r"subarray dtype"])
    f = write("object.npy", npy_raw("|O", (1,), b"\x80\x02N."))
    case("npy_object_refused", ["stat", f], 2, stderr=[r"object arrays"])

    # Control characters in a file name and a 60k-character descr: escaped, truncated, one line.
    f = write("\x1b[2J\x1b[H evil\nname.npy", b"\x93NUMPY\x09\x00\x00\x00")
    case("control_chars_escaped", ["stat", f], 2, stderr=[r"\\x1b\[2J\\x1b\[H evil\\nname\.npy: version"], not_stderr=["\x1b"])
    f = write("long_descr.npy", npy_raw("<" + "x" * 60000, (1,), b"\0"))
    case("long_message_truncated", ["stat", f], 2, stderr=[r"\.\.\. \(\d+ more bytes\)"], not_stderr=[r"x{5000}"])

    # A 2^64 dimension in an npy header: an overflow, said so.
    f = write("shape_2p64.npy", npy_raw("<f4", (2 ** 64,), b""))
    case("npy_shape_2p64", ["stat", f], 2, stderr=[r"does not fit in 64 bits"])

    # FIFO given as a tensor file with no writer: no hang.
    os.mkfifo(path("tensor_fifo.npy"))
    case("npy_fifo_no_writer", ["stat", path("tensor_fifo.npy")], 2, stderr=[r"tensor_fifo\.npy"], timeout=10)
    case("npy_dev_zero", ["stat", "/dev/zero", "--no-crc-check"], 2, stderr=[r"/dev/zero: is a device"], timeout=10)
    case("npy_directory", ["stat", OUT], 2, stderr=[r"is a directory"])


def safetensors():
    def st(header, buf):
        h = json.dumps(header).encode()
        return struct.pack("<Q", len(h)) + h + buf
    buf = np.arange(4, dtype="<f4").tobytes()
    f = write("ok.safetensors", st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                    "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}, buf))
    case("safetensors_stat_works", ["stat", f], 0, stdout=[r"^a  float32 \[2\]", r"^b  float32 \[2\]"])
    f = write("overlap.safetensors", st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, buf[:12]))
    case("safetensors_overlap", ["stat", f], 2, stderr=[r"tensor 'b' at byte \d+: data_offsets overlap"])
    f = write("gap.safetensors", st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}, buf))
    case("safetensors_gap", ["stat", f], 2, stderr=[r"gap in the data buffer: bytes \[4, 8\)"])
    h = b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'
    f = write("dup.safetensors", struct.pack("<Q", len(h)) + h + buf)
    case("safetensors_duplicate_name", ["stat", f], 2, stderr=[r"tensor 'a' at byte 8: duplicate tensor name"])
    f = write("e8m0.safetensors", st({"a": {"dtype": "F8_E8M0", "shape": [4], "data_offsets": [0, 4]}}, b"\0\1\2\3"))
    case("safetensors_unknown_dtype", ["stat", f], 2, stderr=[r"unsupported safetensors dtype 'F8_E8M0'"])
    # F8_E4M3 / F8_E5M2 are float8: bytes 0, 1, 2, 0x83 are 0, 2^-9, 2^-8, -3*2^-9 (e4m3fn), 0, 2^-16, 2^-15, -3*2^-16 (e5m2)
    f = write("f8.safetensors", st({"a": {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]}}, b"\0\1\2\x83"))
    case("safetensors_f8_e4m3_read", ["stat", f], 0,
         stdout=[r"a  float8_e4m3fn \[4\]", r"min\s+-0\.005859375\b", r"max\s+0\.00390625\b"])
    f = write("f8_e5m2.safetensors", st({"a": {"dtype": "F8_E5M2", "shape": [4], "data_offsets": [0, 4]}}, b"\0\1\2\x83"))
    case("safetensors_f8_e5m2_read", ["stat", f], 0, stdout=[r"a  float8_e5m2 \[4\]", r"min\s+-4\.57763672e-05\b", r"max\s+3\.05175781e-05\b"])


# ---------------------------------------------------------------- archives and pickles
def bombs():
    # np.savez_compressed of 1 GiB of zeros: ~1 MB on disk. Refused before inflating.
    n = 1 << 30
    hdr = npy_raw("<f4", (n // 4,), b"")
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunks = [comp.compress(hdr)]
    zero = bytes(1 << 24)
    for _ in range(n // len(zero)):
        chunks.append(comp.compress(zero))
    chunks.append(comp.flush())
    data = b"".join(chunks)
    crc = zlib.crc32(zero * 0)  # placeholder: the budget refuses before the CRC matters
    name = b"a.npy"
    size = len(hdr) + n
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), size, len(name),
                          0, 0, 0, 0, 0, 0) + name
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    f = write("bomb.npz", local + data + central + eocd)
    case("npz_deflate_bomb", ["stat", f], 2, stderr=[r"bomb\.npz: member 'a\.npy' at byte \d+: (decompression bomb|declared size \d+ is impossible)"], mem_mb=768)

    # Overlapping members: b's local header lies inside a's data.
    inner_name, outer_name = b"b.npy", b"a.npy"
    payload = npy_bytes(X)
    crc_b = zlib.crc32(payload)
    local_b = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc_b, len(payload), len(payload), 5, 0) + inner_name
    a_data = local_b + payload
    local_a = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, zlib.crc32(a_data), len(a_data), len(a_data), 5, 0) + outer_name
    cd = b""
    for nm, off, dat, c in ((outer_name, 0, a_data, zlib.crc32(a_data)), (inner_name, len(local_a), payload, crc_b)):
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, c, len(dat), len(dat), 5, 0, 0, 0, 0, 0, off) + nm
    body = local_a + a_data
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 2, 2, len(cd), len(body), 0)
    f = write("overlap.npz", body + cd + eocd)
    case("zip_overlapping_members", ["stat", f], 2, stderr=[r"member 'b\.npy' at byte \d+: overlaps member 'a\.npy'"])

    # A ~700-byte pickle whose shared references expand to 2^22 tensors.
    def pt_zip(pkl, storages):
        return bytes(zip_bytes([("archive/data.pkl", pkl)] + [("archive/data/%s" % k, v) for k, v in storages]))

    def rebuild_one():
        return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
                b"ctorch\nFloatStorage\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K\x01tq\x05Q"
                b"K\x00K\x01\x85K\x01\x85\x89ccollections\nOrderedDict\nq\x06)Rq\x07tq\x08Rq\x09")  # the tensor, memo 9
    # Built inside out with MARKs (the allow-listed opcodes have no POP):
    # level k = [level k-1, level k-1] through one memo entry.
    pkl = b"\x80\x02" + b"](" * 22 + rebuild_one()[2:]
    for i in range(22):
        m = 10 + i if i else 9
        pkl += (b"q%ch%ce" % (m, m)) if i else b"h\x09e"
    pkl += b"."
    f = write("shared_refs.pt", pt_zip(pkl, [("0", b"\0\0\x80?")]))
    case("pickle_shared_reference_expansion", ["stat", f], 2, stderr=[r"shared_refs\.pt: data\.pkl: the object expands to more than 262144 tensors"],
         mem_mb=256)

    # One 60 kB key in 12 nested dicts of two entries each over 16 shared tensors:
    # 65536 paths of up to 720 kB (tens of GB of path text).
    key = b"k" * 60000
    body = b"](" + rebuild_one()[2:] + b"h\x09" * 15 + b"e"
    for level in range(12):
        m = 11 + level
        body = b"}(" + (b"X" + struct.pack("<I", len(key)) + key + b"q\x0a" if level == 11 else b"h\x0a") + body + \
            b"q%cX\x01\x00\x00\x00bh%cu" % (m, m)
    pkl = b"\x80\x02" + body + b"."
    f = write("long_keys.pt", pt_zip(pkl, [("0", b"\0\0\x80?")]))
    case("pickle_long_key_paths", ["stat", f], 2, stderr=[r"long_keys\.pt: data\.pkl: tensor paths add up to more than"], mem_mb=1024)

    # float8 storage of torch >= 2.1, by hand: read as float8 (1, 2, 3, 4), never shown as uint8;
    # the fnuz variants tensordiff does not hold are refused by name.
    def float8_pt(storage):
        return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
                b"ctorch\n" + storage + b"\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K\x04tq\x05Q"
                b"K\x00K\x04\x85K\x01\x85\x89ccollections\nOrderedDict\nq\x06)Rq\x07tq\x08Rq\x09.")
    f = write("float8.pt", pt_zip(float8_pt(b"Float8_e4m3fnStorage"), [("0", b"\x38\x40\x44\x48")]))
    case("pt_float8_storage_read", ["stat", f], 0, stdout=[r"float8_e4m3fn \[4\]", r"min\s+1\b", r"max\s+4\b"])
    f = write("float8_fnuz.pt", pt_zip(float8_pt(b"Float8_e4m3fnuzStorage"), [("0", b"\x38\x40\x44\x48")]))
    case("pt_float8_fnuz_storage_refused", ["stat", f], 2,
         stderr=[r"float8_fnuz\.pt: .*storage 'torch\.Float8_e4m3fnuzStorage' holds torch\.float8_e4m3fnuz, which tensordiff does not support"])

    # torch.zeros(1).expand(2**20, 2**20) as torch.save writes it: one float, strides (0, 0).
    mb = b"J" + struct.pack("<i", 1 << 20)
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
           b"ctorch\nFloatStorage\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K\x01tq\x05Q"
           b"K\x00" + mb + mb + b"\x86K\x00K\x00\x86\x89ccollections\nOrderedDict\nq\x06)Rq\x07tq\x08Rq\x09.")
    f = write("stride0.pt", pt_zip(pkl, [("0", b"\0\0\x80?")]))
    case("pt_stride0_view_cap", ["stat", f], 2, stderr=[r"stride0\.pt: tensor '' at byte \d+: view of shape \[1048576, 1048576\] strides \[0, 0\]"],
         timeout=10)
    other = write("stride0_b.npy", npy_bytes(np.zeros((4, 4), np.float32)))
    case("pt_stride0_diff_before_work", ["diff", f, other], 2, stderr=[r"max_view_expansion"], timeout=10)


def golden_float8():
    # torch >= 2.1 layout (UntypedStorage + _rebuild_tensor_v3 with a dtype), from the committed goldens:
    # the float8 tensor is read as float8_e4m3fn (1, -1, 448, 0, 2^-9, 2), never shown as uint8.
    f = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pt", "rebuild_v3_uint16_float8.pt")
    case("pt_float8_v3_read", ["stat", f], 0, stdout=[r"float8_e4m3fn \[6\]", r"max\s+448\b"])
    case("pt_float8_v3_allow_opaque", ["ls", f, "--allow-opaque"], 0, stdout=[r"float8_e4m3fn"])


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    dumps()
    tensors()
    safetensors()
    bombs()
    golden_float8()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1)
    print("%d cases in %s" % (len(CASES), OUT))


if __name__ == "__main__":
    main()
