#!/usr/bin/python3
"""Writes a synthetic multi-rank, multi-step msprobe statistics-mode dump pair (npu/ and bench/)
of a Llama-like decoder, for the HTML report's browser check and benchmark.

    scripts/gen-job-dumps.py OUT [--rows 100000] [--ranks 4] [--steps 2]

Layout: OUT/{npu,bench}/step{S}/rank{R}/{dump.json,construct.json,stack.json} (level mix: modules
and the APIs inside them, forward only) and OUT/expect.json, which says what the report must show.
Standard library only; about 3 s and 45 MB for 100,000 rows.

What each run holds (the statistics tensordiff compares are exact copies unless said):
  pass        both sides identical.
  warning     one API output's Norm is 20% off while its inputs agree (msprobe's RelativeWarn):
              that call and the modules around it warn; every later tensor carries the drift,
              which no rule flags (inputs and outputs drift alike).
  error       as warning with 80% (msprobe's Relative error rule).
  unmatched   three NPU-only API calls (no bench item: unmatched rows), nothing else.
Runs differ in length (rank R of step S appends R + 2*S small API calls) so a check can tell
which run the table shows.
"""
import argparse
import json
import random
from pathlib import Path

PLAN = {  # (step, rank) -> what happens; runs not listed pass
    (0, 2): "warning",
    (1, 1): "error",
    (1, 2): "warning",
    (1, 3): "unmatched",
}
DRIFT = {"warning": 0.2, "error": 0.8}
HIDDEN, INTER, SEQ = 4096, 11008, 2048
SRC = "File /workspace/llama/modeling_llama.py, line {}, in {}, \n {}"


class Model:
    """Execution-order entries of one forward step: name, parent, inputs and outputs (shapes)."""

    def __init__(self):
        self.entries = []  # dicts: name, parent, inputs, outputs, stack, depth
        self.counters = {}
        self.stack = [None]

    def api(self, kind, inputs, outputs, line):
        n = self.counters.get(kind, 0)
        self.counters[kind] = n + 1
        self._add(f"{kind}.{n}.forward", inputs, outputs, line, leaf=True)

    def module(self, path, cls, inputs, outputs, line, body):
        name = f"Module.{path}.{cls}.forward.0"
        e = self._add(name, inputs, outputs, line, leaf=False)
        self.stack.append(name)
        body()
        self.stack.pop()
        e["end"] = len(self.entries)

    def _add(self, name, inputs, outputs, line, leaf):
        e = dict(name=name, parent=self.stack[-1], inputs=inputs, outputs=outputs, line=line,
                 start=len(self.entries), end=len(self.entries) + 1, leaf=leaf)
        self.entries.append(e)
        return e


def linear(m, path, fan_in, fan_out, line):
    act, out = [1, SEQ, fan_in], [1, SEQ, fan_out]
    m.module(path, "Linear", [act], [out], line,
             lambda: m.api("Functional.linear", [act, [fan_out, fan_in]], [out], (114, "forward", "return F.linear(input, self.weight, self.bias)")))


def rmsnorm(m, path, line):
    h = [1, SEQ, HIDDEN]

    def body():
        m.api("Tensor.pow", [h], [h], (88, "forward", "variance = hidden_states.pow(2).mean(-1, keepdim=True)"))
        m.api("Torch.rsqrt", [[1, SEQ, 1]], [[1, SEQ, 1]], (89, "forward", "hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)"))
        m.api("Tensor.__mul__", [h, [1, SEQ, 1]], [h], (89, "forward", "hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)"))
        m.api("Tensor.__mul__", [[HIDDEN], h], [h], (90, "forward", "return self.weight * hidden_states"))
    m.module(path, "LlamaRMSNorm", [h], [h], line, body)


