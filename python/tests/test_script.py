"""`hpcprobe script`: Slurm and PBS job scripts (docs/cli.md).

The generated scripts are read (directives), checked by `bash -n`, and run by bash with a
scheduler's environment faked and a stand-in for hpcprobe that writes down the argv it
got, so quoting is checked by the shell itself. Then a script goes through the real
sbatch of an emulated cluster (`cluster up --slurm`): that needs root, iproute2,
slurm-wlm and munge, and fails with the reason where they are missing, never skips."""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
from helpers import run_hpcprobe
import integration

from hpcprobe.cli import main
from hpcprobe.cluster import load_cluster
from hpcprobe.results import read_records

# Neither words nor a file name a shell may act on: every character here must reach
# hpcprobe as it is.
HOSTILE_OUT = "a b;rm -rf x"
HOSTILE_ARG = "$(touch pwned) `touch pwned` 'q\" \\ *"
# The venv's hpcprobe, which the cluster's jobs run (CI does not put the venv on PATH).
HPCPROBE = str(Path(sys.executable).parent / "hpcprobe")
# Stands in for hpcprobe: writes its arguments, as a JSON list, to $FAKE_ARGV.
FAKE_HPCPROBE = ("#!" + sys.executable + "\nimport json, os, sys\n"
                 "open(os.environ['FAKE_ARGV'], 'w').write(json.dumps(sys.argv[1:]))\n")


def script(capsys, *argv: str) -> str:
    assert main(["script", *argv]) == 0
    return capsys.readouterr().out


def directives(text: str, prefix: str) -> List[str]:
    """The directive lines; each must come before the first command (sbatch and qsub
    stop reading them there)."""
    lines = text.splitlines()
    first_command = next(i for i, line in enumerate(lines)
                         if line.strip() and not line.startswith("#"))
    assert all(not line.startswith(prefix) for line in lines[first_command:])
    return [line[len(prefix):].strip() for line in lines[:first_command]
            if line.startswith(prefix + " ")]


def assert_bash_syntax(path: Path) -> None:
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def run_script(tmp_path: Path, text: str, env: Dict[str, str]) -> List[str]:
    """Run the script with bash in tmp_path with the scheduler's variables `env` and a
    fake scontrol on PATH; the argv the fake hpcprobe got."""
    job = tmp_path / "job.sh"
    job.write_text(text)
    assert_bash_syntax(job)
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    scontrol = tools / "scontrol"  # `scontrol show hostnames LIST`: n0, n1
    scontrol.write_text("#!/bin/sh\nprintf 'n0\\nn1\\n'\n")
    scontrol.chmod(0o755)
    argv_file = tmp_path / "argv.json"
    done = subprocess.run(["bash", str(job)], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": f"{tools}:{os.environ['PATH']}",
                               "FAKE_ARGV": str(argv_file), **env}, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(argv_file.read_text())


@pytest.fixture
def fake(tmp_path) -> str:
    path = tmp_path / "fake-hpcprobe"
    path.write_text(FAKE_HPCPROBE)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_slurm_directives_ask_for_what_was_given(capsys, tmp_path):
    text = script(capsys, "--scheduler", "slurm", "--nodes", "4", "--ntasks-per-node", "8",
                  "--time", "01:30:00", "--partition", "batch", "--account", "proj.1",
                  "--job-name", "gups", "--", "ra", "mpi", "--table-log2", "20")
    assert text.startswith("#!/bin/bash\n")
    assert directives(text, "#SBATCH") == [
        "--job-name=gups", "--nodes=4", "--ntasks-per-node=8", "--time=01:30:00",
        "--partition=batch", "--account=proj.1", "--output=gups-%j.out"]
    (tmp_path / "job.sh").write_text(text)
    assert_bash_syntax(tmp_path / "job.sh")
    # N x K ranks; no launcher named: hpcprobe picks srun inside the allocation.
    assert text.splitlines()[-1].endswith(
        ' ra mpi --table-log2 20 --np 32 "--out=$RESULTS"')


def test_pbs_directives_ask_for_chunks_walltime_queue_and_account(capsys, tmp_path):
    text = script(capsys, "--scheduler", "pbs", "--nodes", "2", "--ntasks-per-node", "4",
                  "--time", "100:00:00", "--partition", "workq", "--account", "a1",
                  "--", "stream", "star")
    assert directives(text, "#PBS") == [
        "-N hpcprobe", "-S /bin/bash", "-j oe", "-l select=2:ncpus=4:mpiprocs=4",
        "-l walltime=100:00:00", "-q workq", "-A a1"]
    (tmp_path / "job.sh").write_text(text)
    assert_bash_syntax(tmp_path / "job.sh")


