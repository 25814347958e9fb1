"""The package itself: stubs and docstrings cover the public names, and
`cmake --install` puts an importable package into site-packages."""
import ast
import os
import subprocess
import sys

import pytest
import tensordiff as td

STUB = os.path.join(os.path.dirname(td.__file__), "__init__.pyi")


def test_stub_declares_every_public_name_and_everything_has_a_docstring():
    tree = ast.parse(open(STUB).read())
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    declared |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    for name in td.__all__:
        assert name in declared, name
        assert getattr(td, name).__doc__, name
    for cls in (td.Comparison, td.Summary, td.Verdict):
        stub = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
        fields = {n.target.id for n in stub.body if isinstance(n, ast.AnnAssign)}
        public = {k for k in dir(cls) if not k.startswith("_") and k != "to_dict"}
        assert public == fields, cls.__name__


def test_cmake_install_gives_an_importable_package(tmp_path):
    build = os.environ.get("TD_BUILD_DIR")
    dest = os.environ.get("TD_PYTHON_INSTALL_DIR", "")
    if not build or os.path.isabs(dest):
        pytest.skip("needs the build folder and a site-packages folder under the install prefix")
    subprocess.run(["cmake", "--install", build, "--prefix", str(tmp_path), "--component", "python"], check=True,
                   stdout=subprocess.DEVNULL)
    site = tmp_path / dest
    assert (site / "tensordiff" / "__init__.pyi").exists() and (site / "tensordiff" / "py.typed").exists()
    out = subprocess.run([sys.executable, "-c", "import tensordiff as td; print(td.__file__, td.compare([1.0], [1.0]).numel)"],
                         env={**os.environ, "PYTHONPATH": str(site)}, check=True, capture_output=True, text=True)
    assert out.stdout.startswith(str(site)) and out.stdout.split()[-1] == "1"
