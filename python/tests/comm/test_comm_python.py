"""The Python side of the communication family without MPI: HPCC's b_eff keys, the
tables, placement (files, exact launcher argv for mpiexec/mpirun/srun), compare, the
comm suite and the command-line checks."""

import copy
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import DATA, run_hpcprobe, stderr_lines, write_jsonl
from rich.console import Console

from hpcprobe.analysis.placement_view import placement_columns, placement_of
from hpcprobe.hpcc_summary.beff import beff_figures, beff_summary_entries
from hpcprobe.cli import main
from hpcprobe.families.comm.options import comm_bench_options, comm_bench_variant
from hpcprobe.families.comm.tables import comm_tables
from hpcprobe.errors import UsageError
from hpcprobe.hpcc_summary.summary import hpcc_summary_text
from hpcprobe.launch import MpiexecLauncher, MpirunLauncher, SrunLauncher, TemplateLauncher
from hpcprobe.launch.placement import (HOSTFILE, RANKFILE, apply_placement, bench_placement,
                                       parse_placement_text, plan_placement, read_placement)
from hpcprobe.families.comm.report import compare_label
from hpcprobe.results import parse_record_line
from hpcprobe.runner import Launch
from hpcprobe.suite.suites import suite_steps


def load(name):
    return copy.deepcopy(json.loads((DATA / f"{name}.json").read_text()))


def set_samples(record, name, samples):
    next(m for m in record["metrics"] if m["name"] == name)["samples"] = samples


def beff_record():
    record = load("beff-hpcc")
    set_samples(record, "pingpong_latency", [1e-6, 2e-6, 3e-6])
    set_samples(record, "pingpong_bandwidth", [1e9, 2e9, 6e9])
    set_samples(record, "natural_ring_latency", [4e-6, 2.5e-6, 3e-6])
    set_samples(record, "natural_ring_bandwidth", [5e9, 7.5e9, 6e9])
    set_samples(record, "random_ring_latency", [3.5e-6])
    set_samples(record, "random_ring_bandwidth", [4e9])
    return record


def test_golden_records_are_valid():
    for name in ("comm-pingpong", "comm-allreduce", "beff-hpcc", "pairs-bandwidth"):
        record, reason = parse_record_line((DATA / f"{name}.json").read_bytes())
        assert reason is None and record["schema_version"] == "1.2", (name, reason)


BEFF_KEY_NAMES = ("PingPong", "OrderedRing")


def beff_lines(text):
    return [line for line in text.splitlines() if any(word in line for word in BEFF_KEY_NAMES)]


def test_beff_keys_in_hpcc_order_and_units():
    text = hpcc_summary_text([beff_record()])
    assert "Success=1" in text.splitlines() and "CommWorldProcs=2" in text.splitlines()
    assert beff_lines(text) == [
        "MaxPingPongLatency_usec=3.0",
        "RandomlyOrderedRingLatency_usec=3.5",
        "MinPingPongBandwidth_GBytes=1.0",
        "NaturallyOrderedRingBandwidth_GBytes=7.5",
        "RandomlyOrderedRingBandwidth_GBytes=4.0",
        "MinPingPongLatency_usec=1.0",
        "AvgPingPongLatency_usec=2.0",
        "MaxPingPongBandwidth_GBytes=6.0",
        "AvgPingPongBandwidth_GBytes=3.0",
        "NaturallyOrderedRingLatency_usec=2.5",
    ]


def test_beff_keys_follow_stream_and_a_failed_beff_fails_success():
    record = beff_record()
    record["status"] = "failed"
    record["validation"]["verdict"] = "failed"
    stream = json.loads((DATA / "stream-single.json").read_text())
    lines = hpcc_summary_text([stream, record]).splitlines()
    assert "Success=0" in lines
    triad = next(i for i, line in enumerate(lines) if line.startswith("SingleSTREAM_Triad="))
    assert triad < lines.index("MaxPingPongLatency_usec=3.0")


