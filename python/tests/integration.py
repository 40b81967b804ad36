"""Running the real hpcprobe-bench, directly or under the build's mpiexec."""

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional

from hpcprobe.launch import find_bench, resolve_launcher
from hpcprobe.results import read_records


def bench_path() -> str:
    # Raises (so the test fails, never skips) when the binary was not built.
    return find_bench(os.environ)


def run_bench(*args: str, np: Optional[int] = None, extra_env: Mapping[str, str] = (),
              timeout: float = 60, program: Optional[str] = None) -> subprocess.CompletedProcess:
    """hpcprobe-bench ARGS, under `mpiexec -n np` when np is given, else on its own;
    `program`: a wrapper to start instead of the bench itself."""
    argv: List[str] = [program or bench_path(), *args]
    if np is not None:
        argv = resolve_launcher("mpiexec", os.environ).command(np, [], argv)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **dict(extra_env)),
                          stdin=subprocess.DEVNULL)


def dump_table(path: Path, variant: str, np: int, *options: str) -> bytes:
    completed = run_bench("ra", variant, "--table-log2", "14", "--quiet",
                          "--dump-table", str(path), *options, np=np)
    assert completed.returncode == 0, completed.stderr
    return path.read_bytes()


def only_record(results: Path):
    found = read_records(results)
    assert found.problems == []
    assert len(found.records) == 1
    return found.records[0]


def require_cluster_support() -> None:
    """Fail (never skip) the test, with the reason, where emulated clusters cannot be
    made: they need root, iproute2 and veth links in new network namespaces (CI has all)."""
    import pytest

    from hpcprobe.cluster import system as cluster_system
    from hpcprobe.errors import UsageError

    try:
        cluster_system.require_privileges("cluster up")
    except UsageError as error:
        pytest.fail(str(error))
    probe = subprocess.run(["unshare", "--net", "--", "ip", "link", "add", "probe0", "type",
                            "veth", "peer", "name", "probe1"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.fail(f"cannot make network namespaces and veth links here: "
                    f"{probe.stderr.strip()}")


def require_slurm_support() -> None:
    """Fail (never skip) where Slurm cannot run on an emulated cluster: the cluster's
    needs, and Debian's slurm-wlm and munge (`make pytest` installs them as root)."""
    import pytest

    from hpcprobe.cluster.slurm import require_slurm
    from hpcprobe.errors import UsageError

    require_cluster_support()
    try:
        require_slurm()
    except UsageError as error:
        pytest.fail(str(error))


def slurm_env(cluster_dir: Path) -> Dict[str, str]:
    """The environment of a Slurm test: its clusters kept under `cluster_dir`; fails
    (never skips) where Slurm cannot run on an emulated cluster."""
    require_slurm_support()
    return dict(os.environ, HPCPROBE_CLUSTER_DIR=str(cluster_dir))


@contextmanager
def slurm_cluster(name: str, env: Mapping[str, str],
                  *up_options: str) -> Iterator[subprocess.CompletedProcess]:
    """`cluster up --name NAME --nodes 2 --slurm UP_OPTIONS` (its completed process),
    taken down again whatever happens."""
    from helpers import run_hpcprobe

    done = run_hpcprobe("cluster", "up", "--name", name, "--nodes", "2", *up_options,
                        "--slurm", env=env, timeout=180)
    try:
        assert done.returncode == 0, done.stderr
        yield done
    finally:
        run_hpcprobe("cluster", "down", "--name", name, env=env, timeout=120)
