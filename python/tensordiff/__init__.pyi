"""Type stubs of the tensordiff Python module (tensordiff._tensordiff + the package)."""
from os import PathLike
from typing import Any, Callable, Iterable, Literal, Optional, Sequence, Union

import numpy

__version__: str

# numpy arrays (any dtype tensordiff knows, strides, byte order; ml_dtypes bfloat16/float8 too),
# objects with __dlpack__ (torch CPU tensors incl. bfloat16 and float8_e4m3fn/float8_e5m2, DLPack 1.0
# float8 type codes 10/12), buffers, lists of numbers.
TensorLike = Any
MetricName = Literal["cosine", "euclidean_distance", "max_abs_err", "max_rel_err", "one_thousandth_ratio",
                     "five_thousandths_ratio", "mean_abs_err", "mean_rel_err", "rmse", "statistics"]
Index = tuple[int, ...]


class FormatError(ValueError):
    """A malformed, truncated or refused file."""


class Summary:
    """Statistics of one tensor (numpy semantics)."""
    dtype: str
    shape: Index
    numel: int
    min: float
    max: float
    mean: float
    sum: float
    l2norm: float
    finite_min: float
    finite_max: float
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int
    inf_count: int
    has_nan_or_inf: bool
    overflows_float16: bool
    overflows_bfloat16: bool
    def to_dict(self) -> dict[str, Any]: ...


class Comparison:
    """Everything compare() measured; a metric is None when msprobe's rules give
    no number (metric_status says why) or when metrics= left it out."""
    validation: Literal["ok", "empty", "shape_unmatched", "zero_dim", "nonfinite_mismatch"]
    messages: list[str]
    numel: int
    cosine: Optional[float]
    euclidean_distance: Optional[float]
    max_abs_err: Optional[float]
    max_rel_err: Optional[float]
    one_thousandth_ratio: Optional[float]
    five_thousandths_ratio: Optional[float]
    mean_abs_err: Optional[float]
    mean_rel_err: Optional[float]
    rmse: Optional[float]
    metric_status: dict[str, str]
    max_abs_index: Optional[Index]
    max_rel_index: Optional[Index]
    max_abs_flat_index: Optional[int]
    actual_at_max_abs: float
    expected_at_max_abs: float
    actual_at_max_rel: float
    expected_at_max_rel: float
    nonfinite_positions_match: bool
    nonfinite_mismatch_count: int
    first_nonfinite_mismatch: Optional[Index]
    dtypes_match: bool
    zero_bench_eps: float
    actual: Optional[Summary]
    expected: Optional[Summary]
    def to_dict(self) -> dict[str, Any]: ...


class Verdict:
    """What a closeness standard decided; truthy when it passed."""
    passed: bool
    level: Literal["pass", "warning", "error", "not judged"]
    standard: str
    description: str
    numel: int
    mismatched: int
    cosine: float
    reasons: list[str]
    greatest_abs: Optional[dict[str, Any]]
    greatest_rel: Optional[dict[str, Any]]
    worst: list[dict[str, Any]]
    message: str
    def __bool__(self) -> bool: ...


def compare(actual: TensorLike, expected: TensorLike, *,
            metrics: Union[None, MetricName, Iterable[MetricName], str, Iterable[str]] = None, squeeze: bool = True, threads: int = 0) -> Comparison:
    """Every metric of two tensors in one fused pass, without copying; the GIL is released.
    `metrics` computes only the named ones ("statistics": the sides' summaries, else .actual and
    .expected are None), so a lean selection runs a lean pass. A name with a leading '-' drops one
    ("-mean_rel_err"); a list that begins with one starts from all."""
def summarize(tensor: TensorLike) -> Summary:
    """min, max, mean, sum, L2 norm, nan/inf counts and overflow flags of one tensor."""
def md5(tensor: TensorLike) -> str:
    """RFC 1321 MD5 of the elements in C order, little-endian."""
def crc32(tensor: TensorLike) -> str:
    """CRC-32 as 8 hex digits (msprobe's 'md5' column)."""
def check(actual: TensorLike, expected: TensorLike, *, standard: str = "torch", rtol: Optional[float] = None,
          atol: Optional[float] = None, worst: int = 5) -> Verdict:
    """The verdict of a named standard: torch, numpy, isclose, ulp[:N], polygraphy[:STAT], msprobe,
    precheck[:METHOD], bitwise."""
def assert_close(actual: TensorLike, expected: TensorLike, *, standard: str = "torch", rtol: Optional[float] = None,
                 atol: Optional[float] = None, msg: Optional[str] = None) -> None:
    """Raises AssertionError with torch.testing's message unless actual is close to expected."""
def set_threads(threads: int) -> None:
    """Size of the library's thread pool (0 = hardware threads)."""
def load(path: Union[str, PathLike[str]], *, bf16: bool = False,
         float8: Optional[Literal["float8_e4m3fn", "float8_e5m2"]] = None) -> Any:
    """One tensor from .npy/.npz/.pt/.safetensors (PATH or PATH::KEY) or a dump item (DUMP::ITEM, DUMP a
    folder with dump.json): a read-only numpy array over the file's mapping, or a torch.bfloat16 tensor
    (a copy, through DLPack). float8_e4m3fn / float8_e5m2 tensors come as a torch.float8_* tensor
    (torch >= 2.1, a copy), else an ml_dtypes numpy array when ml_dtypes is importable, else
    TypeError naming load_bits() — never as uint8 numbers. bf16=True reads npy's '<V2' as bfloat16;
    float8= reads npy's '|V1' (how ml_dtypes saves float8) as that format."""
def load_bits(path: Union[str, PathLike[str]], *, bf16: bool = False,
              float8: Optional[Literal["float8_e4m3fn", "float8_e5m2"]] = None) -> tuple[numpy.ndarray, str]:
    """As load(), but returns (array, dtype name), with bfloat16 and float8 tensors as a read-only
    numpy array of their bits (uint16 / uint8) over the file's mapping: works with any numpy/torch."""
def ls(path: Union[str, PathLike[str]]) -> list[dict[str, Any]]:
    """The tensors of a file: path, dtype, shape, strides, byte order and storage metadata."""


class DumpResult:
    """compare_dumps()'s result."""
    mode: Literal["tensor", "statistics", "md5"]
    ranks: list[dict[str, Any]]
    rows: Any  # pandas.DataFrame when pandas is importable, else list[dict[str, Any]]
    records: list[dict[str, Any]]
    summary: dict[str, Any]
    first_divergence: Optional[dict[str, Any]]
    files: list[str]


def compare_dumps(npu: Union[str, PathLike[str]], bench: Union[str, PathLike[str]], *,
                  mode: Literal["auto", "tensor", "statistics", "md5"] = "auto",
                  compat: Literal["tensordiff", "msprobe"] = "tensordiff", fuzzy: bool = False,
                  data_map: Union[None, str, PathLike[str]] = None, cell_map: Union[None, bool, str] = None,
                  api_map: Union[None, bool, str] = None, layer_map: Union[None, str, PathLike[str]] = None,
                  legacy_result: bool = False, workers: int = 0, output: Union[None, str, PathLike[str]] = None,
                  html: bool = False, jsonl: bool = False,
                  progress: Optional[Callable[[int, int], Any]] = None) -> DumpResult:
    """Compares two msprobe dumps (or plain folders of tensor files) as `tensordiff compare` does."""
