#!/usr/bin/python3
"""Generate msprobe-layout dump pairs (npu / bench) from a tiny transformer, for tensordiff's
dump-matching and first-divergence tests.

    /usr/bin/python3 tests/data/generate_dumps.py          # Debian numpy 1.24 + torch 1.13

msprobe itself is not available here, so its PyTorch dumper is emulated (spec msprobe-compare.md
section 4): module hooks for L0 (`Module.*`), wrapped functional / torch / Tensor APIs for L1
(`Functional.*`, `Torch.*`, `Tensor.*`, plus one fake `NPU.*` fused op), both for `mix`.
Forward entries are inserted when the call starts (pre-order), backward entries when autograd
reaches them. Statistics are computed by torch in the tensor's own dtype (new msprobe rules: ints
and float64 get Max/Min only; bool gets any/all; 0-d tensors get the value four times).
dump.json is written with Python's json module (indent=1), so non-finite stats appear as the bare
tokens Infinity / -Infinity / NaN, as in msprobe's own files.

Outputs: tests/data/dumps/<scenario>/{npu,bench}/step{N}/rank{R}/{dump,stack,construct}.json
(+ dump_tensor_data/*.pt in tensor mode) and tests/data/dumps/<scenario>/expected.json;
examples/data/demo_dump/{npu,bench}/... for the README demo.
"""
import json
import math
import shutil
import traceback
import zlib
from collections import OrderedDict, defaultdict
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
THIS_FILE = Path(__file__).resolve()

VOCAB, DIM, HIDDEN, SEQ, BATCH = 16, 8, 16, 4, 1

# =============================================================================================
# Dumper (msprobe emulation)

CUR = None          # active Dumper or None
_IN_API = [False]   # re-entrancy guard: APIs called inside a wrapped API are not dumped


def _stack_lines():
    out = []
    frames = traceback.extract_stack()[:-1]
    start = max(i for i, fr in enumerate(frames) if fr.name == "run_step")  # the "training script"
    for fr in frames[start:]:
        if Path(fr.filename).resolve() != THIS_FILE or fr.name in ("api", "_pre", "_post", "_bwd", "wrapper"):
            continue
        out.append(f"File tests/data/generate_dumps.py, line {fr.lineno}, in {fr.name}, \n {fr.line}")
    return out


def tensor_stats(t):
    t = t.detach()
    st = OrderedDict(Max=None, Min=None, Mean=None, Norm=None)
    if t.numel() == 0:
        return st
    if t.dim() == 0 and t.dtype != torch.bool:
        v = t.item()
        return OrderedDict(Max=v, Min=v, Mean=v, Norm=v)
    if t.dtype == torch.bool:
        st["Max"] = bool(t.any().item())
        st["Min"] = bool(t.all().item())
    elif t.dtype in (torch.float16, torch.bfloat16, torch.float32):
        st["Max"] = t.max().item()
        st["Min"] = t.min().item()
        st["Mean"] = t.mean().item()
        st["Norm"] = t.norm().item()
    else:  # ints, float64: Max/Min only (new msprobe)
        st["Max"] = t.max().item()
        st["Min"] = t.min().item()
    return st


def crc32_hex(t):
    t = t.detach().contiguous().cpu()
    raw = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
    return "%08x" % (zlib.crc32(raw) & 0xFFFFFFFF)


