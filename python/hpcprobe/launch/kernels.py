"""Asking hpcprobe-bench a question that launches nothing (`sysinfo`, `list`): one process
(an MPI singleton start), its output, or one line saying why not. What the bench runs and
takes (its kernels, variants, algorithms and options) is its description, read through
hpcprobe.describe (asked once per build and cached); there is no fallback list.
"""

import os
import subprocess
from typing import Sequence

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, HpcprobeError
from hpcprobe.launch import find_bench
from hpcprobe.runner import bench_error_lines

BENCH_QUERY_TIMEOUT_S = 60.0


def run_bench_query(subcommand: str, timeout_s: float = BENCH_QUERY_TIMEOUT_S,
                    args: Sequence[str] = ()) -> str:
    """stdout of `hpcprobe-bench SUBCOMMAND ARGS...` (a single process: MPI singleton
    start)."""
    bench = find_bench(os.environ)
    try:
        completed = subprocess.run(
            [bench, subcommand, *args], stdin=subprocess.DEVNULL, capture_output=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        raise HpcprobeError(
            f"'hpcprobe-bench {subcommand}' did not finish in {timeout_s:g} s"
        ) from None
    except OSError as error:
        raise HpcprobeError(f"cannot run {bench}: {error}") from None
    if completed.returncode != EXIT_OK:
        lines = bench_error_lines(completed.stderr.decode("utf-8", "replace").splitlines())
        status = EXIT_BAD_INPUT if completed.returncode == EXIT_BAD_INPUT else 3
        detail = lines[0] if lines else "no message"
        raise HpcprobeError(
            f"'hpcprobe-bench {subcommand}' failed (exit status {completed.returncode}): "
            f"{detail}", status,
        )
    return completed.stdout.decode("utf-8", "replace")
