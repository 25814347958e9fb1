"""td.compare / summarize / md5 / crc32 against numpy float64 and torch, on
every input kind (numpy of every dtype, strides, byte order, read-only,
DLPack, buffers) and the errors for what tensordiff cannot read."""
import array
import gc
import hashlib
import threading
import zlib

import numpy as np
import pytest
import tensordiff as td
import torch
from conftest import assert_matches_reference, reference_metrics


def test_metrics_match_numpy_float64(pair):
    a, b = pair
    c = td.compare(a, b)
    assert c.validation == "ok" and c.numel == a.size
    assert_matches_reference(c, reference_metrics(a, b))
    i = c.max_abs_index
    assert c.actual_at_max_abs == float(a[i]) and c.expected_at_max_abs == float(b[i])
    assert c.max_abs_flat_index == np.ravel_multi_index(i, a.shape)
    assert c.nonfinite_positions_match and c.nonfinite_mismatch_count == 0
    d = c.to_dict()
    assert d["max_abs_index"] == i and d["cosine"] == c.cosine and d["metric_status"]["cosine"] == "ok"
    assert d["actual"]["max"] == pytest.approx(float(a.max()))


INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64] + INT_DTYPES)
def test_every_numpy_dtype(dtype):
    rng = np.random.default_rng(1)
    b = rng.integers(1, 100, size=(4, 5)).astype(dtype)
    a = (b + rng.integers(0, 3, size=(4, 5))).astype(dtype)
    c = td.compare(a, b)
    assert_matches_reference(c, reference_metrics(a, b), rel=1e-12)
    assert c.actual.dtype == np.dtype(dtype).name


def test_bool_and_mixed_pairs(pair):
    a, b = pair
    x = np.array([True, False, True, True])
    y = np.array([True, True, True, True])
    c = td.compare(x, y)
    assert c.max_abs_err == 1.0 and c.max_abs_index == (1,)
    c = td.compare(a.astype(np.float16), b)  # float16 vs float32
    assert_matches_reference(c, reference_metrics(a.astype(np.float16), b))
    assert not c.dtypes_match


def test_strided_fortran_negative_and_broadcast_views(pair):
    a, b = pair
    for va, vb in [
        (a[::2, 1::3], b[::2, 1::3]),
        (np.asfortranarray(a), np.asfortranarray(b)),
        (a.T, b.T),
        (a[::-1, ::-2], b[::-1, ::-2]),
        (np.broadcast_to(a[0], (3, 10)), np.broadcast_to(b[0], (3, 10))),
    ]:
        c = td.compare(va, vb)
        assert_matches_reference(c, reference_metrics(va, vb))
        assert td.md5(va) == hashlib.md5(np.ascontiguousarray(va).astype("<f4").tobytes()).hexdigest()


def test_byte_order_and_read_only(pair):
    a, b = pair
    native = td.compare(a, b).to_dict()
    big_a, big_b = a.astype(">f4"), b.astype(">f4")
    big_a.setflags(write=False)
    assert not big_a.flags.writeable
    assert td.compare(big_a, big_b).to_dict() == native
    assert td.md5(big_a) == td.md5(a) and td.crc32(big_a) == td.crc32(a)


def test_packed_record_field_is_read(pair):
    a, b = pair
    rec = np.zeros(a.size, dtype=[("tag", "u1"), ("x", "<f4")])  # packed: the field is misaligned
    rec["x"] = a.ravel()
    c = td.compare(rec["x"], b.ravel())
    assert_matches_reference(c, reference_metrics(a.ravel(), b.ravel()))


def test_torch_tensors_through_dlpack(pair):
    a, b = pair
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert td.compare(ta, tb).to_dict() == td.compare(a, b).to_dict()
    assert td.compare(ta.t(), tb.t()).max_abs_index == td.compare(a.T, b.T).max_abs_index
    g = ta.clone().requires_grad_(True)  # exported through its detached alias
    assert td.compare(g, tb).cosine == td.compare(a, b).cosine


