"""Builds engram's extension module (engram._engram) with the project's CMake.

pip runs this through pyproject.toml for an install from source, which compiles the whole
engine; the wheel scripts/build packs from its own build (build/dist/, python/wheel/) installs in
seconds instead. The CMake build directory is build-python/ at the top of the source tree (kept
between installs, so a second install rebuilds only what changed), or $ENGRAM_BUILD_DIR when set
(an existing build, such as the build/ of scripts/build). The module is built for the
interpreter running pip (Python3_EXECUTABLE).
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_DIR = pathlib.Path(__file__).resolve().parent.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("ENGRAM_BUILD_DIR") or SOURCE_DIR / "build-python")
        if not (SOURCE_DIR / "CMakeLists.txt").exists():
            raise RuntimeError(f"engram's CMake project was not found in {SOURCE_DIR}; build "
                               "the package from a clone of the repository")
        configure = ["cmake", "-S", str(SOURCE_DIR), "-B", str(build_dir),
                     f"-DPython3_EXECUTABLE={sys.executable}", "-DENGRAM_BUILD_PYTHON=ON"]
        if not (build_dir / "CMakeCache.txt").exists():
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DENGRAM_BUILD_TESTS=OFF",
                          "-DENGRAM_BUILD_BENCHMARKS=OFF", "-DENGRAM_INSTALL=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("ENGRAM_JOBS") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_engram", "-j", jobs],
                       check=True)
        built = sorted((build_dir / "python" / "engram").glob("_engram*.so"))
        if not built:
            raise RuntimeError(f"the build left no _engram module in {build_dir}/python/engram")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(ext_modules=[CMakeExtension("engram._engram")], cmdclass={"build_ext": CMakeBuild})