def decoder_layer(m, i):
    h, p = [1, SEQ, HIDDEN], f"model.layers.{i}"
    heads = [1, 32, SEQ, 128]

    def attention():
        for proj in ("q_proj", "k_proj", "v_proj"):
            linear(m, f"{p}.self_attn.{proj}", HIDDEN, HIDDEN, (301, "forward", f"states = self.{proj}(hidden_states)"))
        m.api("Torch.matmul", [heads, [1, 32, 128, SEQ]], [[1, 32, SEQ, SEQ]], (320, "forward", "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))"))
        m.api("Functional.softmax", [[1, 32, SEQ, SEQ]], [[1, 32, SEQ, SEQ]], (327, "forward", "attn_weights = nn.functional.softmax(attn_weights, dim=-1)"))
        m.api("Torch.matmul", [[1, 32, SEQ, SEQ], heads], [heads], (329, "forward", "attn_output = torch.matmul(attn_weights, value_states)"))
        linear(m, f"{p}.self_attn.o_proj", HIDDEN, HIDDEN, (338, "forward", "attn_output = self.o_proj(attn_output)"))

    def mlp():
        linear(m, f"{p}.mlp.gate_proj", HIDDEN, INTER, (210, "forward", "gate = self.gate_proj(x)"))
        m.api("Functional.silu", [[1, SEQ, INTER]], [[1, SEQ, INTER]], (211, "forward", "act = self.act_fn(gate)"))
        linear(m, f"{p}.mlp.up_proj", HIDDEN, INTER, (212, "forward", "up = self.up_proj(x)"))
        m.api("Tensor.__mul__", [[1, SEQ, INTER], [1, SEQ, INTER]], [[1, SEQ, INTER]], (212, "forward", "down_in = act * up"))
        linear(m, f"{p}.mlp.down_proj", INTER, HIDDEN, (213, "forward", "return self.down_proj(down_in)"))

    def body():
        rmsnorm(m, f"{p}.input_layernorm", (410, "forward", "hidden_states = self.input_layernorm(hidden_states)"))
        m.module(f"{p}.self_attn", "LlamaAttention", [h], [h], (413, "forward", "hidden_states = self.self_attn(hidden_states)"), attention)
        m.api("Tensor.__add__", [h, h], [h], (418, "forward", "hidden_states = residual + hidden_states"))
        rmsnorm(m, f"{p}.post_attention_layernorm", (422, "forward", "hidden_states = self.post_attention_layernorm(hidden_states)"))
        m.module(f"{p}.mlp", "LlamaMLP", [h], [h], (423, "forward", "hidden_states = self.mlp(hidden_states)"), mlp)
        m.api("Tensor.__add__", [h, h], [h], (424, "forward", "hidden_states = residual + hidden_states"))
    m.module(p, "LlamaDecoderLayer", [h], [h], (690, "forward", "layer_outputs = decoder_layer(hidden_states)"), body)


def build(layers, extra):
    m = Model()
    h = [1, SEQ, HIDDEN]

    def model():
        m.module("model.embed_tokens", "Embedding", [[1, SEQ]], [h], (655, "forward", "inputs_embeds = self.embed_tokens(input_ids)"),
                 lambda: m.api("Functional.embedding", [[1, SEQ], [32000, HIDDEN]], [h], (162, "forward", "return F.embedding(input, self.weight)")))
        for i in range(layers):
            decoder_layer(m, i)
        rmsnorm(m, "model.norm", (702, "forward", "hidden_states = self.norm(hidden_states)"))
    m.module("model", "LlamaModel", [[1, SEQ]], [h], (1180, "forward", "outputs = self.model(input_ids)"), model)
    linear(m, "lm_head", HIDDEN, 32000, (1190, "forward", "logits = self.lm_head(hidden_states)"))
    for _ in range(extra):
        m.api("Tensor.float", [[1, SEQ, 32000]], [[1, SEQ, 32000]], (1191, "forward", "logits = logits.float()"))
    return m.entries


def rows_of(entries):
    return sum(len(e["inputs"]) + len(e["outputs"]) for e in entries)


def stats(rng, shape):
    scale = rng.uniform(0.05, 8.0)
    n = 1
    for d in shape:
        n *= d
    return {"Max": scale * rng.uniform(2, 6), "Min": -scale * rng.uniform(2, 6), "Mean": scale * rng.uniform(-0.05, 0.05),
            "Norm": scale * (n ** 0.5) * rng.uniform(0.5, 1.5)}


def leaf(shape, st, drift):
    f = 1 + drift
    return {"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": shape, "Max": st["Max"] * f, "Min": st["Min"] * f,
            "Mean": st["Mean"] * f, "Norm": st["Norm"] * f, "requires_grad": False}


