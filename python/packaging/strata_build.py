"""A PEP 517 build backend for `pip install .`: CMake builds the extension (in STRATA_BUILD_DIR,
default build/, so a tree `make` already built is reused), installs the `python` component into a
staging folder, and the folder becomes a wheel. No build requirements beyond CMake and the
Debian packages scripts/install-deps installs."""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

NAME = "strata"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version():
    with open(os.path.join(ROOT, "include", "strata", "version.hpp")) as f:
        parts = {}
        for line in f:
            for key in ("MAJOR", "MINOR", "PATCH"):
                token = f"STRATA_VERSION_{key} "
                if token in line:
                    parts[key] = line.split(token)[1].split()[0]
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


def _tag():
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{python}-{python}-{platform}"


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            "Summary: Deep learning in C++ across the whole development cycle, from Python\n"
            "License: Apache-2.0\nRequires-Python: >=3.9\nRequires-Dist: numpy\n")


def _build(staging):
    build = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
    python = f"-DPython3_EXECUTABLE={sys.executable}"
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", python])
    subprocess.check_call(["cmake", "--build", build, "--target", "strata_python"])
    subprocess.check_call(["cmake", "--install", build, "--component", "python", "--prefix", staging])


def _record_line(path, arcname):
    with open(path, "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    wheel_name = f"{NAME}-{version}-{_tag()}.whl"
    dist_info = f"{NAME}-{version}.dist-info"
    staging = tempfile.mkdtemp(prefix="strata-wheel-")
    try:
        _build(staging)
        info = os.path.join(staging, dist_info)
        os.makedirs(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write(_metadata(version))
        with open(os.path.join(info, "WHEEL"), "w") as f:
            f.write(f"Wheel-Version: 1.0\nGenerator: strata_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n")
        records = []
        path = os.path.join(wheel_directory, wheel_name)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
            for folder, _, files in os.walk(staging):
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    arcname = os.path.relpath(full, staging)
                    wheel.write(full, arcname)
                    records.append(_record_line(full, arcname))
            records.append(f"{dist_info}/RECORD,,")
            wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
        return wheel_name
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    info = os.path.join(metadata_directory, f"{NAME}-{version}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(_metadata(version))
    return os.path.basename(info)
