"""The GPU family's Python side on a machine without a GPU: the parser's one-line refusals;
no device (this machine's bench, and a stand-in that has none) is one line naming what is
missing, exit status 2, nothing launched; against a stand-in bench with one made-up device
(fake_gpu_bench.py): the launch and its options, `gpu info`, the tables, the report section
(a hostile device name escaped), the headline figures, and the main job, which adds its GPU
steps only when `gpu info` lists a device."""

import argparse
import io
import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from fake_gpu_bench import copy_records, device, ra_record, stream_record
from helpers import TESTS, run_hpcprobe, stderr_lines, write_jsonl
from rich.console import Console

from hpcprobe.cli import main
from hpcprobe.suite.command import _family_main_steps, _plan
from hpcprobe.families import FAMILIES
from hpcprobe.families.gpu.headline import gpu_headline
from hpcprobe.families.gpu.info import parse_info
from hpcprobe.families.gpu.suite import gpu_main_steps
from hpcprobe.families.gpu.tables import gpu_tables, info_table
from hpcprobe.launch import find_bench
from hpcprobe.launching import LaunchContext
from hpcprobe.suite.main_job import main_steps
from hpcprobe.results import read_records
from hpcprobe.suite.manifest import read_manifest

STAND_IN = TESTS / "fake_gpu_bench.py"
TEMPLATE = "env FAKE_NP={np} {cmd}"
HOSTILE = "<script>alert('gpu')</script>&H200"
NO_DEVICE_LINE = ("hpcprobe: gpu: no CUDA device on this node (cudaGetDeviceCount: no "
                  "CUDA-capable device is detected)")


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """HPCPROBE_BENCH is the stand-in (a shell wrapper around fake_gpu_bench.py)."""
    bench = tmp_path / "bin" / "hpcprobe-bench"
    bench.parent.mkdir()
    bench.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} "
                     f"{shlex.quote(str(STAND_IN))} \"$@\"\n")
    bench.chmod(0o755)
    env = dict(os.environ, HPCPROBE_BENCH=str(bench), FAKE_ARGV_FILE=str(tmp_path / "argv"),
               FAKE_REAL_BENCH=find_bench(os.environ))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def calls(tmp_path):
    path = tmp_path / "argv"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def text_of(tables):
    console = Console(file=io.StringIO(), width=200, color_system=None)
    for table in tables:
        console.print(table)
    return console.file.getvalue()