def test_slurm_script_runs_the_command_with_hostile_arguments_unchanged(capsys, tmp_path,
                                                                      fake):
    (tmp_path / "x").mkdir()  # what `rm -rf x` would remove
    text = script(capsys, "--scheduler", "slurm", "--nodes", "2", "--ntasks-per-node", "2",
                  "--hpcprobe", fake, "--", "comm", "pingpong", "--out", HOSTILE_OUT,
                  "--launcher-arg", HOSTILE_ARG)
    argv = run_script(tmp_path, text, {"SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "n[0-1]",
                                       "SLURM_JOB_PARTITION": 'p"\\\n\x01q'})
    assert argv == ["comm", "pingpong", "--launcher-arg", HOSTILE_ARG, "--np", "4",
                    f"--out={HOSTILE_OUT}"]
    assert (tmp_path / "x").is_dir() and not (tmp_path / "pwned").exists()
    allocation = json.loads((tmp_path / HOSTILE_OUT / "allocation.json").read_text())
    assert allocation == {
        "scheduler": "slurm", "job_id": "77", "array_index": None, "hosts": ["n0", "n1"],
        "variables": {"SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "n[0-1]",
                      "SLURM_JOB_PARTITION": 'p"\\q'}}  # control characters left out


def test_slurm_array_element_runs_its_value_into_its_own_directory(capsys, tmp_path, fake):
    text = script(capsys, "--scheduler", "slurm", "--hpcprobe", fake, "--array-over",
                  "--table-log2=14,16,18", "--", "ra", "single")
    assert directives(text, "#SBATCH")[-2:] == ["--array=0-2", "--output=hpcprobe-%A_%a.out"]
    argv = run_script(tmp_path, text, {"SLURM_JOB_ID": "91", "SLURM_ARRAY_JOB_ID": "90",
                                       "SLURM_ARRAY_TASK_ID": "1"})
    out = tmp_path / "hpcprobe-results-90_1"
    assert argv == ["ra", "single", "--table-log2=16", "--np", "1", f"--out={out.name}"]
    allocation = json.loads((out / "allocation.json").read_text())
    assert (allocation["job_id"], allocation["array_index"]) == ("91", "1")


def test_pbs_array_uses_mpiexec_with_the_node_file(capsys, tmp_path, fake):
    text = script(capsys, "--scheduler", "pbs", "--nodes", "2", "--ntasks-per-node", "2",
                  "--hpcprobe", fake, "--array-over", "lookahead=1,1024", "--",
                  "ra", "mpi", "--out", "runs")
    assert directives(text, "#PBS")[-1] == "-J 0-1"
    node_file = tmp_path / "nodes"
    node_file.write_text("n0\nn0\nn1\nn1\n")
    workdir = tmp_path / "work"
    workdir.mkdir()
    argv = run_script(tmp_path, text, {
        "PBS_JOBID": "123[1].server", "PBS_ARRAY_ID": "123[].server", "PBS_ARRAY_INDEX": "1",
        "PBS_NODEFILE": str(node_file), "PBS_O_WORKDIR": str(workdir)})
    assert argv == ["ra", "mpi", "--lookahead=1024", "--np", "4", "--launcher", "mpiexec",
                    "--launcher-arg=--hostfile", f"--launcher-arg={node_file}", "--out=runs/1"]
    allocation = json.loads((workdir / "runs" / "1" / "allocation.json").read_text())
    assert allocation["scheduler"] == "pbs" and allocation["hosts"] == ["n0", "n1"]
    assert allocation["job_id"] == "123[1].server"


def test_what_the_command_gives_is_kept(capsys):
    last = script(capsys, "--scheduler", "pbs", "--nodes", "2", "--", "ra", "mpi", "--np",
                  "3", "--launcher", "mpirun").splitlines()[-1]
    assert last.endswith(' ra mpi --np 3 --launcher mpirun "--out=$RESULTS"')
    # A command without launch options gets none.
    assert script(capsys, "--scheduler", "slurm", "--", "sysinfo").splitlines()[-1] == (
        '"$HPCPROBE" sysinfo')


def test_script_is_written_to_output_and_defaults_to_this_hpcprobe(capsys, tmp_path):
    target = tmp_path / "job.sh"
    assert main(["script", "--scheduler", "slurm", "--output", str(target), "--", "list"]) == 0
    assert capsys.readouterr().out == ""
    assert re.search(r"^HPCPROBE=(\S+)$", target.read_text(), re.M).group(1) == HPCPROBE