class Dumper:
    def __init__(self, out_dir, task, level, md5=False, fake_abs=None, data_mode="all"):
        self.dir = Path(out_dir)
        self.backward = data_mode == "all"
        self.task, self.level, self.md5 = task, level, md5
        self.data = OrderedDict()
        self.stack_groups = OrderedDict()   # tuple(lines) -> [names]
        self.construct = OrderedDict()
        self.counts = defaultdict(int)
        self.mod_counts = defaultdict(int)
        self.mod_stack = []                 # forward module entry names
        self.fake_abs = fake_abs
        self.tensors = OrderedDict()        # item name (statistics naming) -> tensor (for expected.json)
        self.pending_pgrad = {}             # param id -> grad
        if task == "tensor":
            (self.dir / "dump_tensor_data").mkdir(parents=True, exist_ok=True)
        else:
            self.dir.mkdir(parents=True, exist_ok=True)

    @property
    def apis(self):
        return self.level in ("L1", "mix")

    @property
    def modules(self):
        return self.level in ("L0", "mix")

    # --- leaves
    def tensor_leaf(self, t, data_name, item_name):
        leaf = OrderedDict()
        leaf["type"] = "torch.Tensor"
        leaf["dtype"] = str(t.dtype)
        leaf["shape"] = list(t.shape)
        leaf.update(tensor_stats(t))
        leaf["requires_grad"] = bool(t.requires_grad)
        if self.task == "tensor":
            leaf["data_name"] = data_name + ".pt"
            torch.save(t.clone().contiguous().detach(), self.dir / "dump_tensor_data" / leaf["data_name"])
        if self.md5:
            leaf["md5"] = crc32_hex(t)
        self.tensors[item_name] = t.detach().clone()
        return leaf

    def pack(self, v, data_name, item_name):
        if isinstance(v, torch.Tensor):
            return self.tensor_leaf(v, data_name, item_name)
        if v is None:
            return None
        if isinstance(v, bool):
            return OrderedDict(type="bool", value=v)
        if isinstance(v, int):
            return OrderedDict(type="int", value=v)
        if isinstance(v, float):
            return OrderedDict(type="float", value=v)
        if isinstance(v, str):
            return OrderedDict(type="str", value=v)
        if isinstance(v, slice):
            return OrderedDict(type="slice", value=[v.start, v.stop, v.step])
        if isinstance(v, torch.dtype):
            return OrderedDict(type="torch.dtype", value=str(v))
        if isinstance(v, torch.Size):
            return OrderedDict(type="torch.Size", value=list(v))
        if isinstance(v, (list, tuple)):
            return [self.pack(x, f"{data_name}.{i}", f"{item_name}.{i}") for i, x in enumerate(v)]
        if isinstance(v, dict):
            return OrderedDict((k, self.pack(x, f"{data_name}.{k}", f"{item_name}.{k}")) for k, x in v.items())
        raise TypeError(type(v))

    def pack_args(self, name, args):
        return [self.pack(a, f"{name}.input.{i}", f"{name}.input.{i}") for i, a in enumerate(args)]

    def pack_kwargs(self, name, kwargs):
        return OrderedDict((k, self.pack(v, f"{name}.kwargs.{k}", f"{name}.input.{k}")) for k, v in kwargs.items())

    def pack_out(self, name, out, cat="output"):
        if not isinstance(out, (list, tuple)):
            out = [out]
        return [self.pack(o, f"{name}.{cat}.{i}", f"{name}.{cat}.{i}") for i, o in enumerate(out)]

    def add_stack(self, name, lines):
        self.stack_groups.setdefault(tuple(lines), []).append(name)

    def parent(self):
        return self.mod_stack[-1] if self.mod_stack else None

    # --- output
    def write(self):
        dump = OrderedDict()
        dump["task"] = self.task
        dump["level"] = self.level
        dump["framework"] = "pytorch"
        dump["dump_data_dir"] = (self.fake_abs + "/dump_tensor_data") if self.task == "tensor" else None
        dump["data"] = self.data
        (self.dir / "dump.json").write_text(json.dumps(dump, indent=1))
        stack = OrderedDict()
        for i, (lines, names) in enumerate(self.stack_groups.items()):
            stack[str(i)] = [names, list(lines)]
        (self.dir / "stack.json").write_text(json.dumps(stack, indent=1))
        (self.dir / "construct.json").write_text(json.dumps(self.construct, indent=1))


class _ApiFn(torch.autograd.Function):
    """Runs one API inside an autograd node so its backward can be dumped with both
    grad_outputs (backward 'input') and grad_inputs (backward 'output')."""

    @staticmethod
    def forward(ctx, box, *tensors):
        inner = [t.detach().requires_grad_(t.requires_grad) if t.is_floating_point() else t.detach()
                 for t in tensors]
        with torch.enable_grad():
            out = box["call"](inner)
        outs = out if isinstance(out, tuple) else (out,)
        ctx.box, ctx.inner, ctx.outs = box, inner, outs
        box["tuple_out"] = isinstance(out, tuple)
        res = tuple(o.detach() for o in outs)
        for r, o in zip(res, outs):
            if not o.is_floating_point():
                ctx.mark_non_differentiable(r)
        return res if len(res) > 1 else res[0]

    @staticmethod
    def backward(ctx, *grad_outs):
        box = ctx.box
        need = [i for i, t in enumerate(ctx.inner) if t.requires_grad]
        diff_outs = [(o, g) for o, g in zip(ctx.outs, grad_outs) if o.requires_grad]
        grads = [None] * len(ctx.inner)
        if need and diff_outs:
            gs = torch.autograd.grad([o for o, _ in diff_outs], [ctx.inner[i] for i in need],
                                     [g for _, g in diff_outs], allow_unused=True)
            for i, g in zip(need, gs):
                grads[i] = g
        D = box["dumper"]
        if D is not None and D is CUR and D.backward:
            name = box["name"] + ".backward"
            e = OrderedDict()
            e["input"] = D.pack_out(name, list(grad_outs), "input")
            # grads of the forward inputs, in the positional-argument layout (None for non-tensors)
            per_arg = []
            for pos in box["arg_slots"]:
                per_arg.append(grads[pos] if pos is not None else None)
            e["output"] = D.pack_out(name, per_arg, "output")
            D.data[name] = e
            D.add_stack(name, box["stack"])
            if D.modules and box["parent"] is not None:
                D.construct[name] = box["parent"].replace(".forward.", ".backward.")
        return (None,) + tuple(grads)


