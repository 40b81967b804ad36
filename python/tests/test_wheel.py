"""The package as a user gets it (docs/building.md, "Wheels and sdists"): `python -m build`
makes an sdist and, from that sdist, a wheel (the core is compiled once here), and the
wheel installs into a fresh venv outside the repository with the [mpich] extra, where
`hpcprobe sysinfo` and two tiny benchmarks run from a directory outside the repository.

pip downloads the dependencies from PyPI (as `make build` does). A step that cannot run
here fails and says why: none is skipped.
"""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Sequence

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "schema" / "result-v1.json").read_text(encoding="utf-8"))
BUILD_TIMEOUT_S = 900
RUN_TIMEOUT_S = 120
# What the sdist must hold to build: every tracked file of these, and these files.
SDIST_TREES = ("core/", "cmake/", "schema/", "python/hpcprobe/", "docs/")
SDIST_FILES = ("CMakeLists.txt", "pyproject.toml", "README.md", "LICENSE")
# Never shipped: build output and local state.
SDIST_NEVER = re.compile(r"^(build|\.venv[^/]*|results|\.pytest_cache|\.ruff_cache)/|"
                         r"/__pycache__/")


def clean_env(**extra: str) -> Dict[str, str]:
    """This environment without what would make a run use the source tree or another MPI:
    the venv's programs must use the venv's package, and the build PyPI's MPICH."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MPICC")
           and not key.startswith("HPCPROBE_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(argv: Sequence[str], cwd: Path, timeout: float = RUN_TIMEOUT_S,
        **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), cwd=cwd, env=clean_env(**env), capture_output=True,
                          text=True, timeout=timeout)


def succeeded(completed: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    if completed.returncode != 0:
        pytest.fail(f"{what} failed (exit status {completed.returncode}):\n"
                    f"{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}")
    return completed


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Dict[str, Path]:
    """The sdist, and the wheel built from it, as `python -m build` makes them."""
    try:
        import build  # noqa: F401  (the frontend runs as `python -m build`)
    except ImportError:
        pytest.fail("PyPI's `build` is not installed in the test environment: it is in the "
                    "test extra (pip install 'build>=1'; `make build` installs it)")
    out = tmp_path_factory.mktemp("dist")
    succeeded(run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], cwd=out,
                  timeout=BUILD_TIMEOUT_S), "python -m build (sdist, then a wheel from it)")
    sdists, wheels = sorted(out.glob("hpcprobe-*.tar.gz")), sorted(out.glob("hpcprobe-*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in out.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0]}


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh venv outside the repository with the wheel and its [mpich] extra."""
    root = tmp_path_factory.mktemp("venv") / "env"
    succeeded(run([sys.executable, "-m", "venv", str(root)], cwd=root.parent), "python -m venv")
    succeeded(run([str(root / "bin" / "python"), "-m", "pip", "install", "-q",
                   f"{dist['wheel']}[mpich]"], cwd=root.parent, timeout=BUILD_TIMEOUT_S),
              "pip install WHEEL[mpich] (PyPI must be reachable)")
    return root


@pytest.fixture
def outside(tmp_path) -> Path:
    """A working directory outside the repository."""
    assert REPO not in tmp_path.resolve().parents
    return tmp_path


def tracked_files() -> List[str]:
    if shutil.which("git") is None:
        pytest.fail("git is needed to list the repository's files (apt-get install git)")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True,
                            timeout=60)
    if listed.returncode != 0:
        pytest.fail(f"{REPO} is not a git checkout: {listed.stderr.decode(errors='replace')}")
    names = [name for name in listed.stdout.decode().split("\0") if name]
    # A file deleted in the working tree (not committed yet) is not built either.
    return [name for name in names if (REPO / name).is_file()]