def test_bfloat16_through_dlpack_matches_torch_float64(pair):
    a, b = pair
    ta = torch.from_numpy(a).bfloat16()
    tb = torch.from_numpy(b)
    c = td.compare(ta, tb)
    ref = reference_metrics(ta.double().numpy(), b)
    assert_matches_reference(c, ref)
    assert c.actual.dtype == "bfloat16"
    assert td.compare(ta, ta).max_abs_err == 0.0
    s = td.summarize(ta)
    assert s.max == ta.double().max().item() and s.sum == pytest.approx(ta.double().sum().item(), rel=1e-12)
    assert td.md5(ta) == hashlib.md5(ta.view(torch.int16).numpy().astype("<i2").tobytes()).hexdigest()


def test_torch_bool_is_bool():
    t = torch.tensor([True, False, True])
    assert td.summarize(t).dtype == "bool"


def test_python_buffers_and_lists():
    vals = [1.0, 2.5, -3.0, 4.0]
    ref = td.compare(np.array(vals, np.float32), np.array(vals[::-1], np.float32)).to_dict()
    assert td.compare(array.array("f", vals), array.array("f", vals[::-1])).to_dict() == ref
    assert td.compare(memoryview(array.array("f", vals)), np.array(vals[::-1], np.float32)).to_dict() == ref
    raw = bytes([1, 2, 3, 250])
    s = td.summarize(raw)
    assert s.dtype == "uint8" and s.max == 250 and s.sum == 256
    assert td.compare([1.0, 2.0], [1.0, 2.0]).max_abs_err == 0.0


def test_summarize_matches_numpy_with_nan_and_inf():
    x = np.array([1.5, -2.0, np.inf, 3.0, 70000.0], np.float64)
    s = td.summarize(x)
    assert s.max == np.inf and s.min == -2.0 and s.finite_max == 70000.0
    assert s.pos_inf_count == 1 and s.inf_count == 1 and s.nan_count == 0 and s.has_nan_or_inf
    assert s.overflows_float16 and not s.overflows_bfloat16
    y = np.array([1.0, np.nan], np.float32)
    assert np.isnan(td.summarize(y).mean) and td.summarize(y).nan_count == 1
    z = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    s = td.summarize(z)
    assert (s.min, s.max, s.mean, s.sum) == (float(z.min()), float(z.max()), float(z.astype(np.float64).mean()), float(z.sum()))
    assert s.l2norm == pytest.approx(float(np.linalg.norm(z.astype(np.float64))), rel=1e-12)
    assert s.shape == (3, 2) and s.to_dict()["numel"] == 6


def test_hashes_against_hashlib_and_zlib(pair):
    a, _ = pair
    assert td.md5(a) == hashlib.md5(a.tobytes()).hexdigest()
    assert td.crc32(a) == format(zlib.crc32(a.tobytes()), "08x")


def test_nonfinite_positions_and_shapes():
    a = np.array([[1.0, np.nan], [3.0, 4.0]])
    b = np.array([[1.0, 2.0], [np.nan, 4.0]])
    c = td.compare(a, b)
    assert c.validation == "nonfinite_mismatch" and not c.nonfinite_positions_match
    assert c.nonfinite_mismatch_count == 2 and c.first_nonfinite_mismatch == (0, 1)
    assert c.cosine is None and c.metric_status["cosine"] == "N/A"
    c = td.compare(np.ones(3), np.ones(4))
    assert c.validation == "shape_unmatched" and c.max_abs_err is None
    assert c.metric_status["max_abs_err"] == "shape unmatched" and c.actual.shape == (3,)
    c = td.compare(np.ones((1, 3)), np.ones(3))  # squeezed, as msprobe
    assert c.validation == "ok" and c.max_abs_index == (0, 0)
    c = td.compare(np.ones((1, 3)), np.ones(3), squeeze=False)
    assert c.validation == "shape_unmatched"
    c = td.compare(np.float32(2.0), np.float32(1.0))
    assert c.validation == "zero_dim" and c.max_abs_err == 1.0 and c.max_abs_index == ()
    c = td.compare(np.zeros(0), np.zeros(0))
    assert c.validation == "empty" and c.actual is None