def api(prefix, api_name, func, *args, **kwargs):
    """Call func(*args, **kwargs); when a Dumper with an API level is active, record it."""
    D = CUR
    if D is None or not D.apis or _IN_API[0]:
        return func(*args, **kwargs)
    key = f"{prefix}.{api_name}"
    idx = D.counts[key]
    D.counts[key] += 1
    name = f"{key}.{idx}"
    fwd = name + ".forward"
    e = OrderedDict()
    e["input_args"] = D.pack_args(fwd, args)
    e["input_kwargs"] = D.pack_kwargs(fwd, kwargs)
    D.data[fwd] = e
    stack = _stack_lines()
    D.add_stack(fwd, stack)
    if D.modules:
        D.construct[fwd] = D.parent()

    # tensors of the positional args go through the autograd node (kwargs tensors are not used here)
    tensors, slots = [], []
    for a in args:
        if isinstance(a, torch.Tensor):
            slots.append(len(tensors))
            tensors.append(a)
        else:
            slots.append(None)

    def call(inner):
        it = iter(inner)
        real = [next(it) if isinstance(a, torch.Tensor) else a for a in args]
        _IN_API[0] = True
        try:
            return func(*real, **kwargs)
        finally:
            _IN_API[0] = False

    box = {"call": call, "name": name, "dumper": D, "arg_slots": slots, "stack": stack, "parent": D.parent()}
    if any(t.requires_grad for t in tensors) and torch.is_grad_enabled():
        out = _ApiFn.apply(box, *tensors)
    else:
        out = call(tensors)
    e["output"] = D.pack_out(fwd, out)
    return out


# functional APIs called from inside nn modules: patched while dumping
_PATCH = ["linear", "layer_norm", "embedding", "gelu", "dropout", "softmax", "cross_entropy"]
_ORIG = {n: getattr(F, n) for n in _PATCH}


def _make_wrapper(n):
    orig = _ORIG[n]

    def wrapper(*a, **k):
        return api("Functional", n, orig, *a, **k)
    return wrapper


def patch_functional(on):
    for n in _PATCH:
        setattr(F, n, _make_wrapper(n) if on else _ORIG[n])


def install_module_hooks(model):
    handles = []
    for path, mod in model.named_modules():
        if path == "" or isinstance(mod, nn.ModuleList):
            continue
        cls = type(mod).__name__

        def _pre(m, args, path=path, cls=cls):
            D = CUR
            if D is None or not D.modules:
                return
            idx = D.mod_counts[path]
            D.mod_counts[path] += 1
            name = f"Module.{path}.{cls}.forward.{idx}"
            e = OrderedDict()
            e["input_args"] = D.pack_args(name, args)
            e["input_kwargs"] = OrderedDict()
            D.data[name] = e
            D.add_stack(name, _stack_lines())
            D.construct[name] = D.parent()
            D.mod_stack.append(name)
            m._td_fwd_name = name

        def _post(m, args, out, cls=cls):
            D = CUR
            if D is None or not D.modules:
                return
            name = D.mod_stack.pop()
            e = D.data[name]
            e["output"] = D.pack_out(name, out)
            params = OrderedDict((pn, p) for pn, p in m.named_parameters(recurse=False))
            if params:
                e["parameters"] = OrderedDict(
                    (pn, D.tensor_leaf(p, f"{name}.parameters.{pn}", f"{name}.parameters.{pn}"))
                    for pn, p in params.items())

        def _bwd(m, grad_input, grad_output, path=path, cls=cls):
            D = CUR
            if D is None or not D.modules or not D.backward:
                return
            fname = m._td_fwd_name
            idx = fname.rsplit(".", 1)[1]
            name = f"Module.{path}.{cls}.backward.{idx}"
            e = OrderedDict()
            e["input"] = D.pack_out(name, list(grad_output), "input")
            e["output"] = D.pack_out(name, list(grad_input), "output")
            D.data[name] = e
            D.add_stack(name, [])
            parent = D.construct.get(fname)
            D.construct[name] = parent.replace(".forward.", ".backward.") if parent else None

        handles.append(mod.register_forward_pre_hook(_pre))
        handles.append(mod.register_forward_hook(_post))
        handles.append(mod.register_full_backward_hook(_bwd))
        # parameters_grad.{n}: written when the last direct parameter of the module has its grad
        params = list(mod.named_parameters(recurse=False))
        for p in [p for _, p in params]:
            def _ph(g, p=p, m=mod, params=params, path=path, cls=cls):
                D = CUR
                if D is None or not D.modules or not D.backward:
                    return
                D.pending_pgrad[id(p)] = g.detach().clone()
                if all(id(q) in D.pending_pgrad for _, q in params):
                    idx = m._td_fwd_name.rsplit(".", 1)[1]
                    pg = f"Module.{path}.{cls}.parameters_grad.{idx}"
                    pe = OrderedDict()
                    for pn, q in params:
                        pe[pn] = [D.tensor_leaf(D.pending_pgrad.pop(id(q)), f"{pg}.{pn}", f"{pg}.{pn}")]
                    D.data[pg] = pe
            handles.append(p.register_hook(_ph))
    return handles


# =============================================================================================
# Model


