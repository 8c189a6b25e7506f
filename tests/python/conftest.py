"""Shared by the tests of the Python package (run by ctest as `python_package`, and
`python_package_threads_and_signals` alone after the C++ tests: python/CMakeLists.txt). The build tree's package must be importable (PYTHONPATH=build/python);
DALEMBERT_EXECUTABLE names the command line the package is compared with."""
import os
import pathlib
import shutil

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("DALEMBERT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


@pytest.fixture(scope="session")
def cli():
    """The path of the `dalembert` executable of the same build."""
    path = os.environ.get("DALEMBERT_EXECUTABLE") or shutil.which("dalembert")
    if not path:
        pytest.fail("set DALEMBERT_EXECUTABLE to the build's dalembert (ctest does)")
    return path
