"""Packs the already-built engram module into a wheel (PEP 427), without compiling anything.

The CMake build makes the extension module engram._engram; this script puts it, with debug
information stripped, beside the package's Python files (engram/*.py, the .pyi stub, py.typed)
and writes engram-<version>-<tag>.whl with its METADATA, WHEEL and RECORD (sha256 of every file).
It runs with the interpreter the module was built for, which gives the wheel's tag
(cp311-cp311-linux_x86_64 for Debian 12's python3). Only the standard library is used.

The wheel is deterministic: entries in a fixed order with a fixed timestamp and permissions, so
the same module and sources give the same bytes. python/CMakeLists.txt runs it as the target
python_wheel (part of the default build):

  python3 build_wheel.py --pyproject python/pyproject.toml --package-dir python/engram \
      --extension build/python/engram/_engram.cpython-311-x86_64-linux-gnu.so \
      --version 0.1.0 --strip strip --out-dir build/dist
  python3 build_wheel.py --pyproject python/pyproject.toml --version 0.1.0 --print-filename
"""

import argparse
import base64
import csv
import hashlib
import importlib.machinery
import io
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

# Every entry's modification time: the earliest a zip file can hold, so no build time leaks in.
kZipTimestamp = (1980, 1, 1, 0, 0, 0)
kCompressLevel = 6
# The package's files besides the extension module.
kPackagePatterns = ("*.py", "*.pyi", "py.typed")
kGenerator = "engram build_wheel.py"


class WheelError(Exception):
    """A problem the person building can fix; main() prints it without a traceback."""


def read_project_table(pyproject: pathlib.Path) -> dict:
    """Returns the [project] table of pyproject.toml."""
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11 and later
        return tomllib.loads(text).get("project", {})
    except ImportError:
        return _parse_project_table(text)


def _parse_project_table(text: str) -> dict:
    """The [project] table's string and list-of-string values, for Pythons without tomllib."""
    project = {}
    table = None
    key = None
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        if key is not None:  # inside a multi-line list
            items += re.findall(r'"([^"]*)"', stripped)
            if stripped.endswith("]"):
                project[key] = items
                key = None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        header = re.fullmatch(r"\[([^\]]+)\]", stripped)
        if header:
            table = header.group(1).strip()
            continue
        if table != "project":
            continue
        match = re.fullmatch(r'([A-Za-z0-9_-]+)\s*=\s*(.*)', stripped)
        if not match:
            continue
        name, value = match.groups()
        if value.startswith('"'):
            project[name] = re.match(r'"([^"]*)"', value).group(1)
        elif value.startswith("["):
            items = re.findall(r'"([^"]*)"', value)
            if value.endswith("]"):
                project[name] = items
            else:
                key = name
    return project


def wheel_tag() -> str:
    """python-abi-platform tag of the running interpreter, e.g. cp311-cp311-linux_x86_64."""
    if sys.implementation.name != "cpython":
        raise WheelError(f"the module is built for CPython; this is {sys.implementation.name}")
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return f"cp{version}-cp{version}{sys.abiflags}-{platform}"


def distribution_name(project: dict) -> str:
    """The name as a wheel's file name spells it (PEP 427: runs of -_. become _)."""
    return re.sub(r"[-_.]+", "_", project["name"])


def check_project(project: dict, cmake_version: str) -> None:
    for field in ("name", "version"):
        if not project.get(field):
            raise WheelError(f"pyproject.toml's [project] has no {field}")
    if project["version"] != cmake_version:
        raise WheelError(f"pyproject.toml says version {project['version']} but CMake's "
                         f"project() says {cmake_version}; make them the same")


def wheel_filename(project: dict) -> str:
    return f"{distribution_name(project)}-{project['version']}-{wheel_tag()}.whl"