class Variant:
    """What differs on one side."""

    def __init__(self, noise_module=None, noise_rel=1e-2, softmax_bf16_layer=None, ids_int32=False,
                 fused_gelu_layer=None, extra_contiguous_layer=None, bench_clone_layer=None,
                 aux_inf_layer=None, aux_zero_positions=()):
        self.noise_module = noise_module
        self.noise_rel = noise_rel
        self.softmax_bf16_layer = softmax_bf16_layer
        self.ids_int32 = ids_int32
        self.fused_gelu_layer = fused_gelu_layer
        self.extra_contiguous_layer = extra_contiguous_layer
        self.bench_clone_layer = bench_clone_layer
        self.aux_inf_layer = aux_inf_layer
        self.aux_zero_positions = aux_zero_positions


V = Variant()  # current side's variant (module code reads it)


def npu_fast_gelu(x):
    """Stand-in for a fused NPU kernel: same math as F.gelu."""
    return _ORIG["gelu"](x)


class Attention(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.o = nn.Linear(DIM, DIM)

    def forward(self, x, mask):
        q, k, v = api("Tensor", "chunk", torch.Tensor.chunk, self.qkv(x), 3, -1)
        kt = api("Tensor", "transpose", torch.Tensor.transpose, k, -2, -1)
        if V.extra_contiguous_layer == self.layer:
            kt = api("Tensor", "contiguous", torch.Tensor.contiguous, kt)
        scores = api("Torch", "matmul", torch.matmul, q, kt)
        scores = api("Tensor", "__mul__", torch.Tensor.__mul__, scores, 1.0 / math.sqrt(DIM))
        scores = api("Tensor", "masked_fill", torch.Tensor.masked_fill, scores, mask=mask, value=float("-inf"))
        if V.softmax_bf16_layer == self.layer:
            p = F.softmax(scores, dim=-1, dtype=torch.bfloat16)
            p = api("Tensor", "to", torch.Tensor.to, p, scores.dtype)
        else:
            p = F.softmax(scores, dim=-1, dtype=None)
        ctx = api("Torch", "matmul", torch.matmul, p, v)
        return self.o(ctx)


class MLP(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.fc1 = nn.Linear(DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, DIM)

    def forward(self, x):
        h = self.fc1(x)
        if V.fused_gelu_layer == self.layer:
            h = api("NPU", "npu_fast_gelu", npu_fast_gelu, h)
        else:
            h = F.gelu(h, approximate="none")
        if V.bench_clone_layer == self.layer:
            h = api("Tensor", "clone", torch.Tensor.clone, h)
        h = F.dropout(h, p=0.0, training=self.training, inplace=False)
        return self.fc2(h)


class Layer(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i
        self.norm1 = nn.LayerNorm(DIM)
        self.attn = Attention(i)
        self.norm2 = nn.LayerNorm(DIM)
        self.mlp = MLP(i)

    def forward(self, x, mask):
        h = api("Tensor", "__add__", torch.Tensor.__add__, x, self.attn(self.norm1(x), mask))
        if V.aux_inf_layer == self.i:
            # side computation whose result is not used: inf where the denominator is 0
            den = torch.ones_like(h)
            for pos in V.aux_zero_positions:
                den[pos] = 0.0
            with torch.no_grad():
                api("Tensor", "__truediv__", torch.Tensor.__truediv__, h.detach(), den)
        return api("Tensor", "__add__", torch.Tensor.__add__, h, self.mlp(self.norm2(h)))


class TinyTransformer(nn.Module):
    def __init__(self, n_layers):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList([Layer(i) for i in range(n_layers)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids, mask):
        x = self.embed(ids)
        x = api("Tensor", "__getitem__", torch.Tensor.__getitem__, x, (slice(None), slice(0, SEQ, None)))
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.norm(x))


def make_model(n_layers, dtype, seed=0):
    torch.manual_seed(seed)
    m = TinyTransformer(n_layers)
    with torch.no_grad():  # well-conditioned, non-trivial LayerNorm affine params
        for mod in m.modules():
            if isinstance(mod, nn.LayerNorm):
                mod.weight.uniform_(0.8, 1.2)
                mod.bias.uniform_(-0.1, 0.1)
    return m.to(dtype)


def noise_hook(path, rel, seed):
    def hook(mod, args, out):
        g = torch.Generator().manual_seed(seed)
        n = torch.randn(out.shape, generator=g) * rel
        return (out.float() * (1 + n)).to(out.dtype)
    return hook


def run_step(model, dumper, ids, targets, variant):
    global CUR, V
    V = variant
    mask = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), diagonal=1)
    if variant.ids_int32:
        ids = ids.to(torch.int32)
    CUR = dumper
    patch_functional(True)
    try:
        model.zero_grad(set_to_none=True)
        logits = model(ids, mask)
        flat = api("Tensor", "view", torch.Tensor.view, logits, -1, VOCAB)
        loss = F.cross_entropy(flat, targets.view(-1))
        loss.backward()
    finally:
        patch_functional(False)
        CUR = None
        V = Variant()
    assert not dumper.pending_pgrad, "unconsumed parameter grads"
    dumper.write()
    return loss.detach()


# =============================================================================================
# Expected facts (computed from the captured tensors, in Python, independently of the C++ code)


def flatten_items(entry_name, entry, tensor_mode):
    """msprobe-compare.md 5.1 flattening: returns item names in table order."""
    ins, params, outs, pgrads = [], [], [], []

    def walk(v, name, dst, data_name_ok=True):
        if v is None:
            dst.append(name)
        elif isinstance(v, dict) and isinstance(v.get("type"), str):
            if tensor_mode and "data_name" in v:
                dst.append(v["data_name"][:-3])
            else:
                dst.append(name)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{name}.{i}", dst)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{name}.{k}", dst)

    if ".parameters_grad" in entry_name:
        for pn, lst in entry.items():
            for x in lst:  # list index not appended
                walk(x, f"{entry_name}.{pn}", pgrads)
        return pgrads
    for k in ("input_args", "input_kwargs", "input"):
        if k in entry:
            walk(entry[k], f"{entry_name}.input", ins)
    if "output" in entry:
        walk(entry["output"], f"{entry_name}.output", outs)
    if "parameters" in entry:
        walk(entry["parameters"], f"{entry_name}.parameters", params)
    return ins + params + outs


