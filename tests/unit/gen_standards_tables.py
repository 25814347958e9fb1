#!/usr/bin/env python3
"""Regenerates standards_torch_table.inc and standards_numpy_table.inc: element
pairs just inside / just outside each default tolerance, with the verdict of
torch.testing.assert_close (torch 1.13), numpy.isclose and
numpy.testing.assert_allclose (numpy 1.24). Values are exact hex floats."""
import numpy as np
import torch

here = __file__.rsplit("/", 1)[0]

defaults = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
            torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}
names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}
with open(f"{here}/standards_torch_table.inc", "w") as out:
    for dt, (rt, at) in defaults.items():
        for e in [1.0, -3.5, 1e-3, 0.0, 1000.0, 6.0e-8]:
            et = torch.tensor([e], dtype=dt)
            ev = et.double().item()
            lo = torch.tensor([ev + at + rt * abs(ev)], dtype=torch.float64).to(dt)  # nearest representable
            cands = set()
            if dt in (torch.float16, torch.bfloat16):
                bits = lo.view(torch.int16).item()
                for d in (-1, 0, 1):
                    cands.add(torch.tensor([bits + d], dtype=torch.int16).view(dt).double().item())
            else:
                for c in (lo, torch.nextafter(lo, torch.tensor([-1e30], dtype=dt)),
                          torch.nextafter(lo, torch.tensor([1e30], dtype=dt))):
                    cands.add(c.double().item())
            for a in sorted(cands):
                try:
                    torch.testing.assert_close(torch.tensor([a], dtype=dt), et)
                    ok = True
                except AssertionError:
                    ok = False
                out.write('{"%s", %s, %s, %s},\n' % (names[dt], a.hex(), ev.hex(), "true" if ok else "false"))

with open(f"{here}/standards_numpy_table.inc", "w") as out:
    for e in [1.0, -2.5, 1e-9, 0.0, 123456.0]:
        for name, rt, at in [("isclose", 1e-5, 1e-8), ("numpy", 1e-7, 0.0)]:
            t = e + at + rt * abs(e)
            for a in [np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)]:
                if name == "isclose":
                    ok = bool(np.isclose(a, e))
                else:
                    try:
                        np.testing.assert_allclose(np.array([a]), np.array([e]))
                        ok = True
                    except AssertionError:
                        ok = False
                out.write('{"%s", %s, %s, %s},\n' % (name, float(a).hex(), float(e).hex(), "true" if ok else "false"))