def only_record(results_dir: Path) -> Dict:
    lines = (results_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1, lines
    record = json.loads(lines[0])
    jsonschema.validate(record, SCHEMA)
    assert record["status"] == "ok" and record["validation"]["verdict"] == "passed", record
    return record


def test_sdist_holds_everything_the_build_needs(dist):
    top = dist["sdist"].name[:-len(".tar.gz")]  # hpcprobe-VERSION
    with tarfile.open(dist["sdist"]) as sdist:
        names = sdist.getnames()
    assert [name for name in names if name.split("/", 1)[0] != top] == []
    members = {name.split("/", 1)[1] for name in names if "/" in name}
    needed = {name for name in tracked_files() if name.startswith(SDIST_TREES)}
    needed |= set(SDIST_FILES)
    assert needed - members == set()
    assert sorted(name for name in members if SDIST_NEVER.search(name)) == []


def test_wheel_carries_schema_docs_version_and_a_portable_core(dist):
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = set(wheel.namelist())
        version = dist["wheel"].name.split("-")[1]
        info = json.loads(wheel.read("hpcprobe/build_info.json"))
        schema = json.loads(wheel.read("hpcprobe/schema/result-v1.json"))
        cli_doc = wheel.read("hpcprobe/docs/cli.md").decode("utf-8")
        bench = wheel.read(f"hpcprobe-{version}.data/scripts/hpcprobe-bench")
    assert schema == SCHEMA
    assert cli_doc == (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "hpcprobe/docs/kernels/memory.md" in names
    assert info["version"] == version and info["tuning"] == "portable"
    # PyPI's MPICH is named, not a path into the build's temporary environment.
    assert info["mpiexec"] == "mpiexec"
    # The binary finds MPICH and OpenBLAS beside itself, nothing in the build environment.
    assert b"$ORIGIN/../lib" in bench and b"scipy_openblas32/lib" in bench
    assert b"build-env-" not in bench


def test_installed_wheel_runs_outside_the_repository(venv, outside):
    hpcprobe = str(venv / "bin" / "hpcprobe")
    located = succeeded(run([str(venv / "bin" / "python"), "-c",
                             "import hpcprobe; print(hpcprobe.__file__, hpcprobe.__version__)"],
                            cwd=outside), "import hpcprobe").stdout.split()
    assert Path(located[0]).resolve().is_relative_to(venv.resolve())
    sysinfo = succeeded(run([hpcprobe, "sysinfo"], cwd=outside), "hpcprobe sysinfo").stdout
    assert re.search(r"tuning\W+portable", sysinfo), sysinfo
    overview = succeeded(run([hpcprobe], cwd=outside), "hpcprobe").stdout
    cli_doc = Path(overview.rstrip().rsplit(" ", 1)[-1])
    assert cli_doc.is_file() and cli_doc.resolve().is_relative_to(venv.resolve()), overview

    succeeded(run([hpcprobe, "ra", "single", "--table-log2", "16", "--out", "ra", "--quiet"],
                  cwd=outside), "hpcprobe ra single")
    record = only_record(outside / "ra")
    assert record["metadata"]["tuning"] == "portable"
    assert record["metadata"]["hpcprobe_version"] == located[1]
    assert record["metadata"]["mpi_library"].startswith("MPICH")


def test_portable_stream_chooses_avx_stores_at_run_time(venv, outside):
    # The wheel is built without -march=native; STREAM's loops still take AVX's
    # non-temporal stores on a CPU that has AVX (stream_loops_current).
    succeeded(run([str(venv / "bin" / "hpcprobe"), "stream", "single", "--array-bytes", "1M",
                   "--repeat", "3", "--out", "stream", "--quiet"], cwd=outside),
              "hpcprobe stream single")
    record = only_record(outside / "stream")
    cpu_flags = re.search(r"^flags\s*:(.*)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
    has_avx = platform.machine() == "x86_64" and cpu_flags is not None \
        and "avx" in cpu_flags.group(1).split()
    assert record["metadata"]["tuning"] == "portable"
    assert record["parameters"]["nontemporal_stores"] is has_avx


def build_requirements(**env: str) -> List[str]:
    probe = run([sys.executable, "-c",
                 "import json; from scikit_build_core.build import "
                 "get_requires_for_build_wheel as g; print(json.dumps(g()))"],
                cwd=REPO, **env)
    if "No module named" in probe.stderr:
        pytest.fail("scikit-build-core is not installed in the test environment (`make build` "
                    "installs it)")
    return json.loads(succeeded(probe, "get_requires_for_build_wheel").stdout)


def test_a_site_mpi_build_leaves_pypi_mpich_out():
    def names(requirements):
        return {re.split(r"[<>=!~ ;\[]", item, maxsplit=1)[0] for item in requirements}

    assert {"mpich", "scipy-openblas32"} <= names(build_requirements())
    site = names(build_requirements(HPCPROBE_MPICC="/usr/bin/mpicc"))
    assert "scipy-openblas32" in site and "mpich" not in site


def test_a_wrong_site_mpicc_is_named(tmp_path):
    if shutil.which("cmake") is None:
        pytest.fail("cmake is needed (apt-get install cmake)")
    missing = tmp_path / "no-such-mpicc"
    configure = run(["cmake", "-S", str(REPO), "-B", str(tmp_path / "build")], cwd=tmp_path,
                    HPCPROBE_MPICC=str(missing))
    assert configure.returncode != 0
    message = " ".join(configure.stderr.split())
    assert f"HPCPROBE_MPICC={missing} is not an MPI C compiler wrapper" in message, message