def entry_of_item(item):
    for key in (".forward", ".backward", ".parameters_grad"):
        if key in item:
            head, tail = item.split(key, 1)
            if head.startswith("Module.") and key != ".parameters_grad":
                return head + key + "." + tail.split(".")[1]
            if key == ".parameters_grad":
                return head + key + "." + tail.split(".")[1]
            return head + key
    raise ValueError(item)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and (
        torch.equal(a, b) or (a.is_floating_point() and bool(((a == b) | (a.isnan() & b.isnan())).all())))


def has_inf(t):
    return t.is_floating_point() and bool(torch.isinf(t).any())


def _cap(lst, n=40):
    """Long lists are cut to n items; the full length is given next to them."""
    return lst if len(lst) <= n else lst[:n] + [f"... ({len(lst) - n} more)"]


def compare_facts(dn, db):
    """dn / db: Dumpers of one step/rank. Returns the expected facts. 'Divergent' means: the bench has
    the same item name and the two tensors are not bitwise identical (or differ in dtype/shape)."""
    # NPU table order (5.1 flattening of dump.json entries), restricted to tensor items
    n_items = [i for e, v in dn.data.items() for i in flatten_items(e, v, False) if i in dn.tensors]
    assert len(n_items) == len(dn.tensors), (len(n_items), len(dn.tensors))
    b_items = set(db.tensors.keys())
    n_entries = list(dn.data.keys())
    b_entries = list(db.data.keys())
    facts = OrderedDict()
    facts["npu_entries"] = len(n_entries)
    facts["bench_entries"] = len(b_entries)
    facts["npu_tensor_items"] = len(n_items)
    facts["bench_tensor_items"] = len(b_items)
    facts["npu_only_entries"] = [e for e in n_entries if e not in db.data]
    facts["bench_only_entries"] = [e for e in b_entries if e not in dn.data]
    facts["npu_only_tensor_items"] = _cap([i for i in n_items if i not in b_items])
    facts["bench_only_tensor_items"] = _cap([i for i in db.tensors if i not in dn.tensors])
    diverged, dtype_diff, inf_match, inf_mismatch = [], [], [], []
    for i in n_items:
        if i not in b_items:
            continue
        a, b = dn.tensors[i], db.tensors[i]
        if a.dtype != b.dtype:
            dtype_diff.append(OrderedDict(item=i, npu=str(a.dtype), bench=str(b.dtype)))
        if not same(a, b):
            diverged.append(i)
        if has_inf(a) or has_inf(b):
            if a.shape == b.shape and torch.equal(torch.isinf(a), torch.isinf(b)) and \
                    torch.equal(torch.isnan(a), torch.isnan(b)) and torch.equal(a[a.isinf()], b[b.isinf()]):
                inf_match.append(i)
            else:
                inf_mismatch.append(i)
    dset = set(diverged)
    facts["first_divergent_item"] = diverged[0] if diverged else None
    facts["first_divergent_entry"] = entry_of_item(diverged[0]) if diverged else None
    mods = [i for i in diverged if i.startswith("Module.")]
    apis = [i for i in diverged if not i.startswith("Module.")]
    facts["first_divergent_module"] = entry_of_item(mods[0]) if mods else None
    facts["first_divergent_api"] = entry_of_item(apis[0]) if apis else None
    # origin: a forward entry whose inputs/parameters all match but some output differs;
    # for modules keep the deepest (no descendant module is itself an origin)
    origins = []
    for e, v in dn.data.items():
        if ".forward" not in e:
            continue
        items = [i for i in flatten_items(e, v, False) if i in dn.tensors]
        ins = [i for i in items if ".output." not in i]
        outs = [i for i in items if ".output." in i]
        if all(i in b_items and i not in dset for i in ins) and any(i in dset for i in outs):
            origins.append(e)
    mod_origins = [e for e in origins if e.startswith("Module.")]

    def ancestors(e):
        p = dn.construct.get(e)
        while p:
            yield p
            p = dn.construct.get(p)
    covered = {a for e in mod_origins for a in ancestors(e)}
    facts["divergence_origin_module"] = next((e for e in mod_origins if e not in covered), None)
    facts["divergence_origin_api"] = next((e for e in origins if not e.startswith("Module.")), None)
    facts["diverged_tensor_items"] = len(diverged)
    facts["diverged_tensor_item_list"] = _cap(diverged, 20)
    facts["dtype_mismatch_count"] = len(dtype_diff)
    facts["dtype_mismatch_items"] = _cap(dtype_diff, 12)
    facts["inf_matching_position_items"] = _cap(inf_match)
    facts["inf_mismatching_position_items"] = _cap(inf_mismatch)
    return facts