def metadata_text(project: dict, pyproject: pathlib.Path) -> str:
    """METADATA (core metadata 2.1) from pyproject.toml's [project] table."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    body = ""
    readme = project.get("readme")
    if isinstance(readme, str):
        readme_path = pyproject.parent / readme
        if readme_path.suffix.lower() == ".md":
            lines.append("Description-Content-Type: text/markdown")
        body = readme_path.read_text(encoding="utf-8")
    text = "\n".join(lines) + "\n"
    if body:
        text += "\n" + body
    return text


def wheel_text(tag: str) -> str:
    return (f"Wheel-Version: 1.0\nGenerator: {kGenerator}\nRoot-Is-Purelib: false\n"
            f"Tag: {tag}\n")


def stripped_extension(extension: pathlib.Path, strip: str) -> bytes:
    """The module's bytes without debug sections (`strip --strip-debug`); as built if no strip."""
    if not strip:
        return extension.read_bytes()
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch) / extension.name
        result = subprocess.run([strip, "--strip-debug", "-o", str(out), str(extension)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise WheelError(f"{strip} --strip-debug {extension} failed: {result.stderr.strip()}")
        return out.read_bytes()


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def zip_entry(name: str, executable: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=kZipTimestamp)
    info.create_system = 3  # Unix, so the permissions below are read
    info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def package_entries(package_dir: pathlib.Path, extension: pathlib.Path,
                    strip: str) -> list:
    """(path in the wheel, bytes, executable) of the package's files, sorted by path."""
    if not extension.is_file():
        raise WheelError(f"the extension module {extension} does not exist; build the target _engram")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    if not extension.name.endswith(suffix):
        raise WheelError(f"{extension.name} is not a module for this interpreter ({sys.executable} "
                         f"loads *{suffix}); run this script with the Python the module was built for")
    package = package_dir.name
    entries = {}
    for pattern in kPackagePatterns:
        for path in package_dir.glob(pattern):
            if path.is_file():
                entries[f"{package}/{path.name}"] = (path.read_bytes(), False)
    if f"{package}/__init__.py" not in entries:
        raise WheelError(f"{package_dir} holds no __init__.py")
    entries[f"{package}/{extension.name}"] = (stripped_extension(extension, strip), True)
    return [(name, data, executable) for name, (data, executable) in sorted(entries.items())]


def build_wheel(args) -> pathlib.Path:
    project = read_project_table(args.pyproject)
    check_project(project, args.version)
    filename = wheel_filename(project)
    dist_info = f"{distribution_name(project)}-{project['version']}.dist-info"
    files = package_entries(args.package_dir, args.extension, args.strip)
    files.append((f"{dist_info}/METADATA", metadata_text(project, args.pyproject).encode(), False))
    files.append((f"{dist_info}/WHEEL", wheel_text(wheel_tag()).encode(), False))
    files.append((f"{dist_info}/top_level.txt", f"{args.package_dir.name}\n".encode(), False))

    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data, _ in files:
        writer.writerow([name, record_hash(data), len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    files.append((f"{dist_info}/RECORD", record.getvalue().encode(), False))

    args.out_dir.mkdir(parents=True, exist_ok=True)
    target = args.out_dir / filename
    partial = args.out_dir / (filename + ".partial")
    with zipfile.ZipFile(partial, "w") as wheel:
        for name, data, executable in files:
            wheel.writestr(zip_entry(name, executable), data, compress_type=zipfile.ZIP_DEFLATED,
                           compresslevel=kCompressLevel)
    os.replace(partial, target)
    # One wheel of the package in the directory, so `pip install dist/engram-*.whl` is unambiguous.
    for old in args.out_dir.glob(f"{distribution_name(project)}-*.whl"):
        if old.name != filename:
            old.unlink()
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pyproject", type=pathlib.Path, required=True,
                        help="python/pyproject.toml: the name, version and metadata")
    parser.add_argument("--version", required=True,
                        help="CMake's project version; must equal pyproject.toml's")
    parser.add_argument("--print-filename", action="store_true",
                        help="print the wheel's file name and exit")
    parser.add_argument("--package-dir", type=pathlib.Path, help="the package's sources")
    parser.add_argument("--extension", type=pathlib.Path, help="the built _engram module")
    parser.add_argument("--strip", default="",
                        help="strip program for the module's debug information (empty: keep it)")
    parser.add_argument("--out-dir", type=pathlib.Path, help="where the wheel is written")
    args = parser.parse_args(argv)
    try:
        if args.print_filename:
            project = read_project_table(args.pyproject)
            check_project(project, args.version)
            print(wheel_filename(project))
            return 0
        for required in ("package_dir", "extension", "out_dir"):
            if getattr(args, required) is None:
                parser.error(f"--{required.replace('_', '-')} is required to build a wheel")
        print(build_wheel(args))
        return 0
    except WheelError as error:
        print(f"build_wheel: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
