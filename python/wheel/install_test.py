"""Checks the wheel the build made: its contents, that building it again gives the same bytes,
and that it installs into a fresh venv and works there.

ctest runs it as python_wheel (label python) with the interpreter the module was built for:

  python3 install_test.py --wheel build/dist/engram-0.1.0-cp311-cp311-linux_x86_64.whl \
      -- <build_wheel.py's arguments without --out-dir>

1. The wheel exists (a build makes it: the target python_wheel; missing is a failure), is named
   for this interpreter, holds the package's files, the extension module, py.typed, the .pyi
   stub, METADATA and WHEEL, and every RECORD line's sha256 and size match the entry.
2. build_wheel.py run twice into temporary directories writes the same bytes both times. When
   the build's wheel differs from them, its inputs changed after it was made (only _engram was
   built since, say): the test says which entries and checks the fresh wheel from then on.
3. `python -m venv` in a temporary directory, then `pip install --no-index <wheel>` (no package
   index, no configuration files: nothing reaches the network); the venv's python imports engram
   from its site-packages, outside the source and build trees, and does a remember / recall.

Exit 77 (ctest's SKIP_RETURN_CODE) when this Python cannot make a venv with pip (Debian's
python3-venv is missing); any other problem fails.
"""

import argparse
import base64
import csv
import hashlib
import importlib.machinery
import importlib.util
import io
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import zipfile

kSkip = 77
kBuildWheel = pathlib.Path(__file__).resolve().parent / "build_wheel.py"

# Runs inside the venv: imports the installed package and uses the engine once.
kVenvProgram = r"""
import pathlib, sys
import engram
site = pathlib.Path(sys.argv[1]).resolve()
where = pathlib.Path(engram.__file__).resolve()
assert site in where.parents, f"engram imported from {where}, not from the venv {site}"
assert pathlib.Path(engram._engram.__file__).resolve().parent == where.parent
with engram.Engine(sys.argv[2], config={"embedder": {"kind": "none"}}) as engine:
    stored = engine.remember("user:alice", [
        {"text": "My sister Maya lives in Porto.", "speaker": "Alice"},
        {"text": "I bought a green bicycle yesterday.", "speaker": "Alice"},
    ])
    assert len(stored.ids) == 2, stored.ids
    result = engine.recall("user:alice", "Where does Maya live?", k=1)
    assert result.items, "recall returned no items"
    assert result.items[0].text == "My sister Maya lives in Porto.", result.items[0].text
    assert "Porto" in result.context, result.context
print("engram", where.parent, "recalled:", result.items[0].text)
"""


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def check_contents(wheel: pathlib.Path) -> None:
    parts = wheel.name[:-len(".whl")].split("-")
    check(wheel.name.endswith(".whl") and len(parts) == 5,
          f"{wheel.name} is not named name-version-python-abi-platform.whl")
    project_name, version, python_tag, abi_tag, platform_tag = parts
    extension = f"engram/_engram{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    dist_info = f"{project_name}-{version}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for required in ("engram/__init__.py", "engram/py.typed", "engram/_engram.pyi", extension,
                         f"{dist_info}/METADATA", f"{dist_info}/WHEEL", f"{dist_info}/RECORD"):
            check(required in names, f"{wheel.name} lacks {required}; it holds {names}")
        check(names[-1] == f"{dist_info}/RECORD", "RECORD is not the wheel's last entry")
        wheel_file = archive.read(f"{dist_info}/WHEEL").decode()
        tag = f"{python_tag}-{abi_tag}-{platform_tag}"
        check(f"Tag: {tag}\n" in wheel_file and "Root-Is-Purelib: false\n" in wheel_file,
              f"WHEEL does not say Tag: {tag} and Root-Is-Purelib: false:\n{wheel_file}")
        metadata = archive.read(f"{dist_info}/METADATA").decode()
        check(f"\nVersion: {version}\n" in metadata, f"METADATA lacks Version: {version}")
        rows = list(csv.reader(io.StringIO(archive.read(f"{dist_info}/RECORD").decode())))
        recorded = {row[0] for row in rows}
        check(recorded == set(names), f"RECORD lists {sorted(recorded)}, the wheel holds {names}")
        for path, digest, size in rows:
            if path == f"{dist_info}/RECORD":
                check(digest == "" and size == "", "RECORD's own line carries a hash")
                continue
            data = archive.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            check(digest == "sha256=" + expected.decode(), f"RECORD's hash of {path} is wrong")
            check(int(size) == len(data), f"RECORD's size of {path} is wrong")