def flatten_examples(dn, names):
    ex = OrderedDict()
    for n in names:
        if n in dn.data:
            ex[n] = OrderedDict(statistics_mode=flatten_items(n, dn.data[n], False),
                                tensor_mode=flatten_items(n, dn.data[n], True))
    return ex


# =============================================================================================
# Scenarios

FLATTEN_EXAMPLES = ["Functional.softmax.0.forward", "Tensor.masked_fill.0.forward", "Functional.layer_norm.0.forward",
                    "Functional.dropout.0.forward",
                    "Tensor.__getitem__.0.forward", "Module.layers.0.mlp.fc1.Linear.forward.0",
                    "Module.layers.0.norm1.LayerNorm.parameters_grad.0", "Functional.linear.0.backward",
                    "Functional.embedding.0.backward", "Functional.cross_entropy.0.forward"]


def tokens(seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    tg = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    return ids, tg


def run_pair(root, fake_root, task, level, dtype_n, dtype_b, var_n, var_b, md5=False, n_layers=2, steps=(0,),
             ranks=(None,), noise_steps=None, noise_ranks=None, data_mode="all"):
    """Dump both sides; returns {(step, rank): facts}."""
    facts = OrderedDict()
    sides = OrderedDict([("npu", (dtype_n, var_n)), ("bench", (dtype_b, var_b))])
    models = {}
    opts = {}
    for side, (dt, var) in sides.items():
        models[side] = make_model(n_layers, dt)
        opts[side] = torch.optim.SGD(models[side].parameters(), lr=0.5)
    for step in steps:
        for r in ranks:
            dumpers = {}
            for side, (dt, var) in sides.items():
                model = models[side]
                handles = []
                v = var
                if var.noise_module and (noise_steps is None or step in noise_steps) and \
                        (noise_ranks is None or r in noise_ranks):
                    mod = dict(model.named_modules())[var.noise_module]
                    handles.append(mod.register_forward_hook(noise_hook(var.noise_module, var.noise_rel, 99)))
                else:
                    v = Variant(**{k: getattr(var, k) for k in vars(var) if k != "noise_module"})
                handles += install_module_hooks(model)
                rdir = "rank" if r is None else f"rank{r}"
                sub = f"{side}/step{step}/{rdir}"
                d = Dumper(root / sub, task, level, md5, fake_abs=f"{fake_root}/{sub}", data_mode=data_mode)
                ids, tg = tokens(1000 + step * 10 + (r or 0))
                run_step(model, d, ids, tg, v)
                for h in handles:
                    h.remove()
                dumpers[side] = d
            f = compare_facts(dumpers["npu"], dumpers["bench"])
            f["flatten_examples"] = flatten_examples(dumpers["npu"], FLATTEN_EXAMPLES)
            facts[f"step{step}/{'rank' if r is None else f'rank{r}'}"] = f
        for side in sides:  # identical optimizer step on both sides (grads from the last rank)
            opts[side].step()
    return facts


SCENARIOS = OrderedDict()


def scenario(name, desc, **kw):
    SCENARIOS[name] = (desc, kw)


scenario("mix_fp32_tensor_perturbed",
         "level mix, fp32 both sides, tensor mode (.pt files), forward and backward, 2 layers. NPU side: "
         "output of layers.1.mlp multiplied by (1 + 1e-2*N(0,1)). Everything before it is bitwise identical. "
         "In NPU table order the first divergent row belongs to Module.layers.1.Layer.forward.0 (the parent "
         "module's entry is written before its children); the origin (deepest module whose inputs match and "
         "output differs) is Module.layers.1.mlp.MLP.forward.0; the first divergent API is the residual "
         "Tensor.__add__ that consumes it. Also: non-tensor leaves (int/float/bool/str/None/slice/"
         "torch.dtype), parameters and parameters_grad entries, -inf at matching positions (causal-mask "
         "masked_fill), a 0-d loss (Functional.cross_entropy output).",
         task="tensor", level="mix", dtype_n=torch.float32, dtype_b=torch.float32,
         var_n=Variant(noise_module="layers.1.mlp"), var_b=Variant())
scenario("L0_bf16_tensor_perturbed",
         "level L0 (modules only), bf16 model on both sides, tensor mode (bf16 .pt files, stats in bf16), "
         "forward only (msprobe data_mode [forward]), 2 layers, same perturbation as mix_fp32_tensor_perturbed.",
         task="tensor", level="L0", dtype_n=torch.bfloat16, dtype_b=torch.bfloat16, data_mode="forward",
         var_n=Variant(noise_module="layers.1.mlp"), var_b=Variant())
scenario("L1_bf16_vs_fp32_tensor",
         "level L1, NPU bf16 model vs bench fp32 model (same fp32 initial weights), tensor mode, forward only, "
         "1 layer, no injected error: every float tensor's dtype differs (torch.bfloat16 vs torch.float32: "
         "same float family, so rows stay matched) and values differ by bf16 rounding; int64 ids and the bool "
         "mask match exactly.",
         task="tensor", level="L1", dtype_n=torch.bfloat16, dtype_b=torch.float32, data_mode="forward",
         n_layers=1, var_n=Variant(), var_b=Variant())
scenario("L0_fp32_statistics_perturbed",
         "level L0 (modules only), statistics mode (no files), forward and backward, 2 layers, perturbation "
         "as in mix_fp32_tensor_perturbed.",
         task="statistics", level="L0", dtype_n=torch.float32, dtype_b=torch.float32,
         var_n=Variant(noise_module="layers.1.mlp"), var_b=Variant())
scenario("L1_fp32_md5_perturbed",
         "level L1 (APIs only), md5 mode (task statistics + md5 = CRC-32 of the tensor bytes), forward and "
         "backward, 2 layers, rank directory named 'rank' (non-distributed). The first divergent API is the "
         "residual Tensor.__add__ after layers.1.mlp.",
         task="statistics", level="L1", md5=True, dtype_n=torch.float32, dtype_b=torch.float32,
         var_n=Variant(noise_module="layers.1.mlp"), var_b=Variant(), ranks=(None,))
scenario("mix_fp32_statistics_dtype_change",
         "dtype changes on the NPU side, 1 layer, forward and backward: token ids are int32 (bench int64) so "
         "Functional.embedding input.0 is int32 vs int64 (an unmatched row by msprobe's dtype gate); the "
         "softmax runs with dtype=torch.bfloat16 (output bfloat16 vs float32, same float family: matched, "
         "DType error) followed by an NPU-only Tensor.to back to float32.",
         task="statistics", level="mix", dtype_n=torch.float32, dtype_b=torch.float32, n_layers=1,
         var_n=Variant(ids_int32=True, softmax_bf16_layer=0), var_b=Variant())
scenario("mix_fp32_statistics_api_mismatch",
         "APIs present on one side only, 1 layer, statistics mode, forward and backward. NPU: Tensor.contiguous "
         "after the key transpose and a fused NPU.npu_fast_gelu instead of Functional.gelu (so the bench's "
         "Functional.gelu.0 is bench-only); bench: an extra Tensor.clone in the MLP. Numerically both sides "
         "are identical (no divergent tensor).",
         task="statistics", level="mix", dtype_n=torch.float32, dtype_b=torch.float32, n_layers=1,
         var_n=Variant(extra_contiguous_layer=0, fused_gelu_layer=0), var_b=Variant(bench_clone_layer=0))
scenario("L1_fp32_tensor_inf",
         "inf handling, level L1, tensor mode, forward only, 1 layer. Both sides: -inf from the "
         "causal-mask masked_fill at identical positions (matching). Layer 0 also runs an unused "
         "Tensor.__truediv__ of the residual by a tensor with zeros at DIFFERENT positions on each side: "
         "+/-inf at mismatching positions.",
         task="tensor", level="L1", dtype_n=torch.float32, dtype_b=torch.float32, n_layers=1, data_mode="forward",
         var_n=Variant(aux_inf_layer=0, aux_zero_positions=[(0, 0, 1), (0, 2, 3)]),
         var_b=Variant(aux_inf_layer=0, aux_zero_positions=[(0, 0, 1), (0, 3, 5)]))
scenario("multirank_fp32_statistics",
         "multi-rank layout step0/rank0 + step0/rank1 (different tokens per rank), L0, 1 layer. rank0 is "
         "identical on both sides; on rank1 the NPU output of layers.0.mlp is perturbed.",
         task="statistics", level="L0", dtype_n=torch.float32, dtype_b=torch.float32, n_layers=1,
         var_n=Variant(noise_module="layers.0.mlp"), var_b=Variant(), ranks=(0, 1), noise_ranks=(1,))
scenario("multistep_fp32_statistics",
         "two steps, step0 and step1 (one identical SGD update between them), L0, 1 layer. step0 is bitwise "
         "identical on both sides; the divergence starts at step1 (NPU output of layers.0.attn perturbed).",
         task="statistics", level="L0", dtype_n=torch.float32, dtype_b=torch.float32, n_layers=1,
         var_n=Variant(noise_module="layers.0.attn"), var_b=Variant(), steps=(0, 1), ranks=(0,),
         noise_steps=(1,))


def verify_dump_dir(d):
    """Reload one step/rank directory: every data_name exists, every .pt is referenced once, and the
    dtype / shape / stats / md5 in dump.json match the tensor read back with torch.load."""
    dump = json.loads((d / "dump.json").read_text())
    files = set(p.name for p in (d / "dump_tensor_data").glob("*.pt")) if (d / "dump_tensor_data").exists() else set()
    seen = set()
    n = 0

    def check(leaf, name):
        nonlocal n
        if leaf is None:
            return
        if isinstance(leaf, list):
            for i, x in enumerate(leaf):
                check(x, name)
            return
        if isinstance(leaf, dict) and not isinstance(leaf.get("type"), str):
            for k, x in leaf.items():
                check(x, name)
            return
        if leaf["type"] != "torch.Tensor":
            return
        n += 1
        if dump["task"] == "tensor":
            dn = leaf["data_name"]
            assert dn in files and dn not in seen, dn
            seen.add(dn)
            t = torch.load(d / "dump_tensor_data" / dn)
            assert str(t.dtype) == leaf["dtype"] and list(t.shape) == leaf["shape"], dn
            assert not t.requires_grad and t.is_contiguous() and t.storage_offset() == 0
            st = tensor_stats(t)
            for k in ("Max", "Min", "Mean", "Norm"):
                a, b = st[k], leaf[k]
                if k in ("Max", "Min") or a is None or b is None:
                    ok = a == b
                else:  # mean/norm of a non-contiguous view may be summed in another order
                    tol = 1e-5 if leaf["dtype"] == "torch.float32" else 2e-2
                    scale = max(abs(a), abs(b), abs(leaf["Max"]), abs(leaf["Min"]))
                    ok = a == b or math.isnan(a) and math.isnan(b) or abs(a - b) <= tol * scale
                assert ok, (dn, k, a, b)
            if "md5" in leaf:
                assert leaf["md5"] == crc32_hex(t)
        else:
            assert "data_name" not in leaf
    for name, e in dump["data"].items():
        check(e, name)
    assert seen == files, files - seen
    return n


def dir_size(p):
    return sum(f.stat().st_size for f in Path(p).rglob("*") if f.is_file())


def clean(d):
    """Remove generated content, keep the hand-written README.md."""
    d.mkdir(parents=True, exist_ok=True)
    for p in d.iterdir():
        if p.name == "README.md":
            continue
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def main():
    out = HERE / "dumps"
    clean(out)
    summary = OrderedDict()
    for name, (desc, kw) in SCENARIOS.items():
        kw = dict(kw)
        kw.setdefault("ranks", (0,))
        root = out / name
        facts = run_pair(root, f"/home/user/msprobe_dump/{name}", **kw)
        exp = OrderedDict()
        exp["scenario"] = name
        exp["description"] = desc
        exp["task"] = kw["task"]
        exp["level"] = kw["level"]
        exp["md5"] = kw.get("md5", False)
        exp["data_mode"] = kw.get("data_mode", "all")
        exp["layers"] = kw.get("n_layers", 2)
        exp["npu_dtype"] = str(kw["dtype_n"])
        exp["bench_dtype"] = str(kw["dtype_b"])
        exp["per_step_rank"] = facts
        (root / "expected.json").write_text(json.dumps(exp, indent=1))
        summary[name] = dir_size(root)
        print(f"{name}: {summary[name]} bytes; " + "; ".join(
            f"{k}: first={v['first_divergent_entry']} origin={v['divergence_origin_module']} "
            f"api={v['first_divergent_api']} npu_only={len(v['npu_only_entries'])} "
            f"bench_only={len(v['bench_only_entries'])} infm={len(v['inf_matching_position_items'])} "
            f"infmm={len(v['inf_mismatching_position_items'])}" for k, v in facts.items()))

    # demo pair for the README: tensor mode, mix, 3 layers, divergence from layers.2
    demo = REPO / "examples" / "data" / "demo_dump"
    clean(demo)
    facts = run_pair(demo, "/home/user/msprobe_dump/demo", task="tensor", level="L0",
                     dtype_n=torch.float32, dtype_b=torch.float32,
                     var_n=Variant(noise_module="layers.2.attn", noise_rel=3e-2), var_b=Variant(), n_layers=3,
                     ranks=(0,))
    exp = OrderedDict(scenario="demo_dump",
                      description="README demo: 3-layer tiny transformer, L0 (modules), tensor mode, forward and "
                                  "backward; the NPU "
                                  "output of layers.2.attn is perturbed by 3e-2 relative noise.",
                      per_step_rank=facts)
    (demo / "expected.json").write_text(json.dumps(exp, indent=1))
    print(f"demo_dump: {dir_size(demo)} bytes; first={facts['step0/rank0']['first_divergent_entry']}")
    nt = 0
    for base in (out, demo):
        for dj in sorted(base.rglob("dump.json")):
            nt += verify_dump_dir(dj.parent)
    print(f"verified {nt} tensor leaves against their files / recomputed stats")
    print(f"total dumps: {dir_size(out)} bytes, demo: {dir_size(demo)} bytes")


if __name__ == "__main__":
    main()
