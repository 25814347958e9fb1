"""td.compare_dumps against the CLI's CSV and summary.json (the same library
under both), the progress callback, output= and the errors of bad dumps."""
import csv
import glob
import json
import math
import os
import subprocess
import threading

import pandas
import pytest
import tensordiff as td
from conftest import DATA

CLI = os.environ.get("TD_CLI", "")
DUMPS = os.path.join(DATA, "dumps")
SCENARIOS = ["mix_fp32_tensor_perturbed", "L1_bf16_vs_fp32_tensor", "L0_fp32_statistics_perturbed",
             "L1_fp32_md5_perturbed", "multirank_fp32_statistics", "multistep_fp32_statistics"]


def csv_value_equal(text, value):
    """A CSV cell against the typed row value compare_dumps gave."""
    if value is None:
        return text == "None"
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        f = float(text)  # " inf", "Nan" and Python reprs all parse
        return (math.isnan(f) and math.isnan(value)) or f == value
    return text == value


def cli_compare(npu, bench, out, *extra):
    subprocess.run([CLI, "compare", npu, bench, "-o", str(out), "--quiet", *extra], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tables = sorted(glob.glob(os.path.join(str(out), "compare_result*.csv")))
    tables = [t for t in tables if not t.endswith("_bench_only.csv")]
    with open(os.path.join(str(out), "summary.json")) as f:
        return tables, json.load(f)


@pytest.mark.skipif(not CLI, reason="the CLI is not built (TD_BUILD_EXAMPLES=OFF)")
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("compat", ["tensordiff", "msprobe"])
def test_rows_equal_the_cli_csv(tmp_path, scenario, compat):
    npu, bench = os.path.join(DUMPS, scenario, "npu"), os.path.join(DUMPS, scenario, "bench")
    extra = ["--compat", "msprobe"] if compat == "msprobe" else []
    tables, summary = cli_compare(npu, bench, tmp_path, *extra)
    r = td.compare_dumps(npu, bench, compat=compat)
    assert r.summary == summary
    assert len(tables) == len(r.ranks)
    for table, rank in zip(tables, r.ranks):
        with open(table, newline="") as f:
            cells = list(csv.reader(f))
        assert cells[0] == rank["columns"]
        assert len(cells) - 1 == len(rank["rows"])
        for line, row in zip(cells[1:], rank["rows"]):
            assert list(row) == cells[0]
            for text, key in zip(line, cells[0]):
                assert csv_value_equal(text, row[key]), (key, text, row[key])


def test_dataframe_summary_and_first_divergence():
    npu = os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "npu")
    bench = os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "bench")
    with open(os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "expected.json")) as f:
        expected = json.load(f)
    r = td.compare_dumps(npu, bench)
    assert isinstance(r.rows, pandas.DataFrame)
    assert list(r.rows.columns) == r.ranks[0]["columns"] and len(r.rows) == len(r.records)
    assert r.mode == "tensor" and r.summary["mode"] == "tensor"
    facts = expected["per_step_rank"]["step0/rank0"]  # written by tests/data/generate_dumps.py
    assert r.first_divergence["entry"] == facts["first_divergent_entry"]
    assert r.first_divergence["origin_module"] == facts["divergence_origin_module"]
    assert r.first_divergence["first_item"] == facts["first_divergent_item"]
    assert r.first_divergence["min_cosine"] < 1.0
    assert set(r.rows["Result"]) <= {"pass", "warning", "error"}


def test_multirank_rows_name_their_rank():
    r = td.compare_dumps(os.path.join(DUMPS, "multirank_fp32_statistics", "npu"),
                         os.path.join(DUMPS, "multirank_fp32_statistics", "bench"))
    assert len(r.ranks) > 1 and list(r.rows.columns)[0] == "Rank"
    assert set(r.rows["Rank"]) == {x["label"] for x in r.ranks}


def test_progress_output_and_callback_errors(tmp_path):
    npu = os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "npu")
    bench = os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "bench")
    calls, threads = [], set()

    def progress(done, total):
        calls.append((done, total))
        threads.add(threading.get_ident())

    r = td.compare_dumps(npu, bench, output=tmp_path / "out", html=True, workers=2, progress=progress)
    assert calls and max(d for d, _ in calls) == calls[0][1] == len(r.records)
    # called from the worker threads, which can take the GIL: compare_dumps released it
    assert threading.get_ident() not in threads
    names = {os.path.basename(f) for f in r.files}
    assert {"summary.json", "report.html"} <= names and any(n.startswith("compare_result") for n in names)
    with open(tmp_path / "out" / "summary.json") as f:
        assert json.load(f) == r.summary

    def boom(done, total):
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        td.compare_dumps(npu, bench, progress=boom)