def test_beff_figures_tolerate_hostile_samples():
    record = beff_record()
    set_samples(record, "pingpong_latency", [None, "x", True])
    figures = beff_figures(record)
    assert figures["MaxPingPongLatency_usec"] is None
    assert "MaxPingPongLatency_usec" not in dict(beff_summary_entries([record]))


def render(tables):
    console = Console(width=200, record=True)
    for table in tables:
        console.print(table)
    return console.export_text()


def test_tables_render_every_record():
    records = [load("comm-pingpong"), load("comm-allreduce"), load("beff-hpcc"),
               load("pairs-bandwidth")]
    text = render(comm_tables(records))
    assert "hpcprobe comm pingpong (IMB PingPong)" in text and "MB/s" in text
    assert "hpcprobe comm: every function" in text
    assert "randomly ordered ring" in text
    assert "ping-pong over 2 pairs" in text  # the run's one counter, not a per-rank list
    assert "intra-node" in text and "bandwidth matrix (GB/s)" in text


def test_tables_show_hostile_text_as_text():
    record = load("comm-pingpong")
    record["parameters"]["function"] = "[bold red]x[/]\x1b[2J"
    record["series"][0]["y"] = ["a", None, {}]
    text = render(comm_tables([record]))
    assert "[bold red]x[/]" in text and "\x1b" not in text


# --- placement ---------------------------------------------------------------------------

def test_placement_file_parsing():
    assert parse_placement_text("# c\n1 b 3\n0 a\n\n", 2) == (("a", None), ("b", 3))
    for text, message in [
        ("0 a\n", "does not cover every rank: rank 1 is missing"),
        ("0 a\n0 b\n1 a\n", "rank 0 is listed twice (lines 1 and 2)"),
        ("0 a\n2 b\n", "line 2: rank 2 is not one of the 2 ranks"),
        ("0 a x\n1 a\n", "line 1: CPU 'x' is not a number"),
        ("zero a\n", "line 1: expected 'RANK HOST [CPU]'"),
    ]:
        with pytest.raises(UsageError) as raised:
            parse_placement_text(text, 2, "p.txt")
        assert message in raised.value.message


def fake_mpi(tmp_path, flavour):
    """A launcher directory that looks like Open MPI's or MPICH hydra's."""
    folder = tmp_path / flavour / "bin"
    folder.mkdir(parents=True)
    marker = {"openmpi": "ompi_info", "hydra": "hydra_pmi_proxy"}[flavour]
    for name in ("mpiexec", "mpirun", marker):
        (folder / name).write_text("#!/bin/sh\n")
    return folder


@pytest.mark.parametrize("flavour, spec, expected", [
    ("openmpi", "block", ["--map-by", "slot"]),
    ("openmpi", "round-robin", ["--map-by", "node"]),
    ("hydra", "block", []),
    ("hydra", "round-robin", ["-ppn", "1"]),
])
def test_order_argv_mpiexec_and_mpirun(tmp_path, flavour, spec, expected):
    folder = fake_mpi(tmp_path, flavour)
    for launcher in (MpiexecLauncher(str(folder / "mpiexec")),
                     MpirunLauncher(str(folder / "mpirun"))):
        plan = plan_placement(read_placement(spec, 4), launcher, tmp_path)
        assert plan.launcher_args == expected and plan.by == "launcher"


@pytest.mark.parametrize("spec, expected", [("block", ["--distribution=block"]),
                                            ("round-robin", ["--distribution=cyclic"])])
def test_order_argv_srun(tmp_path, spec, expected):
    plan = plan_placement(read_placement(spec, 4), SrunLauncher("srun"), tmp_path)
    assert plan.launcher_args == expected and plan.env == {}


def placement_file(tmp_path, cpus=True):
    path = tmp_path / "place.txt"
    path.write_text("".join(f"{rank} n{rank % 2}{' ' + str(rank) if cpus else ''}\n"
                            for rank in range(4)))
    return str(path)


