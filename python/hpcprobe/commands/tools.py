"""`hpcprobe sysinfo` and `hpcprobe list`: hpcprobe-bench run directly, one process."""

import json
from typing import Any, Dict, Iterator, List, Tuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hpcprobe.errors import EXIT_OK, HpcprobeError
from hpcprobe.launch.kernels import run_bench_query
from hpcprobe.sanitize import plain
from hpcprobe.suite.suites import SUITE_NAMES, describe_suite

# The bench's own output: cleaned of control characters, but shown in full.
MAX_LINE_CHARS = 500


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