def test_metrics_selection(pair):
    a, b = pair
    c = td.compare(a, b, metrics=["cosine", "max_abs_err"])
    assert c.cosine is not None and c.max_abs_index is not None and c.rmse is None
    d = c.to_dict()
    assert "rmse" not in d and "max_rel_index" not in d and d["max_abs_err"] == c.max_abs_err
    assert td.compare(a, b, metrics="rmse").rmse == td.compare(a, b).rmse
    with pytest.raises(ValueError, match="unknown metric 'cosin'"):
        td.compare(a, b, metrics=["cosin"])


def test_metrics_selection_runs_a_lean_pass(pair):
    a, b = pair
    full = td.compare(a, b)
    lean = td.compare(a, b, metrics=["max_abs_err", "max_rel_err"])  # assert_close's set
    assert lean.actual is None and lean.expected is None and lean.to_dict()["actual"] is None
    for name in ("max_abs_err", "max_rel_err", "max_abs_index", "max_rel_index"):
        assert getattr(lean, name) == getattr(full, name), name
    stats = td.compare(a, b, metrics="statistics")
    assert stats.cosine is None and stats.actual.to_dict() == full.actual.to_dict()
    assert stats.expected.to_dict() == full.expected.to_dict()
    assert "statistics" in str(pytest.raises(ValueError, td.compare, a, b, metrics="x").value)


def test_metrics_selection_drops_names(pair):
    # A leading '-' drops a metric; a list that starts with one starts from all (the CLI's rule).
    a, b = pair
    full = td.compare(a, b)
    names = [k for k in reference_metrics(a, b) if k != "max_abs_index"]  # every metric, by field name
    for dropped in names:
        c = td.compare(a, b, metrics=["-" + dropped])
        assert getattr(c, dropped) is None and dropped not in c.to_dict(), dropped
        for name in names:
            if name != dropped:
                assert getattr(c, name) == pytest.approx(getattr(full, name), rel=1e-12), (dropped, name)
        assert c.actual.to_dict() == full.actual.to_dict()
    c = td.compare(a, b, metrics=["cosine", "rmse", "-rmse"])
    assert c.rmse is None and c.cosine == pytest.approx(full.cosine, rel=1e-12) and c.actual is None
    c = td.compare(a, b, metrics="-statistics")
    assert c.actual is None and c.expected is None and c.max_rel_err == full.max_rel_err
    with pytest.raises(ValueError, match="leaves no metric"):
        td.compare(a, b, metrics=["cosine", "-cosine"])
    with pytest.raises(ValueError, match="unknown metric 'cosin'.*leading '-'"):
        td.compare(a, b, metrics=["-cosin"])


def test_threads_do_not_change_results():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(300_000).astype(np.float32)
    b = a + rng.standard_normal(300_000).astype(np.float32) * 1e-3
    one = td.compare(a, b, threads=1).to_dict()
    assert td.compare(a, b, threads=0).to_dict() == one
    td.set_threads(2)
    assert td.compare(a, b).to_dict() == one


def test_unsupported_inputs_raise_type_error():
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="complex"):
        td.compare(x.astype(np.complex64), x.astype(np.complex64))
    with pytest.raises(TypeError, match="numpy dtype"):
        td.compare(np.array(["a", "b", "c"]), x)
    with pytest.raises(TypeError, match="numpy dtype"):
        td.compare(np.ones(3, dtype=object), x)
    with pytest.raises(TypeError, match="numpy dtype"):
        td.summarize(np.ones(3, dtype=np.longdouble))
    with pytest.raises(TypeError, match="got str"):
        td.compare("abc", x)
    with pytest.raises(TypeError):
        td.md5(None)


class DeviceTensor:
    """What a CUDA tensor shows through DLPack: a device type other than CPU."""

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA

    def __dlpack__(self, stream=None):  # never reached: the device is checked first
        raise AssertionError("exported a device tensor")


def test_device_tensor_raises_type_error_naming_cpu():
    with pytest.raises(TypeError, match=r"cuda device.*\.cpu\(\).*CUDA backend"):
        td.compare(DeviceTensor(), np.ones(3))