def rebuild(wheel: pathlib.Path, build_args: list, out_dir: pathlib.Path) -> bytes:
    result = subprocess.run([sys.executable, str(kBuildWheel), *build_args, "--out-dir",
                             str(out_dir)], capture_output=True, text=True)
    check(result.returncode == 0, f"build_wheel.py failed:\n{result.stdout}{result.stderr}")
    rebuilt = out_dir / wheel.name
    check(rebuilt.is_file(), f"build_wheel.py wrote {sorted(out_dir.iterdir())}, not {wheel.name}")
    return rebuilt.read_bytes()


def entries(wheel_bytes: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def check_rebuild(wheel: pathlib.Path, build_args: list, scratch: pathlib.Path) -> pathlib.Path:
    """Builds the wheel twice from the build's inputs (the module, the package's files) and
    returns the wheel to check further: the two are byte-identical, and the build's wheel is the
    same bytes unless those inputs changed after it was made (say, only the target _engram was
    built since), which is reported but not a failure: the fresh wheel is then the one checked."""
    first = rebuild(wheel, build_args, scratch / "rebuild-1")
    second = rebuild(wheel, build_args, scratch / "rebuild-2")
    check(first == second, f"two builds of {wheel.name} from the same inputs differ "
                           "(the wheel is not deterministic)")
    built = wheel.read_bytes()
    if built == first:
        return wheel
    built_entries, current_entries = entries(built), entries(first)
    changed = sorted(name for name in set(built_entries) | set(current_entries)
                     if built_entries.get(name) != current_entries.get(name))
    print(f"note: {wheel} is older than its inputs ({', '.join(changed)} changed since); checking "
          "a fresh wheel instead (scripts/build or the target python_wheel updates it)")
    return scratch / "rebuild-1" / wheel.name


def clean_environment() -> dict:
    """The caller's environment without pip settings or a PYTHONPATH into the build tree."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("PIP_") and key not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf: no index or find-links from the machine
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def run(command, env, what, cwd):
    started = time.monotonic()
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.monotonic() - started
    check(result.returncode == 0,
          f"{what} failed (exit {result.returncode}): {' '.join(command)}\n"
          f"{result.stdout}{result.stderr}")
    return result, seconds


def check_install(wheel: pathlib.Path, scratch: pathlib.Path) -> None:
    # Everything runs in the scratch directory: `python -c` puts the working directory first on
    # sys.path, and ctest's (build/python) holds the build tree's engram package.
    env = clean_environment()
    venv = scratch / "venv"
    _, venv_seconds = run([sys.executable, "-m", "venv", str(venv)], env, "python -m venv",
                          scratch)
    python = venv / "bin" / "python"
    # The README's command.
    _, install_seconds = run([str(venv / "bin" / "pip"), "install", "--no-index",
                              str(wheel.resolve())], env, "pip install --no-index", scratch)
    site, _ = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  env, "the venv's site-packages", scratch)
    result, _ = run([str(python), "-c", kVenvProgram, site.stdout.strip(),
                     str(scratch / "memory.db")], env,
                    "import engram and remember / recall in the venv", scratch)
    print(result.stdout.strip())
    print(f"venv created in {venv_seconds:.1f} s; wheel installed in {install_seconds:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description="Checks and installs engram's wheel.")
    parser.add_argument("--wheel", type=pathlib.Path, required=True)
    parser.add_argument("build_args", nargs=argparse.REMAINDER,
                        help="-- then build_wheel.py's arguments without --out-dir")
    args = parser.parse_args()
    build_args = args.build_args[1:] if args.build_args[:1] == ["--"] else args.build_args
    try:
        check(args.wheel.is_file(),
              f"the build made no wheel at {args.wheel}; build the target python_wheel "
              "(scripts/build builds it)")
        check_contents(args.wheel)
        with tempfile.TemporaryDirectory(prefix="engram-wheel-") as scratch_name:
            scratch = pathlib.Path(scratch_name)
            checked = check_rebuild(args.wheel, build_args, scratch)
            if checked != args.wheel:
                check_contents(checked)
            print(f"{checked}: contents and RECORD hashes check out; two builds are "
                  "byte-identical")
            if importlib.util.find_spec("ensurepip") is None:
                print(f"SKIP: {sys.executable} cannot make a venv with pip (no ensurepip): install "
                      "Debian's python3-venv (scripts/setup does) to run the install check")
                return kSkip
            check_install(checked, scratch)
    except Failure as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
