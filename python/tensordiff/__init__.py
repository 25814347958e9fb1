"""tensordiff: fast, exact tensor comparison (numpy, torch, msprobe dumps).

    import tensordiff as td
    c = td.compare(npu_out, gpu_out)            # numpy arrays, torch CPU tensors, buffers; no copy
    c.cosine, c.max_abs_err, c.max_abs_index    # every metric in one fused pass, the GIL released
    td.assert_close(out, expected)              # torch.testing's rule and message; pytest-friendly
"""
from ._tensordiff import (  # noqa: F401
    Comparison,
    FormatError,
    Summary,
    Verdict,
    __version__,
    assert_close,
    check,
    compare,
    crc32,
    load,
    ls,
    md5,
    set_threads,
    summarize,
)

__all__ = [
    "Comparison", "FormatError", "Summary", "Verdict", "assert_close", "check", "compare", "crc32",
    "load", "ls", "md5", "set_threads", "summarize",
]