def test_file_argv_open_mpi(tmp_path):
    folder, out = fake_mpi(tmp_path, "openmpi"), tmp_path / "out"
    with_cpus = plan_placement(read_placement(placement_file(tmp_path), 4),
                               MpirunLauncher(str(folder / "mpirun")), out)
    assert with_cpus.launcher_args == ["--rankfile", str(out / RANKFILE)]
    assert with_cpus.files[RANKFILE].splitlines()[1] == "rank 1=n1 slot=1"
    hosts_only = plan_placement(read_placement(placement_file(tmp_path, cpus=False), 4),
                                MpiexecLauncher(str(folder / "mpiexec")), out)
    assert hosts_only.launcher_args == ["--hostfile", str(out / HOSTFILE), "--map-by", "seq"]
    assert hosts_only.files[HOSTFILE] == "n0\nn1\nn0\nn1\n"


def test_file_argv_hydra_and_srun(tmp_path):
    folder, out = fake_mpi(tmp_path, "hydra"), tmp_path / "out"
    placement = read_placement(placement_file(tmp_path), 4)
    hydra = plan_placement(placement, MpiexecLauncher(str(folder / "mpiexec")), out)
    assert hydra.launcher_args == ["-f", str(out / HOSTFILE)]
    assert hydra.files[HOSTFILE] == "n0:1\nn1:1\nn0:1\nn1:1\n"
    srun = plan_placement(placement, SrunLauncher("srun"), out)
    assert srun.launcher_args == ["--distribution=arbitrary"]
    assert srun.env == {"SLURM_HOSTFILE": str(out / HOSTFILE)}
    assert srun.by == "launcher"


def test_templates_leave_it_to_the_bench(tmp_path):
    plan = plan_placement(read_placement("round-robin", 4),
                          TemplateLauncher("aprun -n {np} {cmd}"), tmp_path)
    assert plan.launcher_args == [] and plan.by == "hpcprobe"
    assert bench_placement("comm", "round-robin", plan.by) == [
        "--placement", "round-robin", "--placement-by", "hpcprobe"]


def make_launch(tmp_path, benchmark, np, launcher):
    return Launch(benchmark, "x", ["--quiet"], np, launcher, ["--bind-to", "core"], "bench",
                  tmp_path, 10.0, ["hpcprobe"])


def test_apply_placement(tmp_path):
    placement = placement_file(tmp_path)
    launch = apply_placement(make_launch(tmp_path, "pairs", 4, SrunLauncher("srun")), placement)
    assert launch.launcher_args == ["--bind-to", "core", "--distribution=arbitrary"]
    assert launch.env["SLURM_HOSTFILE"] == str(tmp_path / HOSTFILE)
    assert (tmp_path / HOSTFILE).read_text() == "n0\nn1\nn0\nn1\n"
    assert launch.bench_options[-4:] == ["--placement", str(Path(placement).resolve()),
                                         "--placement-by", "launcher"]
    other = apply_placement(make_launch(tmp_path, "ra", 4, SrunLauncher("srun")), "block")
    assert other.bench_options == ["--quiet"]       # ra has no --placement of its own
    assert other.launcher_args[-1] == "--distribution=block"
    with pytest.raises(UsageError):                 # the file lists 4 ranks, not 3
        apply_placement(make_launch(tmp_path, "comm", 3, SrunLauncher("srun")), placement)


# --- compare --by placement --------------------------------------------------------------

def placed(placement, scale=1.0):
    record = load("pairs-bandwidth")
    record["parameters"]["placement"] = placement
    for metric in record["metrics"]:
        metric["samples"] = [scale * value for value in metric["samples"]]
    return record