@pytest.mark.parametrize("argv, says", [
    (["--scheduler", "lsf", "--", "ra", "single"],
     "unknown scheduler 'lsf' (allowed: slurm, pbs)"),
    (["--", "ra", "single"], "missing --scheduler (allowed: slurm, pbs)"),
    (["--scheduler", "slurm", "--nodes", "0", "--", "ra", "single"],
     "--nodes must be a whole number >= 1, not '0'"),
    (["--scheduler", "pbs", "--ntasks-per-node", "-1", "--", "ra", "single"],
     "--ntasks-per-node must be a whole number >= 1, not '-1'"),
    (["--scheduler", "slurm", "--time", "1:60:00", "--", "ra", "single"],
     "--time takes a time limit HH:MM:SS"),
    (["--scheduler", "slurm", "--time", "30", "--", "ra", "single"], "not '30'"),
    (["--scheduler", "slurm", "--time", "00:00:00", "--", "ra", "single"], "not all zero"),
    (["--scheduler", "slurm", "--"], "missing command: hpcprobe script"),
    (["--scheduler", "slurm"], "allowed: peak, ra, stream, mem,"),
    (["--scheduler", "slurm", "--", "rm", "-rf", "/"],
     "the job's command is not an hpcprobe command: 'rm' (allowed: peak, ra, "),
    (["--scheduler", "slurm", "--", "script", "--scheduler", "pbs"],
     "'hpcprobe script' does not run inside a job"),
    (["--scheduler", "slurm", "--", "ra", "singel"],
     "the job's command: unknown variant 'singel'"),
    (["--scheduler", "slurm", "--", "comm", "--np", "0"],
     "the job's command: --np must be a whole number >= 1, not '0'"),
    (["--scheduler", "slurm", "--", "ra", "single", "--help"],
     "the job's command asks for --help"),
    (["--scheduler", "pbs", "--partition", "a\n#PBS -l x", "--", "ra", "single"],
     "--partition takes a partition"),
    (["--scheduler", "pbs", "--job-name", "9lives", "--", "ra", "single"],
     "--job-name takes a letter"),
    (["--scheduler", "slurm", "--array-over", "--table-log2=14", "--", "ra", "single"],
     "--array-over takes OPTION=V1,V2,..."),
    (["--scheduler", "slurm", "--array-over", "--table-log2=14,,16", "--", "ra", "single"],
     "none empty"),
    (["--scheduler", "slurm", "--array-over", "--nope=1,2", "--", "ra", "single"],
     "the job's command: unknown option '--nope' for 'hpcprobe ra'"),
    (["--scheduler", "slurm", "--array-over", "--table-log2=14,16", "--", "ra", "single",
      "--table-log2=12"], "the job's command gives --table-log2 too"),
    (["--scheduler", "slurm", "--array-over", "--out=a,b", "--", "ra", "single"],
     "--array-over cannot take --out"),
])
def test_bad_input_is_one_line_and_exit_2_and_writes_nothing(capsys, tmp_path, argv, says):
    target = tmp_path / "job.sh"
    assert main(["script", "--output", str(target), *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert captured.out == "" and not target.exists()


# -- Through a real Slurm: the emulated cluster's sbatch ---------------------------------

NAME = f"j{os.getpid() % 100000}"


@pytest.fixture(scope="module")
def slurm_env(tmp_path_factory):
    return integration.slurm_env(tmp_path_factory.mktemp("clusters"))


@pytest.fixture(scope="module")
def cluster(slurm_env):
    """Two hosts with Slurm, removed after the tests whatever happens."""
    with integration.slurm_cluster(NAME, slurm_env):
        yield load_cluster(NAME, slurm_env)


def submit(env, directory: Path, *script_argv: str) -> List[Path]:
    """Write the script into `directory`, submit it with sbatch --wait from there, and
    return the results directories the job made."""
    job = directory / "job.sh"
    done = run_hpcprobe("script", "--scheduler", "slurm", "--hpcprobe", HPCPROBE,
                        "--time", "00:05:00", "--output", str(job), *script_argv, env=env)
    assert done.returncode == 0, done.stderr
    done = run_hpcprobe("cluster", "exec", "--name", NAME, "--", "sbatch", "--wait",
                        f"--chdir={directory}", str(job), env=env, timeout=300)
    outputs = "".join(path.read_text() for path in sorted(directory.glob("hpcprobe-*.out")))
    assert done.returncode == 0, done.stderr + outputs
    return sorted(directory.glob("hpcprobe-results-*"))


def passed_records(results: Path):
    found = read_records(results / "results.jsonl")
    assert found.problems == [] and found.records
    for record in found.records:
        assert record["validation"]["verdict"] == "passed", record["validation"]
    return found.records


def test_sbatch_runs_the_script_on_both_hosts(cluster, slurm_env, tmp_path):
    (results,) = submit(slurm_env, tmp_path, "--nodes", "2", "--", "ra", "mpi",
                        "--table-log2", "14", "--quiet")
    allocation = json.loads((results / "allocation.json").read_text())
    hosts = [host.name for host in cluster.hosts]
    assert allocation["hosts"] == hosts
    assert results.name == f"hpcprobe-results-{allocation['job_id']}"
    assert allocation["variables"]["SLURM_NTASKS"] == "2"
    for record in passed_records(results):
        assert record["layout"]["ranks"] == 2
        assert record["metadata"]["hosts"] == hosts
        assert record["metadata"]["slurm_job_id"] == allocation["job_id"]


def test_sbatch_runs_an_array_element_per_value(cluster, slurm_env, tmp_path):
    found = submit(slurm_env, tmp_path, "--array-over", "--table-log2=12,13", "--",
                   "ra", "single", "--quiet")
    assert [path.name.rsplit("_", 1)[1] for path in found] == ["0", "1"]
    hosts = {host.name for host in cluster.hosts}
    for index, results in enumerate(found):
        allocation = json.loads((results / "allocation.json").read_text())
        assert allocation["array_index"] == str(index)
        assert len(allocation["hosts"]) == 1 and allocation["hosts"][0] in hosts
        (record,) = passed_records(results)
        assert record["parameters"]["table_log2"] == 12 + index
        assert record["metadata"]["slurm_job_id"] == allocation["job_id"]
