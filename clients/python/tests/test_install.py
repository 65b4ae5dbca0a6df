"""`pip install clients/python` as docs/client-python.md gives it (a virtual environment that sees the system's
packages, nothing downloaded): both packages are installed, and the checkout is left as it was, with no build/ or
*.egg-info beside the sources."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCES = Path(__file__).resolve().parent.parent


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if "__pycache__" not in p.parts}


def test_pip_install_leaves_the_checkout_as_it_was(tmp_path):
    before = tree(SOURCES)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", str(SOURCES)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr
    assert tree(SOURCES) - before == set()

    where = subprocess.run(
        [str(python), "-c", "import federa_client as c, federa_algorithm_tools as t; print(c.__file__, t.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout.split()
    assert len(where) == 2
    for path in where:
        assert Path(path).is_relative_to(venv), path