def write_run(dirs, entries, what, seed, extra_npu):
    """Both sides of one run; returns (rows, failing entry name or None)."""
    rng = random.Random(seed)
    target = None
    if what in DRIFT:  # an API call deep inside the first third of the layers
        apis = [e for e in entries if e["leaf"] and e["name"].startswith("Functional.linear")]
        target = apis[len(apis) // 3]
    jitter = random.Random(seed + 1)
    sides = {"npu": {}, "bench": {}}
    construct, stack_groups = {}, {}
    for e in entries:
        ins = [stats(rng, s) for s in e["inputs"]]
        outs = [stats(rng, s) for s in e["outputs"]]
        d_in = d_out = 0.0
        if target is not None:
            inputs_dirty = e["start"] > target["start"]
            outputs_dirty = e["start"] >= target["start"] or e["end"] > target["start"]  # later, or an ancestor
            d = DRIFT[what]
            d_in = d * jitter.uniform(0.9, 1.1) if inputs_dirty else 0.0
            d_out = (d_in if inputs_dirty else d) * jitter.uniform(0.95, 1.05) if outputs_dirty else 0.0
        for side, (di, do) in (("npu", (d_in, d_out)), ("bench", (0.0, 0.0))):
            sides[side][e["name"]] = {"input_args": [leaf(s, st, di) for s, st in zip(e["inputs"], ins)], "input_kwargs": {},
                                      "output": [leaf(s, st, do) for s, st in zip(e["outputs"], outs)]}
        construct[e["name"]] = e["parent"]
        stack_groups.setdefault(e["line"], []).append(e["name"])
    for k, (kind, shape) in enumerate(extra_npu):  # NPU-only calls, right after the embedding
        name = f"{kind}.{k}.forward"
        st = stats(rng, shape)
        items = list(sides["npu"].items())
        items.insert(3 + 7 * k, (name, {"input_args": [leaf(shape, st, 0)], "input_kwargs": {}, "output": [leaf(shape, st, 0)]}))
        sides["npu"] = dict(items)
        construct[name] = "Module.model.LlamaModel.forward.0"
        stack_groups.setdefault((700, "forward", "hidden_states = hidden_states.contiguous()"), []).append(name)
    stack = {str(i): [names, [SRC.format(1180, "forward", "outputs = self.model(input_ids)"), SRC.format(*line)]]
             for i, (line, names) in enumerate(stack_groups.items())}
    for side, data in sides.items():
        d = dirs[side]
        d.mkdir(parents=True, exist_ok=True)
        dump = {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}
        (d / "dump.json").write_text(json.dumps(dump, separators=(",", ":")))
        (d / "construct.json").write_text(json.dumps(construct if side == "npu" else
                                                     {k: v for k, v in construct.items() if k in data}, separators=(",", ":")))
        (d / "stack.json").write_text(json.dumps(stack, separators=(",", ":")))
    return rows_of(entries) + 2 * len(extra_npu), target["name"] if target else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rows", type=int, default=100000, help="rows of the whole job (about)")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--steps", type=int, default=2)
    a = ap.parse_args()
    runs = a.ranks * a.steps
    per_layer = rows_of(build(2, 0)) - rows_of(build(1, 0))
    base = rows_of(build(0, 0))
    layers = max(1, round((a.rows / runs - base) / per_layer))
    expect = {"runs": [], "layers": layers, "subtree": f"Module.model.layers.{layers // 2}.LlamaDecoderLayer.forward.0"}
    for step in range(a.steps):
        for rank in range(a.ranks):
            what = PLAN.get((step, rank), "pass")
            entries = build(layers, rank + 2 * step)
            extra = [("Tensor.contiguous", [1, SEQ, HIDDEN])] * 3 if what == "unmatched" else []
            dirs = {side: a.out / side / f"step{step}" / f"rank{rank}" for side in ("npu", "bench")}
            rows, target = write_run(dirs, entries, what, 1000 * step + rank, extra)
            parent = {e["name"]: e["parent"] for e in entries}

            def under(name, root=expect["subtree"]):
                while name is not None and name != root:
                    name = parent[name]
                return name == root
            expect["runs"].append({"label": f"step{step}/rank{rank}", "step": f"step{step}", "rank": rank, "status": what,
                                   "rows": rows, "diverging_api": target,
                                   "subtree_rows": rows_of([e for e in entries if under(e["name"])])})
    first = next((r for r in expect["runs"] if r["status"] in DRIFT), None)
    expect["first_divergence_run"] = first["label"] if first else None
    expect["total_rows"] = sum(r["rows"] for r in expect["runs"])
    (a.out / "expect.json").write_text(json.dumps(expect, indent=1))
    print(f"{a.out}: {len(expect['runs'])} runs, {expect['total_rows']} rows, {layers} layers")


if __name__ == "__main__":
    main()