def test_compare_by_placement(tmp_path):
    run = write_jsonl(tmp_path / "results.jsonl",
                      [placed("block"), placed("round-robin", 2.0), load("ra-single")])
    completed = run_hpcprobe("compare", "--by", "placement", str(run), "--format", "csv")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[1] == "metric,unit,block,round-robin,round-robin / block"
    intra = next(line for line in lines if "intra_node_bandwidth" in line)
    assert intra.startswith("pairs bandwidth tournament (64 KiB messages): intra_node")
    assert intra.endswith(",2")
    assert "1 record(s) of" in completed.stderr and "record no placement" in completed.stderr


def test_placement_names_and_labels():
    record = placed("file")
    record["parameters"]["placement_file"] = "/site/maps/pack.txt"
    assert placement_of(record) == "file pack.txt"
    assert placement_of(load("ra-single")) is None
    columns, unplaced = placement_columns([placed("block"), record, placed("block")])
    assert [(c.name, len(c.records)) for c in columns] == [("block", 2), ("file pack.txt", 1)]
    assert unplaced == 0
    comm = load("comm-pingpong")
    comm["parameters"]["off_cache"] = True
    assert compare_label(comm) == "at 1 MiB, off-cache"
    assert compare_label(load("beff-hpcc")) == ""


def test_compare_by_placement_needs_two_placements(tmp_path):
    run = write_jsonl(tmp_path / "results.jsonl", [placed("block")])
    completed = run_hpcprobe("compare", "--by", "placement", str(run))
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        f"hpcprobe: cannot compare by placement: {run} holds records of 1 placement(s) (block); "
        "run the other placement into the same --out DIR, or compare two runs"]


# --- options, suite ----------------------------------------------------------------------

def namespace(**kwargs):
    base = dict(command="comm", functions=[], sizes=None, time_per_size=None, off_cache=False,
                check=False, np_sweep=False)
    return SimpleNamespace(**{**base, **kwargs})


def test_bench_variant_and_options():
    assert comm_bench_variant(namespace()) == "all"
    assert comm_bench_variant(namespace(functions=["bcast"])) == "bcast"
    options = comm_bench_options(namespace(functions=["bcast", "gather"], sizes="0..1K",
                                           check=True))
    # As typed, in the bench's order; then the functions and timing hpcprobe chose.
    assert options == ["--sizes", "0..1K", "--check", "--functions", "bcast,gather",
                       "--timing", "hpcprobe"]
    # The bench gets --placement from the launch (launch/placement.py), not as typed.
    assert "--placement" not in comm_bench_options(namespace(placement="block"))
    # The layout chooses the policy unless --timing says otherwise.
    assert comm_bench_options(namespace(format="osu-tail"))[-2:] == ["--timing", "osu"]
    assert comm_bench_options(namespace(format="imb", timing="hpcprobe"))[-1] == "hpcprobe"
    assert comm_bench_variant(SimpleNamespace(command="beff")) == "hpcc"


def test_buffers_passed_to_the_bench():
    options = comm_bench_options(namespace(functions=["pingpong"], buffers="device"))
    assert options == ["--buffers", "device", "--timing", "hpcprobe"]
    assert comm_bench_options(namespace(buffers="host"))[:2] == ["--buffers", "host"]
    assert "--buffers" not in comm_bench_options(namespace())   # the bench's default: host
    # Without functions, --buffers device runs those that take it.
    device = namespace(buffers="device")
    assert comm_bench_variant(device) == "all"
    assert comm_bench_options(device)[2:4] == ["--functions", "pingpong,allreduce,alltoall"]
    pairs = SimpleNamespace(command="pairs", buffers="device", size="1M")
    assert comm_bench_options(pairs) == ["--size", "1M", "--buffers", "device"]


