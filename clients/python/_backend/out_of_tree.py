"""The package's build backend: setuptools, run on a copy of the sources in a temporary folder.

setuptools writes ``build/`` and ``<name>.egg-info/`` beside the sources it builds, and pip builds in the source
folder, so a plain ``pip install clients/python`` would leave both in the checkout (and two installs at once would
share them). Building a copy keeps the checkout as it was; the wheel, the sdist and the metadata still go where the
installer asks. An editable install is the exception: it must point at the checkout itself, so it runs in place.
"""
import contextlib
import os
import shutil
import tempfile

from setuptools import build_meta as _setuptools

# What a build or a test run may have left in a checkout; never copied into a build.
_LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")


@contextlib.contextmanager
def _in_a_copy():
    sources = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="federa-python-build-") as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(sources, copy, ignore=_LEFTOVERS)
        os.chdir(copy)
        try:
            yield
        finally:
            os.chdir(sources)


def _out_of_tree(hook):
    def run(*args, **kwargs):
        # The folders the installer names are absolute by PEP 517, but made so in case: the hook runs elsewhere.
        args = [os.path.abspath(a) if isinstance(a, str) else a for a in args]
        kwargs = {k: os.path.abspath(v) if isinstance(v, str) else v for k, v in kwargs.items()}
        with _in_a_copy():
            return hook(*args, **kwargs)

    run.__name__ = hook.__name__
    run.__doc__ = hook.__doc__
    return run


get_requires_for_build_wheel = _out_of_tree(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_sdist = _out_of_tree(_setuptools.get_requires_for_build_sdist)
prepare_metadata_for_build_wheel = _out_of_tree(_setuptools.prepare_metadata_for_build_wheel)
build_wheel = _out_of_tree(_setuptools.build_wheel)
build_sdist = _out_of_tree(_setuptools.build_sdist)

if hasattr(_setuptools, "build_editable"):
    get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
    prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
    build_editable = _setuptools.build_editable
