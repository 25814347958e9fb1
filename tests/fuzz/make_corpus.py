#!/usr/bin/env python3
"""Regenerates the small committed seed corpus of tests/fuzz/corpus/.

Run from the repository root with numpy installed (Debian python3-numpy).
The fuzz runner (run.sh) adds the golden files of tests/data as more seeds.
"""
import io
import json
import shutil
import struct
import zipfile

import numpy as np

C = "tests/fuzz/corpus/"
D = "tests/data/"

for f in ["float32_2x3x4", "int16_fortran_2x3x4", "float32_v2", "float32_v3_utf8", "float32_scalar",
          "bfloat16_mldtypes_style_V2", "float32_reordered_keys", "int64_python2_L", "complex64_be",
          "float32_empty_0", "uint8_cnpy_style"]:
    shutil.copy(f"{D}npy/{f}.npy", f"{C}npy_header/{f}.npy")
b = io.BytesIO()
np.save(b, np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3)))
open(C + "npy_header/be_fortran.npy", "wb").write(b.getvalue())

for f in ["npz/named_stored.npz", "npz/named_deflate.npz", "pt/float32_3x4.pt"]:
    shutil.copy(D + f, C + "zip/" + f.split("/")[1])
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.comment = b"comment PK\x05\x06 inside"
    with z.open("a.npy", "w", force_zip64=True) as m:
        np.save(m, np.arange(3, dtype="<f4"))
open(C + "zip/comment_zip64.zip", "wb").write(b.getvalue())


def safetensors(header, data):
    h = json.dumps(header).encode()
    h += b" " * ((8 - (len(h) + 8) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


open(C + "safetensors/two.safetensors", "wb").write(safetensors(
    {"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
     "b": {"dtype": "BF16", "shape": [2], "data_offsets": [16, 20]},
     "__metadata__": {"format": "pt"}},
    np.arange(4, dtype="<f4").tobytes() + b"\x80\x3f\x20\xc0"))
open(C + "safetensors/scalar.safetensors", "wb").write(safetensors(
    {"s": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}}, struct.pack("<q", -7)))
