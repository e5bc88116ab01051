"""The PEP 517 build backend of the openetw Python package.

Builds openetw._openetw from bindings/swig/openetw.i with the system's swig,
against the libopenetw pkg-config finds, and records the library's folder as
the extension's run path, so no LD_LIBRARY_PATH is needed wherever
`meson install` put it. The version is the library's (pkg-config --modversion).
setuptools compiles; the wheel (a zip with a .dist-info folder) is packed
here, so the `wheel` package is not needed.
"""
import base64
import hashlib
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWIG_DIR = os.path.normpath(os.path.join(HERE, "..", "swig"))
NAME = "openetw"
SUMMARY = "Portable classic Event Tracing for Windows sessions (Python binding of libopenetw)"


def pkg_config(*args):
    program = os.environ.get("PKG_CONFIG", "pkg-config")
    try:
        out = subprocess.run([program, *args, "openetw"], check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit(f"cannot run {program}: install pkg-config (Debian: pkg-config)")
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"`{program} {' '.join(args)} openetw` failed: {e.stderr.strip()}\n"
                         "Install libopenetw first (meson install), or point PKG_CONFIG_PATH at the "
                         "folder holding openetw.pc (a Meson build has meson-uninstalled/).")
    return out.stdout.strip()


def _flags(option, prefix):
    return [f[len(prefix):] for f in shlex.split(pkg_config(option)) if f.startswith(prefix)]


def _compile(build_lib, build_temp):
    """swig, then setuptools' build_py + build_ext into build_lib."""
    from setuptools import Extension, setup

    include_dirs = _flags("--cflags-only-I", "-I")
    lib_dirs = _flags("--libs-only-L", "-L")
    package_dir = os.path.join(build_lib, NAME)
    os.makedirs(package_dir, exist_ok=True)
    os.makedirs(build_temp, exist_ok=True)
    wrapper = os.path.join(build_temp, "openetw_python_wrap.c")
    subprocess.run(["swig", "-python", "-interface", "_openetw", *("-I" + d for d in include_dirs),
                    "-I" + SWIG_DIR, "-outdir", package_dir, "-o", wrapper,
                    os.path.join(SWIG_DIR, "openetw.i")], check=True)
    extension = Extension(f"{NAME}._openetw", sources=[wrapper], include_dirs=include_dirs,
                          libraries=["openetw"], library_dirs=lib_dirs, runtime_library_dirs=lib_dirs,
                          extra_compile_args=["-std=gnu11", "-w"])  # SWIG's C is not ours to polish
    cwd = os.getcwd()
    os.chdir(HERE)
    try:
        setup(name=NAME, version=pkg_config("--modversion"), packages=[NAME],
              package_data={NAME: ["py.typed"]}, ext_modules=[extension],
              script_args=["-q", "build_py", "--build-lib", build_lib,
                           "build_ext", "--build-lib", build_lib, "--build-temp", build_temp])
    finally:
        os.chdir(cwd)


def _tag():
    impl = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{platform}"


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "License: MIT\nRequires-Python: >=3.9\n")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


# ---- PEP 517 hooks ----
def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = pkg_config("--modversion")
    with tempfile.TemporaryDirectory(prefix="openetw-wheel-") as work:
        build_lib = os.path.join(work, "lib")
        _compile(build_lib, os.path.join(work, "temp"))
        dist_info = f"{NAME}-{version}.dist-info"
        tag = _tag()
        filename = f"{NAME}-{version}-{tag}.whl"
        records = []
        with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
            for folder, _, files in sorted(os.walk(build_lib)):
                for f in sorted(files):
                    path = os.path.join(folder, f)
                    arcname = os.path.relpath(path, build_lib).replace(os.sep, "/")
                    with open(path, "rb") as fh:
                        data = fh.read()
                    whl.writestr(arcname, data)
                    records.append(_record_line(arcname, data))
            extra = {"METADATA": _metadata(version),
                     "WHEEL": f"Wheel-Version: 1.0\nGenerator: openetw_build\nRoot-Is-Purelib: false\nTag: {tag}\n"}
            for name, text in extra.items():
                arcname = f"{dist_info}/{name}"
                whl.writestr(arcname, text)
                records.append(_record_line(arcname, text.encode()))
            records.append(f"{dist_info}/RECORD,,")
            whl.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return filename
