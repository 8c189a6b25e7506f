"""Builds the Python package dalembert (pyproject.toml) with the project's CMake build.

The extension dalembert._core is the CMake target dalembert_python, built in a build directory of
its own (build/python-package) unless DALEMBERT_BUILD_DIR names an existing one to reuse (the test
command's, say). The wheel holds the extension, the pure-Python files of python/dalembert and the
package's data (the plotting script and the model files, data/). The version is the one of
CMakeLists.txt's project(VERSION), with the commit the build was made from (docs/decisions.md).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def version():
    text = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(dalembert VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("DALEMBERT_BUILD_DIR")
        build = Path(given).resolve() if given else SOURCE / "build" / "python-package"
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            "-DCMAKE_CXX_COMPILER=clang++", "-DDALEMBERT_BUILD_TESTS=OFF",
                            "-DPython3_EXECUTABLE=" + sys.executable], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "dalembert_python"], check=True)
        built = build / "python" / "dalembert"
        extension = next(built.glob("_core*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(extension, target)
        shutil.copytree(built / "data", target.parent / "data", dirs_exist_ok=True)


# setuptools' own files go under build/setuptools, not beside the sources or in CMake's build/
(SOURCE / "build" / "setuptools").mkdir(parents=True, exist_ok=True)
setup(version=version(), ext_modules=[Extension("dalembert._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      package_data={"dalembert": ["py.typed", "*.pyi"]},
      options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build/setuptools"}})
