#!/usr/bin/python3
"""The browser side of the HTML report check (scripts/check-html-report.sh) and benchmark
(benchmarks/html_report.sh).

    html-report-harness.py page REPORT EXPECT OUT   copy of REPORT with scripts/check-html-report.js
                                                    (given EXPECT, the generator's expect.json) appended
    html-report-harness.py results DOM [--brief]    the checks and timings that script left in DOM
                                                    (Chromium's --dump-dom); exit 1 if a check failed
"""
import html
import json
import re
import sys
from pathlib import Path

HARNESS = Path(__file__).resolve().parent / "check-html-report.js"


def page(report, expect, out):
    text = Path(report).read_text(encoding="utf-8")
    js = HARNESS.read_text(encoding="utf-8").replace("/*EXPECT*/null", Path(expect).read_text(encoding="utf-8"))
    at = text.rindex("</body>")
    Path(out).write_text(text[:at] + "<script>" + js + "</script>" + text[at:], encoding="utf-8")


def results(dom, brief):
    m = re.search(r'<pre id="td-test">(.*?)</pre>', Path(dom).read_text(encoding="utf-8"), re.S)
    if not m:
        print("  FAIL the in-page checks left no result (see chromium.log)")
        return 1
    r = json.loads(html.unescape(m.group(1)))
    failed = [c for c in r["checks"] if not c["ok"]]
    for c in failed if brief else r["checks"]:
        print(f"  {'ok  ' if c['ok'] else 'FAIL'} {c['name']} ({c['detail']})")
    t = r["timings"]
    print(f"  clicks: switch run <= {t['select_run_max_ms']} ms, module filter {t['tree_click_ms']} ms, "
          f"chart click {t['chart_click_ms']} ms, two sorts {t['sort_ms']} ms; page ready {t['ready_ms']} ms")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "page":
        page(*sys.argv[2:])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "results":
        sys.exit(results(sys.argv[2], "--brief" in sys.argv[3:]))
    else:
        sys.exit(__doc__)