# --- the command line ------------------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    (["gpu"], "missing variant for 'hpcprobe gpu' (allowed: stream, ra, copy, info)"),
    (["gpu", "strem"], "unknown variant 'strem' (allowed: stream, ra, copy, info); did you "
                       "mean 'stream'?"),
    (["gpu", "ra", "--algo", "atomc"], "unknown algorithm 'atomc' (allowed: atomic, plain); "
                                       "did you mean 'atomic'?"),
    (["gpu", "copy", "--host-memory", "pined"],
     "unknown host memory 'pined' (allowed: pinned, pageable, both); did you mean 'pinned'?"),
    (["gpu", "copy", "--kinds", "h2d,h2d"], "--kinds 'h2d,h2d' names 'h2d' twice"),
    # the wording of the bench's list grammar (docs/cli.md), which takes all too
    (["gpu", "copy", "--kinds", "h2d,x2d"], "--kinds 'h2d,x2d': unknown 'x2d'; did you mean "
                                            "'h2d'? (allowed: all, or a comma list of h2d, "
                                            "d2h, d2d, p2p, each once)"),
    (["gpu", "copy", "--kinds", "all,h2d"], "--kinds 'all,h2d': all goes alone"),
    # the ranges are the bench's: the loosest of the variants', then the variant's own
    (["gpu", "stream", "--repeat", "0"], "--repeat must be a whole number from 1 to 1000, "
                                         "not '0'"),
    (["gpu", "stream", "--repeat", "1"], "--repeat must be a whole number from 2 to 1000, "
                                         "not '1' ('gpu stream')"),
    (["gpu", "stream", "--device", "one"], "--device must be a whole number from 0 to 1023, "
                                           "not 'one'"),
    (["gpu", "ra", "--memory-fraction", "1.5"],
     "--memory-fraction must be a number > 0 and <= 0.9, not '1.5'"),
    (["gpu", "copy", "--max-bytes", "1X"],
     "--max-bytes must be a size in bytes from 8 to 1T (digits with an optional K, M, G or T, "
     "such as 4096, 64K, 1MiB), not '1X'"),
    (["gpu", "stream", "--algo", "plain"], "--algo applies to 'hpcprobe gpu ra' only, not to "
                                           "'gpu stream'"),
    (["gpu", "ra", "--kinds", "h2d"], "--kinds applies to 'hpcprobe gpu copy' only, not to "
                                      "'gpu ra'"),
    (["gpu", "copy", "--no-verify"], "--no-verify applies to 'hpcprobe gpu stream|ra' only, "
                                     "not to 'gpu copy'"),
    (["gpu", "ra", "--devices", "all"], "--devices applies to 'hpcprobe gpu stream' only, not "
                                        "to 'gpu ra'"),
    (["gpu", "stream", "--devices", "0"], "--devices must be all or a whole number >= 1, not "
                                          "'0'"),
    (["gpu", "stream", "--devices", "all", "--np", "2"],
     "--devices chooses the ranks and their devices; leave out --np"),
    (["gpu", "info", "--np", "2"], "--np applies to 'hpcprobe gpu stream|ra|copy', not to "
                                   "'gpu info' (it asks this node's devices and launches "
                                   "nothing)"),
])
def test_mistakes_are_one_line_and_exit_2(capsys, argv, expected):
    status = main(argv)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert (status, lines) == (2, [f"hpcprobe: {expected}"])


def test_this_machines_bench_names_what_is_missing(tmp_path):
    """No GPU here: the bench's own reason, one line, exit 2, no results directory."""
    out = tmp_path / "out"
    done = run_hpcprobe("gpu", "stream", "--out", str(out))
    lines = stderr_lines(done)
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("hpcprobe: gpu: ")
    reasons = ("no CUDA device", "no CUDA driver", "built without CUDA")
    assert any(why in lines[0] for why in reasons)
    assert not out.exists()


@pytest.mark.parametrize("variant", ["stream", "ra", "copy", "info"])
def test_no_device_is_one_line_before_any_launch(stand_in, tmp_path, variant):
    env = dict(stand_in, FAKE_GPU_DEVICES="0")
    out = tmp_path / "out"
    extra = () if variant == "info" else ("--out", str(out), "--launcher", TEMPLATE)
    done = run_hpcprobe("gpu", variant, *extra, env=env)
    assert (done.returncode, stderr_lines(done)) == (2, [NO_DEVICE_LINE])
    assert [call["argv"] for call in calls(tmp_path)] == [["gpu", "info"]]
    assert not out.exists()


def test_a_launch_passes_the_options_as_typed_and_prints_the_tables(stand_in, tmp_path):
    out = tmp_path / "out"
    done = run_hpcprobe("gpu", "copy", "--kinds", "h2d,d2d", "--max-bytes", "1M",
                        "--host-memory", "pinned", "--device", "0", "--out", str(out),
                        "--launcher", TEMPLATE, "--quiet", env=stand_in)
    assert done.returncode == 0, done.stderr
    info, launch = calls(tmp_path)
    assert info["argv"] == ["gpu", "info"]
    assert launch["np"] == "1"
    assert launch["argv"] == ["gpu", "copy", "--device", "0", "--kinds", "h2d,d2d",
                              "--host-memory", "pinned", "--max-bytes", "1M", "--out",
                              str(out / "results.jsonl")]
    found = read_records(out / "results.jsonl")
    assert found.problems == [] and len(found.records) == 2  # valid against the schema
    assert "hpcprobe gpu copy: device 0 (Fake GPU, sm 9.0)" in done.stdout
    assert "host to device, pinned" in done.stdout and "device to device" in done.stdout


