"""What this hpcprobe-bench runs, as its description says (`describe --json`, read through
hpcprobe.describe: asked once per build and cached). The parsers take their variant and
algorithm choices from it (only a command that needs them asks), so a kernel added to the
C registry needs no Python edit.

When the bench cannot be asked (not built yet, or a stand-in that answers nothing), each
family falls back to the choices it was written with; a launch then says what is wrong
with the bench in its own one line, as it always did.
"""

import os
import subprocess
from functools import lru_cache
from typing import Dict, Optional, Sequence, Tuple

from hpcprobe.describe import load_description
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, HpcprobeError
from hpcprobe.launch import find_bench
from hpcprobe.runner import bench_error_lines

BENCH_QUERY_TIMEOUT_S = 60.0

Kernels = Tuple[Tuple[str, str, str], ...]


def run_bench_query(subcommand: str, timeout_s: float = BENCH_QUERY_TIMEOUT_S) -> str:
    """stdout of `hpcprobe-bench SUBCOMMAND` (a single process: MPI singleton start)."""
    bench = find_bench(os.environ)
    try:
        completed = subprocess.run(
            [bench, subcommand], stdin=subprocess.DEVNULL, capture_output=True,
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


@lru_cache(maxsize=None)
def bench_kernels() -> Optional[Kernels]:
    """(family, variant, algorithm) of each kernel the bench describes, in its order; None
    when it cannot be asked."""
    try:
        description = load_description()
    except HpcprobeError:
        return None
    kernels = tuple((family.name, kernel.variant, kernel.algorithm)
                    for family in description.families.values() for kernel in family.kernels)
    return kernels or None


def _distinct(words: Sequence[str]) -> Tuple[str, ...]:
    return tuple(dict.fromkeys(words))


def variants(family: str, fallback: Sequence[str]) -> Tuple[str, ...]:
    """The variants of `family` the bench lists (`fallback` when it cannot be asked or
    lists none)."""
    kernels = bench_kernels()
    found = _distinct([v for f, v, _ in kernels or () if f == family])
    return found or tuple(fallback)


def algorithms(family: str, variant: str, fallback: Sequence[str]) -> Tuple[str, ...]:
    """The algorithms of one variant the bench lists (`fallback` as for variants)."""
    kernels = bench_kernels()
    found = _distinct([a for f, v, a in kernels or () if f == family and v == variant])
    return found or tuple(fallback)


def variants_by_family(fallback: Dict[str, Sequence[str]]) -> Dict[str, Tuple[str, ...]]:
    """variants() of each family in `fallback`, in its order."""
    return {family: variants(family, words) for family, words in fallback.items()}
