#!/usr/bin/env python3
"""Writes the committed inputs and golden output of the gtest_parity example.

input.npy             float32 [8, 64], fixed seed
layernorm_golden.npy  float64 layer norm of input over the last axis (eps 1e-5),
                      computed by numpy in float64 from the float32 input

Run from this directory: python3 make_golden.py
"""
import numpy as np

rng = np.random.default_rng(20261121)
x = (rng.standard_normal((8, 64)) * 3 + 0.5).astype(np.float32)
xd = x.astype(np.float64)
mean = xd.mean(axis=-1, keepdims=True)
var = ((xd - mean) ** 2).mean(axis=-1, keepdims=True)
golden = (xd - mean) / np.sqrt(var + 1e-5)
np.save("input.npy", x)
np.save("layernorm_golden.npy", golden)
print("input", x.shape, x.dtype, "golden", golden.shape, golden.dtype)