def test_arrays_stay_alive_while_compared():
    """The source is dropped by another thread while compare() reads it."""
    a = np.random.default_rng(5).standard_normal(2_000_000)
    holder = {"a": a[::2]}
    expected = td.compare(holder["a"], holder["a"]).to_dict()
    del a
    results = []

    def work():
        results.append(td.compare(holder["a"], holder["a"][::-1][::-1]).to_dict())

    t = threading.Thread(target=work)
    t.start()
    holder.clear()
    gc.collect()
    t.join()
    assert results == [expected]
    x = torch.arange(10, dtype=torch.float32)
    view = x[2:]
    del x
    gc.collect()
    assert td.summarize(view).sum == float(sum(range(2, 10)))


class CtypesExporter:
    """A minimal third-party DLPack producer (not torch): a DLManagedTensor
    over a numpy array's memory, built with ctypes. Counts deleter calls."""

    def __init__(self, array, code, bits, device=1):
        import ctypes as C

        class DLTensor(C.Structure):
            _fields_ = [("data", C.c_void_p), ("device_type", C.c_int32), ("device_id", C.c_int32),
                        ("ndim", C.c_int32), ("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16),
                        ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]

        class Managed(C.Structure):
            pass

        deleter_t = C.CFUNCTYPE(None, C.POINTER(Managed))
        Managed._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", deleter_t)]
        self.array, self.deleted, self.device = array, 0, device
        self._shape = (C.c_int64 * array.ndim)(*array.shape)
        self._strides = (C.c_int64 * array.ndim)(*[s // array.itemsize for s in array.strides])

        def on_delete(_):
            self.deleted += 1

        self._deleter = deleter_t(on_delete)
        self._managed = Managed(DLTensor(array.ctypes.data, device, 0, array.ndim, code, bits, 1,
                                         self._shape, self._strides, 0), None, self._deleter)
        self._new = C.pythonapi.PyCapsule_New
        self._new.restype, self._new.argtypes = C.py_object, [C.c_void_p, C.c_char_p, C.c_void_p]
        self._addr = C.addressof(self._managed)

    def __dlpack__(self, stream=None):
        return self._new(self._addr, b"dltensor", None)

    def __dlpack_device__(self):
        return (self.device, 0)


def test_third_party_dlpack_producer_and_float8():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    e = CtypesExporter(a, code=2, bits=32)  # kDLFloat, 32 bits, strided
    assert td.compare(e, a).max_abs_err == 0.0 and td.summarize(e).sum == float(a.sum())
    assert e.deleted == 2  # each consumed capsule freed once, after use
    f8 = CtypesExporter(np.zeros(4, np.uint8), code=11, bits=8)  # kDLFloat8_e4m3fnuz: not held (test_float8.py has the rest)
    with pytest.raises(TypeError, match="float8"):
        td.summarize(f8)
    assert f8.deleted == 1
    f8 = CtypesExporter(np.full(4, 0x38, np.uint8), code=10, bits=8)  # kDLFloat8_e4m3fn (DLPack 1.0): 1.0 each
    assert td.summarize(f8).sum == 4.0 and f8.deleted == 1


def test_the_gil_is_released_during_compare():
    """With a 100 s switch interval the comparing thread keeps the GIL unless
    compare() gives it up: the main thread can count only while it does."""
    import sys
    import time

    a = np.random.default_rng(9).standard_normal(4_000_000)
    seen_during = []
    count = [0]
    done = threading.Event()

    def work():
        # Outside compare() this thread keeps the GIL, so main counts only during a compare; a
        # compare can end before the main thread is even scheduled (a busy 2-vCPU CI machine:
        # ~5 ms each), so try a few.
        for _ in range(50):
            td.compare(a, a[::-1], threads=1)
            if count[0]:
                break
        seen_during.append(count[0])  # read before `done`: what main counted while compare ran
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(100)
    try:
        t = threading.Thread(target=work)
        t.start()
        while not done.is_set():
            count[0] += 1
            time.sleep(0)  # lets the worker take the GIL back once compare returns
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert seen_during[0] > 0