def test_devices_all_measures_each_device_then_all_at_once(stand_in, tmp_path):
    env = dict(stand_in, FAKE_GPU_DEVICES="3")
    done = run_hpcprobe("gpu", "stream", "--devices", "all", "--out", str(tmp_path / "o"),
                        "--launcher", TEMPLATE, "--quiet", env=env)
    assert done.returncode == 0, done.stderr
    launched = [(c["np"], c["argv"]) for c in calls(tmp_path) if c["argv"][:2] == ["gpu", "stream"]]
    # each device alone, then all three at once (one rank each)
    assert [np for np, _ in launched] == ["1", "1", "1", "3"]
    for index, (_, argv) in enumerate(launched[:3]):
        assert argv[argv.index("--device") + 1] == str(index)
    assert "--device" not in launched[3][1]
    found = read_records(tmp_path / "o" / "results.jsonl")
    assert found.problems == [] and len(found.records) == 4
    refused = run_hpcprobe("gpu", "stream", "--devices", "4", "--launcher", TEMPLATE, env=env)
    assert stderr_lines(refused) == ["hpcprobe: --devices 4: this node has 3 devices "
                                     "('hpcprobe gpu info')"]


def test_info_lists_the_devices_as_plain_text(stand_in):
    done = run_hpcprobe("gpu", "info", env=dict(stand_in, FAKE_GPU_NAME="NVIDIA H200\x1b[31m"))
    assert done.returncode == 0, done.stderr
    assert "1 device(s); build cuda 13.0" in done.stdout
    assert "\x1b" not in done.stdout and "NVIDIA H200" in done.stdout
    assert "4800" in done.stdout  # the nominal GB/s
    assert "63.0 (32 GT/s x16)" in done.stdout  # the host link, from sysfs


def test_a_link_sysfs_does_not_give_is_unknown_not_guessed():
    text = text_of([info_table([device(1, "second")], "cuda 13.0")])
    assert "unknown" in text and "63.0" not in text


def test_a_garbled_info_line_is_an_error_not_a_device():
    with pytest.raises(Exception, match="printed no device list"):
        parse_info("not json\n[1, 2]\n")
    assert parse_info('{"build": "cuda 13.0", "devices": ["x", {"index": 0}]}').devices == (
        {"index": 0},)


# --- tables, report, headline ----------------------------------------------------------

def all_records(name="Fake GPU"):
    return ([stream_record(name), ra_record(name), ra_record(name, "plain", wrong=7)]
            + copy_records("h2d,d2h,d2d", "both", name))


def test_the_tables_show_rates_fractions_and_verdicts():
    text = text_of(gpu_tables(all_records()))
    triad = next(line for line in text.splitlines() if "Triad" in line)
    assert "4200" in triad and "4116" in triad and "87.5 %" in triad  # best, median, of 4.8 TB/s
    assert "Dot" in text and "arrays of 4 MiB" in text
    plain = next(line for line in text.splitlines() if line.strip("│ ").startswith("plain"))
    assert "20" in plain and "7" in plain and "passed" in plain
    pinned = next(line for line in text.splitlines() if "host to device, pinned" in line)
    assert "1 MiB" in pinned and "4 KiB" in pinned


