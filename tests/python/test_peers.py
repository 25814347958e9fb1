"""benchmarks/peers/peers.py reads tensordiff_bench's Google Benchmark JSON: with
--benchmark_repetitions it must take each case's median time, not whichever entry
(mean, stddev, cv or the last repetition) comes last."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.environ.get("TD_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                                "benchmarks", "peers"))
peers = pytest.importorskip("peers")

NAME = "BM_compare/f32/highway/1048576/t1/real_time"


def run(kind, real_time, unit="us", aggregate=None):
    entry = {"name": NAME if aggregate is None else f"{NAME}_{aggregate}", "run_name": NAME,
             "run_type": kind, "real_time": real_time, "time_unit": unit}
    if aggregate is not None:
        entry["aggregate_name"] = aggregate
    return entry


def load(tmp_path, entries):
    path = tmp_path / "td.json"
    path.write_text(json.dumps({"benchmarks": entries}))
    return peers.load_tensordiff(str(path))


KEY = ("f32", "highway", 1048576, "t1")


def test_one_run_per_case(tmp_path):
    assert load(tmp_path, [run("iteration", 40.0)]) == {KEY: pytest.approx(40e-6)}


def test_repetitions_give_their_median(tmp_path):
    times = [50.0, 40.0, 30.0]  # the last is not the median
    got = load(tmp_path, [run("iteration", t) for t in times])
    assert got[KEY] == pytest.approx(sorted(times)[1] * 1e-6)


def test_aggregates_give_the_median_aggregate(tmp_path):
    # --benchmark_report_aggregates_only: mean, median, stddev and cv, cv last.
    entries = [run("aggregate", 45.0, aggregate="mean"), run("aggregate", 41.0, aggregate="median"),
               run("aggregate", 6.0, aggregate="stddev"), run("aggregate", 0.13, unit="us", aggregate="cv")]
    assert load(tmp_path, entries)[KEY] == pytest.approx(41e-6)


def test_median_aggregate_wins_over_the_repetitions(tmp_path):
    entries = [run("aggregate", 55.0, aggregate="median")] + [run("iteration", t) for t in (30.0, 60.0, 90.0)]
    assert load(tmp_path, entries)[KEY] == pytest.approx(55e-6)


def test_other_benchmarks_are_ignored(tmp_path):
    other = {"name": "BM_read_bandwidth/1048576/t1/real_time", "run_type": "iteration", "real_time": 1.0}
    assert load(tmp_path, [other]) == {}
