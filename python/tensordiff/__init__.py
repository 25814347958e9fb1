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
    load_bits,
    ls,
    md5,
    set_threads,
    summarize,
)
from ._tensordiff import _compare_dumps


class DumpResult:
    """What compare_dumps() found: the table rows (a pandas DataFrame when pandas
    is importable, else a list of dicts keyed by the CSV header), one entry per
    rank/step in `ranks`, the `summary` (summary.json), the `first_divergence`
    (None when nothing diverges) and the `files` written with output=."""

    def __init__(self, raw):
        self.mode = raw["mode"]
        self.ranks = raw["ranks"]
        self.summary = raw["summary"]
        self.first_divergence = raw["first_divergence"]
        self.files = raw["files"]
        rows = []
        multi = len(self.ranks) > 1
        for r in self.ranks:
            for row in r["rows"]:
                rows.append({"Rank": r["label"], **row} if multi else row)
        self.records = rows
        try:
            import pandas
        except ImportError:
            self.rows = rows
        else:
            columns = (["Rank"] if multi else []) + (self.ranks[0]["columns"] if self.ranks else [])
            self.rows = pandas.DataFrame.from_records(rows, columns=columns)

    def __repr__(self):
        fd = self.first_divergence["entry"] if self.first_divergence else None
        return f"DumpResult({self.mode} mode, {len(self.records)} rows, {len(self.ranks)} rank(s), first divergence: {fd})"


def compare_dumps(npu, bench, *, mode="auto", compat="tensordiff", fuzzy=False, data_map=None, cell_map=None,
                  api_map=None, layer_map=None, legacy_result=False, workers=0, output=None, html=False,
                  jsonl=False, progress=None):
    """Compares two msprobe dumps (a dump.json, a rank folder, a step folder with rank{N}/,
    a root with step{N}/) or two plain folders of tensor files, as `tensordiff compare` does.

    mode: "auto" or the mode the dumps must have (tensor, statistics, md5); compat: "tensordiff"
    or "msprobe" (msprobe 26.0's table byte for byte); one matcher at most: fuzzy=True, data_map=YAML,
    cell_map=True|YAML, api_map=True|YAML, layer_map=YAML; legacy_result: the `Accuracy Reached or
    Not` column; workers: pairs compared at once (0 = automatic); output=DIR writes the CLI's files
    (CSV per rank, summary.json; html=True adds report.html, jsonl=True JSON lines); progress:
    called as progress(done, total) from worker threads while tensor pairs are compared (an
    exception it raises ends the callbacks and is raised when the compare returns).
    The GIL is released while the dumps are compared. Returns a DumpResult."""
    return DumpResult(_compare_dumps(
        str(npu), str(bench), mode=mode, compat=compat, fuzzy=fuzzy,
        data_map=None if data_map is None else str(data_map), cell_map=cell_map, api_map=api_map,
        layer_map=None if layer_map is None else str(layer_map), legacy_result=legacy_result, workers=workers,
        output=None if output is None else str(output), html=html, jsonl=jsonl, progress=progress))

__all__ = [
    "Comparison", "DumpResult", "compare_dumps", "FormatError", "Summary", "Verdict", "assert_close", "check", "compare", "crc32",
    "load", "load_bits", "ls", "md5", "set_threads", "summarize",
]