def test_device_records_are_labelled_apart():
    host = load("comm-pingpong")
    staged = load("comm-pingpong")
    staged["parameters"].update(buffers="device", device_transfer="staged")
    aware = copy.deepcopy(staged)
    aware["parameters"]["device_transfer"] = "cuda-aware"
    assert compare_label(host).endswith("at 1 MiB") or "device" not in compare_label(host)
    assert compare_label(staged).endswith(", device buffers, staged")
    assert compare_label(aware).endswith(", device buffers, CUDA-aware MPI")
    console = Console(width=300, record=True)
    for table in comm_tables([host, staged]):
        console.print(table)
    text = console.export_text()
    assert "not the MPI's own" in text and "pingpong (device buffers, staged)" in text
    from hpcprobe.families.comm.headline import comm_headline
    from hpcprobe.families.comm.report import _configurations
    assert len(_configurations([host, staged])) == 2     # never one set of curves
    assert comm_headline([host, staged]) == comm_headline([host])


def test_comm_suite():
    steps = suite_steps("comm", "tiny")
    assert [step.name for step in steps] == ["comm all", "beff hpcc", "pairs bandwidth"]
    assert steps[0].bench_options[:2] == ("--sizes", "0..4K")


def run_main(capsys, *argv):
    status = main(list(argv))
    return status, [line for line in capsys.readouterr().err.splitlines() if line.strip()]


@pytest.mark.parametrize("argv, message", [
    (["comm", "alreduce"], "unknown function 'alreduce' (allowed: pingpong, pingping, "),
    (["pairs", "--sizes", "1K"], "unknown option '--sizes' for 'hpcprobe pairs'"),
    (["comm", "--seed", "1"], "unknown option '--seed' for 'hpcprobe comm'"),
    (["comm", "bcast", "--np-swep"], "unknown option '--np-swep' for 'hpcprobe comm'"),
    (["compare", "--by", "placement", "a", "b"], "--by placement takes one SYSTEM"),
    (["pairs", "--placement", "/nonexistent"], "--placement /nonexistent: no such file"),
    (["run", "--placement", "/nonexistent"], "--placement /nonexistent: no such file"),
    (["comm", "bcast", "--buffers", "device"],
     "--buffers applies to 'hpcprobe comm all|pingpong|allreduce|alltoall' only, not to "
     "'comm bcast'"),
    (["comm", "--time-per-size", "0"], "--time-per-size must be a number > 0 and <= 600"),
    (["pairs", "--size", "2G"], "--size must be a size in bytes from 1 to 1G"),
    (["comm", "--buffers", "gpu"], "unknown buffers 'gpu'"),
    (["beff", "--buffers", "device"], "unknown option '--buffers' for 'hpcprobe beff'"),
])
def test_command_line_errors(capsys, argv, message):
    status, lines = run_main(capsys, *argv)
    assert status == 2 and len(lines) == 1 and message in lines[0], lines


def test_placement_file_must_cover_np(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("0 a\n1 a\n")
    status, lines = run_main(capsys, "pairs", "--np", "3", "--placement", str(path))
    assert status == 2 and "does not cover every rank: rank 2 is missing" in lines[0]


def test_unknown_function_suggests(capsys):
    _, lines = run_main(capsys, "comm", "allgathr")
    assert lines[0].endswith("did you mean 'allgather'?")


def test_missing_launcher_is_exit_3(tmp_path):
    completed = run_hpcprobe("beff", "--launcher", "srun", "--out", str(tmp_path / "o"),
                             env={"PATH": str(tmp_path)})
    assert completed.returncode == 3 and "launcher 'srun' not found" in stderr_lines(
        completed)[0]


def test_reader_takes_every_schema_version_and_checks_matrices():
    record = load("ra-single")      # 1.0 and 1.1 records stay readable
    for version in ("1.0", "1.1", "1.2"):
        record["schema_version"] = version
        assert parse_record_line(json.dumps(record).encode())[1] is None
    record = load("pairs-bandwidth")
    record["matrices"][0]["values"][1].append(1.0)
    reason = parse_record_line(json.dumps(record).encode())[1]
    assert reason.startswith("matrices.0.values: rows of different lengths")
