"""The gpu family on a real device, with the real binary: each command's records validate
against the schema and pass their checks, and a corrupted device result fails its own.

These are the only tests that need a GPU. Where `hpcprobe-bench gpu info` lists no device
they skip, naming what is missing (the bench's one line); on a GPU node (the device
machine) they run. Everything of the family that needs no device is in test_gpu.py."""

import json
import os
import subprocess

import pytest
from helpers import run_hpcprobe
from integration import bench_path

from hpcprobe.results import read_records


def _devices():
    done = subprocess.run([bench_path(), "gpu", "info"], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        return [], (done.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(done.stdout)["devices"], ""


DEVICES, WHY = _devices()
needs_gpu = pytest.mark.skipif(not DEVICES, reason=f"needs a GPU: {WHY}")

# Small sizes: seconds on any device.
RUNS = {
    "stream": ("--array-bytes", "64M", "--repeat", "3"),
    "ra": ("--table-log2", "22", "--repeat", "2"),
    "copy": ("--max-bytes", "4M", "--repeat", "3"),
}


def _records(out):
    found = read_records(out / "results.jsonl")
    assert found.problems == [], found.problems
    return found.records


@needs_gpu
@pytest.mark.parametrize("variant", ["stream", "ra", "copy"])
def test_each_command_validates_on_a_device(tmp_path, variant):
    extra = ("--algo", "atomic") if variant == "ra" else ()
    done = run_hpcprobe("gpu", variant, *extra, *RUNS[variant], "--out", str(tmp_path),
                        "--quiet")
    assert done.returncode == 0, done.stderr
    records = _records(tmp_path)
    assert records and all(r["validation"]["verdict"] == "passed" for r in records)
    assert all(r["parameters"]["device_name"] for r in records)
    if variant == "ra":
        assert records[0]["counters"]["wrong_words"] == 0  # atomic XOR loses nothing


@needs_gpu
def test_plain_xor_stays_within_hpccs_one_percent(tmp_path):
    done = run_hpcprobe("gpu", "ra", "--algo", "plain", *RUNS["ra"], "--out", str(tmp_path),
                        "--quiet")
    assert done.returncode == 0, done.stderr
    record = _records(tmp_path)[0]
    assert record["counters"]["wrong_words"] <= 0.01 * record["parameters"]["table_words"]


@needs_gpu
@pytest.mark.parametrize("variant, words", [("stream", 1), ("ra", 1 << 20)])
def test_a_corrupted_device_result_fails_its_check(tmp_path, variant, words):
    # ra: 2^20 flipped words of a 2^22-word table are over HPCC's 1 %
    done = run_hpcprobe("gpu", variant, *RUNS[variant], "--out", str(tmp_path), "--quiet",
                        env=dict(os.environ, HPCPROBE_INJECT_FAULT=f"corrupt:{words}"))
    assert done.returncode == 1, done.stderr
    record = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert record[0]["validation"]["verdict"] == "failed"
