"""A stand-in for `LAUNCHER ... hpcprobe-bench BENCHMARK VARIANT ... --out FILE`, used
as a launcher template so the runner can be tested without MPI.

Usage: fake_bench.py --fake-np N [LAUNCHER ARGS] BENCH BENCHMARK VARIANT [OPTIONS] --out FILE
It appends data/<benchmark>-<variant>.json (ra, stream, mem). FAKE_MODE (or
FAKE_MODE_<VARIANT>) chooses what it does; see main().
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data"


BENCHMARKS = ("ra", "stream", "mem")


def record_for(benchmark, variant):
    record = json.loads((DATA / f"{benchmark}-{variant}.json").read_text())
    record["metadata"]["user_command_line"] = json.loads(
        os.environ.get("HPCPROBE_USER_COMMAND", "[]"))
    return record


def append_line(out, line):
    with open(out, "a") as stream:
        stream.write(line + "\n")


def sleep_forever(pid_file):
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(600)


def spawn_child_and_sleep(pid_file):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    Path(pid_file).write_text(str(child.pid))
    time.sleep(600)


def main():
    args = sys.argv[1:]
    # The words after the bench: launcher arguments (binding) may come before it.
    at = next(index for index, word in enumerate(args) if word in BENCHMARKS and index >= 3)
    benchmark, variant = args[at], args[at + 1]
    out = args[args.index("--out") + 1]
    if os.environ.get("FAKE_ARGV_FILE"):
        append_line(os.environ["FAKE_ARGV_FILE"], json.dumps({
            "argv": args, "user_command": os.environ.get("HPCPROBE_USER_COMMAND")}))
    mode = os.environ.get(f"FAKE_MODE_{variant.upper()}", os.environ.get("FAKE_MODE", "ok"))
    print(f"fake: {benchmark} {variant} on {args[1]} ranks", flush=True)
    if mode == "ok":
        append_line(out, json.dumps(record_for(benchmark, variant)))
    elif mode == "failed":
        record = record_for(benchmark, variant)
        record["status"] = "failed"
        record["validation"].update(verdict="failed", error=7, tolerance=1.5)
        append_line(out, json.dumps(record))
        sys.exit(1)
    elif mode == "skipped":  # as with --no-verify
        record = record_for(benchmark, variant)
        record["validation"] = {"verdict": "skipped", "method": "none (--no-verify)"}
        append_line(out, json.dumps(record))
    elif mode == "bad":
        print("hpcprobe-bench: --table-log2 60 is out of range (allowed: 4..50)",
              file=sys.stderr)
        sys.exit(2)
    elif mode == "host_per_launch":  # as if each launch had landed on another node
        record = record_for(benchmark, variant)
        record["metadata"]["hosts"] = [f"node-{os.getpid()}"]
        append_line(out, json.dumps(record))
    elif mode == "invalid":
        append_line(out, '{"schema_version": "1.0"')
    elif mode == "die":
        print("rank 1: exiting as asked", file=sys.stderr)
        sys.exit(17)
    elif mode == "hang":
        spawn_child_and_sleep(os.environ["FAKE_PID_FILE"])
    elif mode == "ignores_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sleep_forever(os.environ["FAKE_PID_FILE"])
    # mode "norecord": exit 0 without writing anything


if __name__ == "__main__":
    main()