def test_plain_folders_and_bad_inputs(tmp_path):
    r = td.compare_dumps(os.path.join(DATA, "plain_dumps", "npu"), os.path.join(DATA, "plain_dumps", "bench"))
    assert len(r.records) > 0 and r.mode == "tensor"
    with pytest.raises(FileNotFoundError):
        td.compare_dumps(tmp_path / "missing", tmp_path)
    with pytest.raises(ValueError, match="mode must be"):
        td.compare_dumps(tmp_path, tmp_path, mode="fast")
    with pytest.raises(ValueError, match="statistics was asked for"):
        td.compare_dumps(os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "npu"),
                         os.path.join(DUMPS, "mix_fp32_tensor_perturbed", "bench"), mode="statistics")
    with pytest.raises(ValueError, match="choose one of"):
        td.compare_dumps(tmp_path, tmp_path, fuzzy=True, layer_map="x.yaml")
    bad = tmp_path / "bad" / "step0" / "rank0"
    bad.mkdir(parents=True)
    (bad / "dump.json").write_text('{"task": "tensor", "level": "L1", "data": {')
    with pytest.raises(td.FormatError, match="dump.json"):
        td.compare_dumps(tmp_path / "bad", tmp_path / "bad")


@pytest.mark.skipif(not CLI, reason="the CLI is not built (TD_BUILD_EXAMPLES=OFF)")
@pytest.mark.parametrize("matcher", ["fuzzy", "data_map"])
def test_matchers_give_the_cli_table(tmp_path, matcher):
    scenario = os.path.join(DUMPS, "mix_fp32_statistics_api_mismatch")
    npu, bench = os.path.join(scenario, "npu"), os.path.join(scenario, "bench")
    if matcher == "fuzzy":
        kw, extra = {"fuzzy": True}, ["--fuzzy"]
    else:  # map the first two NPU rows onto each other's bench rows, as msprobe -dm does
        names = [r["NPU Name"] for r in td.compare_dumps(npu, bench).records[:2]]
        yaml = tmp_path / "map.yaml"
        yaml.write_text(f"{names[0]}: {names[1]}\n{names[1]}: {names[0]}\n")
        kw, extra = {"data_map": yaml}, ["--data-map", str(yaml)]
    tables, summary = cli_compare(npu, bench, tmp_path / "out", *extra)
    r = td.compare_dumps(npu, bench, **kw)
    assert r.summary == summary
    if matcher == "data_map":
        assert r.records[0]["Bench Name"] == names[1]
    for table, rank in zip(tables, r.ranks):
        with open(table, newline="") as f:
            cells = list(csv.reader(f))
        assert len(cells) - 1 == len(rank["rows"])
        for line, row in zip(cells[1:], rank["rows"]):
            assert all(csv_value_equal(t, row[k]) for t, k in zip(line, cells[0]))


@pytest.mark.skipif(not CLI, reason="the CLI is not built (TD_BUILD_EXAMPLES=OFF)")
def test_output_files_equal_the_cli_files(tmp_path):
    npu = os.path.join(DUMPS, "multirank_fp32_statistics", "npu")
    bench = os.path.join(DUMPS, "multirank_fp32_statistics", "bench")
    cli_tables, _ = cli_compare(npu, bench, tmp_path / "cli", "--jsonl")
    r = td.compare_dumps(npu, bench, output=tmp_path / "py", jsonl=True)
    ours = sorted(f for f in r.files if f.endswith(".csv") and not f.endswith("_bench_only.csv"))
    assert len(ours) == len(cli_tables) > 1
    for a, b in zip(ours, cli_tables):
        assert open(a, "rb").read() == open(b, "rb").read()
        assert open(a[:-4] + ".jsonl", "rb").read() == open(b[:-4] + ".jsonl", "rb").read()
    assert open(tmp_path / "py" / "summary.json", "rb").read() == open(tmp_path / "cli" / "summary.json", "rb").read()
    # Every file is in place under its final name, none left in a staging folder.
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.path.basename(f) for f in r.files)


def test_a_failed_output_write_leaves_no_staging_folder(tmp_path):
    npu = os.path.join(DUMPS, "multirank_fp32_statistics", "npu")
    bench = os.path.join(DUMPS, "multirank_fp32_statistics", "bench")
    (tmp_path / "out" / "summary.json" / "keep").mkdir(parents=True)  # summary.json cannot move into place
    with pytest.raises(OSError, match="summary.json"):
        td.compare_dumps(npu, bench, output=tmp_path / "out")
    assert not [f for f in os.listdir(tmp_path / "out") if f.startswith(".tensordiff-partial")]
