"""Builds the extension dlsim._dlsim with the project's CMake (pyproject.toml).

Configures build/ when it has no CMake cache (DLSIM_BUILD_DIR overrides the
folder), builds the target dlsim_python and copies the module into the wheel.
The module finds the bundled machines and databases in this checkout, which
must stay where it is (docs/python.md).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("DLSIM_BUILD_DIR", os.path.join(ROOT, "build")))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            gen = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build, *gen,
                                   "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                                   f"-DPython3_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build, "--target", "dlsim_python"])
        built = glob.glob(os.path.join(build, "python", "dlsim", "_dlsim*.so"))
        if not built:
            sys.exit(f"setup.py: {build}/python/dlsim has no _dlsim module: is pybind11-dev "
                     "installed (tools/setup.sh)? See the CMake output above.")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("dlsim._dlsim", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join("build", "setuptools")}})
