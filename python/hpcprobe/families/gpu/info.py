"""`hpcprobe-bench gpu info`: the devices of this node, asked once before anything is
launched, so that a node without a device (or a bench built without CUDA) gets one line
naming what is missing instead of an mpiexec whose every rank refuses.

The bench prints one JSON line on stdout and exits 0; without a device it prints
"hpcprobe-bench: gpu: <why>" on stderr and exits 2. Its answer is untrusted input: the
devices are kept only as dictionaries, and their strings are shown as plain text."""

import json
import subprocess
from dataclasses import dataclass
from typing import Any, Dict, Tuple

from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_RUNTIME_FAILURE, HpcprobeError
from hpcprobe.runner import bench_error_lines
from hpcprobe.sanitize import plain

INFO_TIMEOUT_S = 60.0
# The longest reason kept: a driver's message must not flood a line.
MAX_WHY_CHARS = 300
_BENCH_PREFIXES = ("hpcprobe-bench: ", "gpu: ")


@dataclass(frozen=True)
class GpuInfo:
    """`build` ("cuda 13.0" or "none"), the devices (empty without any), and without
    them the bench's reason in words."""

    build: str
    devices: Tuple[Dict[str, Any], ...]
    why: str = ""


def _reason(stderr: bytes) -> str:
    lines = bench_error_lines(stderr.decode("utf-8", "replace").splitlines())
    text = lines[0] if lines else "no message"
    for prefix in _BENCH_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
    return plain(text, MAX_WHY_CHARS)


def parse_info(stdout: str) -> GpuInfo:
    """The JSON line of `gpu info` (the last line that is one), or an HpcprobeError."""
    for line in reversed(stdout.splitlines()):
        try:
            body = json.loads(line)
        except ValueError:
            continue
        if isinstance(body, dict) and isinstance(body.get("devices"), list):
            devices = tuple(device for device in body["devices"] if isinstance(device, dict))
            build = plain(body.get("build", "unknown"), 40)
            why = "" if devices else f"the bench ({build}) lists no device"
            return GpuInfo(build, devices, why)
    raise HpcprobeError("'hpcprobe-bench gpu info' printed no device list (JSON)",
                        EXIT_RUNTIME_FAILURE)


def ask_gpu_info(bench: str, timeout_s: float = INFO_TIMEOUT_S) -> GpuInfo:
    """This node's devices, as `bench gpu info` (one process) finds them."""
    try:
        completed = subprocess.run([bench, "gpu", "info"], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise HpcprobeError(f"'hpcprobe-bench gpu info' did not finish in {timeout_s:g} s",
                            EXIT_RUNTIME_FAILURE) from None
    except OSError as error:
        raise HpcprobeError(f"cannot run {bench}: {error}", EXIT_RUNTIME_FAILURE) from None
    if completed.returncode == EXIT_BAD_INPUT:
        return GpuInfo("none", (), _reason(completed.stderr))
    if completed.returncode != EXIT_OK:
        raise HpcprobeError(f"'hpcprobe-bench gpu info' failed (exit status "
                            f"{completed.returncode}): {_reason(completed.stderr)}",
                            EXIT_RUNTIME_FAILURE)
    return parse_info(completed.stdout.decode("utf-8", "replace"))


def require_device(info: GpuInfo) -> GpuInfo:
    """`info` when it lists a device; else the one-line refusal (exit status 2)."""
    if not info.devices:
        raise HpcprobeError(f"gpu: {info.why}", EXIT_BAD_INPUT)
    return info
