"""td.assert_close / td.check against torch.testing.assert_close and
numpy.testing.assert_allclose: the same decisions and the same message fields."""
import numpy as np
import pytest
import tensordiff as td
import torch


def torch_message(actual, expected, **kw):
    with pytest.raises(AssertionError) as e:
        torch.testing.assert_close(torch.as_tensor(actual), torch.as_tensor(expected), **kw)
    return str(e.value)


def td_message(actual, expected, **kw):
    with pytest.raises(AssertionError) as e:
        td.assert_close(actual, expected, **kw)
    return str(e.value)


CASES = [
    ("float32 1-d", np.array([1.0, 4.0, 5.0], np.float32), np.array([1.0, 2.0, 3.0], np.float32), {}),
    ("float64 2-d", np.linspace(1, 2, 12).reshape(3, 4), np.linspace(1, 2, 12).reshape(3, 4) * (1 + 1e-3), {}),
    ("float16", np.array([1, 2, 3, 4], np.float16), np.array([1, 2.01, 3, 4.5], np.float16), {}),
    ("int64 equality", np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3) + np.array([[0, 0, 0], [0, 2, 0]]), {}),
    ("explicit tolerances", np.array([1.0, 1.1, 1.2]), np.array([1.0, 1.0, 1.0]), {"rtol": 0.05, "atol": 0.01}),
    ("transposed view", np.arange(1, 13, dtype=np.float32).reshape(3, 4).T,
     (np.arange(1, 13, dtype=np.float32).reshape(3, 4) + np.eye(3, 4, k=1, dtype=np.float32)).T, {}),
]


@pytest.mark.parametrize("name,actual,expected,kw", CASES, ids=[c[0] for c in CASES])
def test_message_fields_equal_torch_testing(name, actual, expected, kw):
    ours = td_message(actual, expected, **kw).splitlines()
    theirs = torch_message(actual, expected, **kw).splitlines()
    # torch.testing's header, count/percentage and greatest differences with index and allowance
    assert ours[: len(theirs)] == theirs
    assert any(line.startswith("Standard: torch") for line in ours)


def test_bfloat16_message_equals_torch_testing():
    a = torch.tensor([1.0, 2.0, 3.0, 4.0]).bfloat16()
    b = torch.tensor([1.0, 2.0, 3.1, 4.0]).bfloat16()
    ours = td_message(a, b).splitlines()
    theirs = torch_message(a, b).splitlines()
    assert ours[: len(theirs)] == theirs


def test_passing_pairs_do_not_raise():
    x = np.linspace(0, 1, 100, dtype=np.float32)
    td.assert_close(x, x + 1e-7)
    td.assert_close(torch.from_numpy(x), x)
    torch.testing.assert_close(torch.from_numpy(x), torch.from_numpy(x + 1e-7))  # the reference agrees
    td.assert_close(np.arange(5), np.arange(5))


@pytest.mark.parametrize("rtol,atol", [(1e-7, 0.0), (1e-3, 0.0), (0.0, 1e-2), (1e-5, 1e-8)])
def test_numpy_standard_agrees_with_assert_allclose(rtol, atol):
    rng = np.random.default_rng(11)
    b = rng.standard_normal(1000)
    a = b * (1 + rng.uniform(-1e-4, 1e-4, size=1000))
    try:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        numpy_passed = True
    except AssertionError:
        numpy_passed = False
    assert td.check(a, b, standard="numpy", rtol=rtol, atol=atol).passed == numpy_passed
    if not numpy_passed:
        with pytest.raises(AssertionError, match="Standard: numpy"):
            td.assert_close(a, b, standard="numpy", rtol=rtol, atol=atol)


def test_check_returns_the_verdict():
    v = td.check(np.array([1.0, 4.0, 5.0]), np.array([1.0, 2.0, 3.0]))
    assert not v and v.level == "error" and v.mismatched == 2 and v.numel == 3
    assert v.greatest_abs["index"] == (1,) and v.greatest_abs["abs_diff"] == 2.0
    assert v.message.startswith("Tensor-likes are not close!")
    assert [w["index"] for w in v.worst] == [(1,), (2,)]
    ok = td.check(np.ones(3), np.ones(3), standard="bitwise")
    assert ok and ok.message == ""
    assert not td.check(np.float32([1.0]), np.float32([np.nextafter(np.float32(1), np.float32(2))]), standard="ulp:0")
    assert td.check(np.float32([1.0]), np.float32([np.nextafter(np.float32(1), np.float32(2))]), standard="ulp:1")


def test_usable_in_pytest_with_a_prefix():
    with pytest.raises(AssertionError, match=r"(?s)^layer 3\n\nTensor-likes are not close!"):
        td.assert_close(np.ones(3), np.zeros(3), msg="layer 3")


def test_shape_mismatch_is_an_assertion_error():
    with pytest.raises(AssertionError, match="shape"):
        td.assert_close(np.ones(3), np.ones(4))


def test_bad_standards_raise_value_error():
    with pytest.raises(ValueError, match="unknown standard"):
        td.assert_close(np.ones(3), np.ones(3), standard="nope")
    with pytest.raises(ValueError, match="give both rtol and atol"):
        td.assert_close(np.ones(3), np.ones(3), rtol=1e-3)
    with pytest.raises(ValueError, match="has no rtol/atol"):
        td.check(np.ones(3), np.ones(3), standard="bitwise", rtol=1.0)