def test_the_report_section_escapes_a_hostile_device_name(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", all_records(HOSTILE))
    out = tmp_path / "r.html"
    done = run_hpcprobe("report", str(tmp_path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(" in html
    section = html.split('<h2 id="gpu', 1)[1]
    for title in ("Device memory bandwidth", "RandomAccess on the device",
                  "Copies between host and device", "GPU copies: bandwidth against size"):
        assert title in section


def test_the_report_says_which_parts_are_absent(tmp_path):
    write_jsonl(tmp_path / "results.jsonl", [stream_record()])
    out = tmp_path / "r.html"
    assert run_hpcprobe("report", str(tmp_path), "-o", str(out)).returncode == 0
    section = out.read_text().split('<h2 id="gpu', 1)[1]
    assert "absent: RandomAccess on a device" in section and "absent: host-device" in section


def test_the_headline_has_the_gpu_figures_only_when_records_exist():
    figures = {figure.label: figure for figure in gpu_headline(all_records())}
    assert set(figures) == {"GPU Triad, device 0 (best)", "GPU RandomAccess (atomic)",
                            "host to device, pinned, 1 MiB", "device to host, pinned, 1 MiB"}
    assert figures["GPU Triad, device 0 (best)"].value == pytest.approx(4.2e12)
    assert figures["GPU RandomAccess (atomic)"].value == pytest.approx(20e9)
    assert {figure.subsystem for figure in figures.values()} == {"GPU"}
    assert gpu_headline([]) == []
    many = gpu_headline([stream_record(device_index=-1, devices=2, scale=2.0)])
    assert [figure.label for figure in many] == ["GPU Triad, 2 devices at once (sum, best)"]


# --- the main job -----------------------------------------------------------------------

def test_the_main_job_adds_gpu_steps_only_with_a_device(stand_in, monkeypatch):
    bench = stand_in["HPCPROBE_BENCH"]
    steps, note = gpu_main_steps("tiny", 2, bench)
    assert note == "" and [step.name for step in steps] == ["gpu stream", "gpu ra atomic",
                                                           "gpu copy"]
    assert all(step.ranks == 1 for step in steps)
    assert steps[2].bench_options == ("--device", "0", "--max-bytes", "1M", "--host-memory",
                                      "pinned", "--repeat", "3")
    monkeypatch.setenv("FAKE_GPU_DEVICES", "0")
    assert gpu_main_steps("tiny", 2, bench) == (
        [], "no GPU: gpu steps left out (no CUDA device on this node (cudaGetDeviceCount: "
            "no CUDA-capable device is detected))")
    assert gpu_main_steps("tiny", 2, "/nonexistent/bench")[1].startswith("no GPU: ")


def _run_args(out: Path) -> argparse.Namespace:
    return argparse.Namespace(suite=None, scale="tiny", repeat=1, placement=None, np=2,
                              out=str(out), launcher=TEMPLATE, launcher_arg=[], quiet=True,
                              cluster=None, ppn=None, time_budget=None)


@pytest.mark.parametrize("devices", ["1", "0"])
def test_the_main_jobs_plan_and_run_json(stand_in, monkeypatch, tmp_path, devices):
    monkeypatch.setenv("FAKE_GPU_DEVICES", devices)
    args = _run_args(tmp_path / "out")
    run = _plan(args, LaunchContext(args, [], default_np=2))
    names = [step.name for step in run.steps]
    expected = [step.name for step in main_steps("tiny", 2)]
    # the stand-in answers gpu only: the run goes on without a plan, and says so first
    assert run.manifest.notes[0].startswith("no plan: 'hpcprobe-bench sizes' failed")
    gpu_notes = run.manifest.notes[1:]
    if devices == "0":
        assert names == expected
        assert gpu_notes == ["no GPU: gpu steps left out (no CUDA device on this "
                                      "node (cudaGetDeviceCount: no CUDA-capable device is "
                                      "detected))"]
    else:
        assert names == expected + ["gpu stream", "gpu ra atomic", "gpu copy"]
        assert gpu_notes == []
    run.manifest.write(tmp_path / "out")
    assert json.loads((tmp_path / "out" / "run.json").read_text())["notes"] == \
        run.manifest.notes
    assert read_manifest(tmp_path / "out") is not None


def test_only_the_gpu_family_adds_main_job_steps(capsys):
    assert [family.name for family in FAMILIES if family.main_steps] == ["gpu"]

    steps, notes = _family_main_steps([], "tiny", 2, "/nonexistent/bench", False)
    assert steps == [] and len(notes) == 1 and notes[0].startswith("no GPU: gpu steps left out")
    assert capsys.readouterr().err == f"hpcprobe: note: {notes[0]}\n"


def test_the_help_lists_every_option(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["gpu", "--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    # the help is the bench's description: its options', its kernels' summaries, and the
    # defaults of the variants that differ
    assert "--host-memory pinned|pageable|both" in shown and "races within HPCC's 1%" in shown
    assert "(default 10; ra: 1; copy: 5)" in " ".join(shown.split())
