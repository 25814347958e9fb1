"""Shared helpers of the tensordiff Python tests: the module under test comes
from PYTHONPATH (ctest points it at <build>/python); numpy and torch are the
independent references."""
import os

import numpy as np
import pytest

DATA = os.environ.get("TD_TEST_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "data"))


def reference_metrics(actual, expected):
    """msprobe's metrics, recomputed in numpy float64 (no zeros in `expected`)."""
    x = np.asarray(actual, dtype=np.float64).ravel()
    y = np.asarray(expected, dtype=np.float64).ravel()
    d = np.abs(x - y)
    rel = d / np.abs(y)
    shape = np.shape(actual)
    return {
        "cosine": float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y))),
        "euclidean_distance": float(np.linalg.norm(x - y)),
        "max_abs_err": float(d.max()),
        "max_rel_err": float(rel.max()),
        "mean_abs_err": float(d.mean()),
        "mean_rel_err": float(rel.mean()),
        "rmse": float(np.sqrt(np.mean((x - y) ** 2))),
        "one_thousandth_ratio": float(np.mean(rel < 0.001)),
        "five_thousandths_ratio": float(np.mean(rel < 0.005)),
        "max_abs_index": tuple(int(i) for i in np.unravel_index(int(np.argmax(d)), shape)),
    }


def assert_matches_reference(c, ref, rel=1e-9):
    for k, v in ref.items():
        got = getattr(c, k)
        if k == "max_abs_index" or k.endswith("ratio"):
            assert got == v, k
        elif k == "max_rel_err" or k == "mean_rel_err":
            assert got == pytest.approx(v, rel=1e-6), k  # float32 or float64 relative error
        else:
            assert got == pytest.approx(v, rel=rel, abs=1e-12), k


@pytest.fixture
def pair():
    """float32 pair whose relative errors sit far from the 0.001 / 0.005 thresholds."""
    rng = np.random.default_rng(7)
    b = (rng.uniform(0.5, 2.0, size=(6, 10)) * rng.choice([-1, 1], size=(6, 10))).astype(np.float32)
    r = rng.choice([1e-5, 2e-3, 3e-2], size=b.shape)
    a = (b * (1 + r)).astype(np.float32)
    return a, b
