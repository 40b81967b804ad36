"""`hpcprobe sysinfo` and `hpcprobe list`: hpcprobe-bench run directly, one process."""

import json
import os
import subprocess
from typing import Any, Dict, Iterator, List, Tuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, HpcprobeError
from hpcprobe.launch import find_bench
from hpcprobe.runner import bench_error_lines
from hpcprobe.show import plain
from hpcprobe.suites import SUITE_NAMES, describe_suite

BENCH_QUERY_TIMEOUT_S = 60.0
# The bench's own output: cleaned of control characters, but shown in full.
MAX_LINE_CHARS = 500


def run_bench_query(subcommand: str) -> str:
    """stdout of `hpcprobe-bench SUBCOMMAND` (a single process: MPI singleton start)."""
    bench = find_bench(os.environ)
    try:
        completed = subprocess.run(
            [bench, subcommand], stdin=subprocess.DEVNULL, capture_output=True,
            timeout=BENCH_QUERY_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise HpcprobeError(
            f"'hpcprobe-bench {subcommand}' did not finish in {BENCH_QUERY_TIMEOUT_S:g} s"
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


def flatten(value: Any, prefix: str = "") -> Iterator[Tuple[str, Any]]:
    """Nested objects as dotted keys: {"a": {"b": 1}} -> ("a.b", 1)."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        yield prefix, ", ".join(str(item) for item in value)
    else:
        yield prefix, value


def command_sysinfo() -> int:
    output = run_bench_query("sysinfo")
    try:
        info: Dict[str, Any] = json.loads(output)
    except ValueError:
        raise HpcprobeError("'hpcprobe-bench sysinfo' printed no JSON object") from None
    if not isinstance(info, dict):
        raise HpcprobeError("'hpcprobe-bench sysinfo' printed JSON that is not an object")
    table = Table(title="hpcprobe sysinfo")
    table.add_column("key")
    table.add_column("value")
    for key, value in flatten(info):
        table.add_row(Text(plain(key)), Text(plain(value, MAX_LINE_CHARS)))
    Console(highlight=False).print(table)
    return EXIT_OK


def command_list() -> int:
    kernels: List[str] = [line for line in run_bench_query("list").splitlines() if line]
    console = Console(highlight=False)
    console.print(Text("kernels (hpcprobe-bench list):"))
    for line in kernels:
        console.print(Text("  " + plain(line, MAX_LINE_CHARS)), soft_wrap=True)
    console.print(Text("suites (hpcprobe run --suite NAME):"))
    for name in SUITE_NAMES:
        console.print(Text("  " + describe_suite(name)), soft_wrap=True)
    return EXIT_OK
