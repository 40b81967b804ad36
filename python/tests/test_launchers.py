"""Launcher argv, default choice, executable resolution, and 'not found' handling."""

import os
import sys
from pathlib import Path

import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.errors import HpcprobeError, UsageError
from hpcprobe.launch import (
    MpiexecLauncher,
    MpirunLauncher,
    SrunLauncher,
    TemplateLauncher,
    default_launcher_name,
    find_bench,
    launcher_names,
    register_launcher,
    resolve_launcher,
)
from hpcprobe.launch import launchers as launchers_module

PROGRAM = ["hpcprobe-bench", "ra", "mpi", "--table-log2", "14"]
BIND = ["--bind-to", "core"]


def make_executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("launcher, np_flag", [
    (MpiexecLauncher("mpiexec"), "-n"),
    (MpirunLauncher("mpirun"), "-np"),
    (SrunLauncher("srun"), "-n"),
])
def test_named_launcher_argv_is_exact(launcher, np_flag):
    expected = [launcher.executable, np_flag, "4", "--bind-to", "core", *PROGRAM]
    assert launcher.command(4, BIND, PROGRAM) == expected


def test_registered_names():
    assert launcher_names()[:3] == ["mpiexec", "mpirun", "srun"]


def test_template_substitutes_np_and_cmd():
    template = TemplateLauncher("aprun -n {np} -N 2 {cmd}")
    assert template.command(4, [], PROGRAM) == ["aprun", "-n", "4", "-N", "2", *PROGRAM]


def test_template_puts_launcher_args_before_program():
    template = TemplateLauncher("aprun -n {np} {cmd}")
    assert template.command(4, BIND, PROGRAM) == ["aprun", "-n", "4", *BIND, *PROGRAM]


def test_template_quotes_and_np_inside_words():
    template = TemplateLauncher("""wrap --label "two words" --ranks={np} 'x {np}' {cmd}""")
    assert template.command(3, [], ["prog"]) == [
        "wrap", "--label", "two words", "--ranks=3", "x 3", "prog"]


@pytest.mark.parametrize("launcher", [
    MpiexecLauncher("mpiexec"), MpirunLauncher("mpirun"), SrunLauncher("srun"),
    TemplateLauncher("aprun -n {np} {cmd}"),
])
def test_shell_metacharacters_stay_one_argv_element(launcher):
    hostile = "14; rm -rf ~ && $(reboot) | tee `x` > y *"
    argv = launcher.command(2, [], ["hpcprobe-bench", "ra", "single", "--table-log2", hostile])
    assert argv[-1] == hostile
    assert argv.count(hostile) == 1


@pytest.mark.parametrize("template", [
    "aprun -n {np}",               # no {cmd}: not a template but an unknown name
    "aprun -n {np} {cmd}{cmd}",    # {cmd} not a word of its own
    "aprun {cmd} {cmd}",           # twice
    "{cmd} -n {np}",               # no program
    'aprun "unbalanced {cmd}',     # shlex cannot split it
])
def test_malformed_templates_are_usage_errors(template):
    with pytest.raises(UsageError):
        resolve_launcher(template, {"PATH": "/nonexistent"})


def test_unknown_launcher_name_suggests():
    with pytest.raises(UsageError) as raised:
        resolve_launcher("mpirn", {"PATH": "/nonexistent"})
    assert "did you mean 'mpirun'?" in raised.value.message
    assert raised.value.exit_status == 2


def test_default_is_srun_inside_slurm_when_srun_exists(tmp_path):
    srun = make_executable(tmp_path / "bin" / "srun")
    env = {"PATH": str(srun.parent), "SLURM_JOB_ID": "1234"}
    assert default_launcher_name(env) == "srun"
    launcher = resolve_launcher(None, env)
    assert isinstance(launcher, SrunLauncher)
    assert launcher.command(2, [], ["p"]) == [str(srun), "-n", "2", "p"]


def test_default_is_mpiexec_outside_slurm(tmp_path):
    make_executable(tmp_path / "bin" / "srun")
    assert default_launcher_name({"PATH": str(tmp_path / "bin")}) == "mpiexec"


def test_default_is_mpiexec_in_slurm_without_srun(tmp_path):
    assert default_launcher_name({"PATH": str(tmp_path), "SLURM_JOB_ID": "1"}) == "mpiexec"


def test_mpiexec_prefers_the_one_recorded_by_the_build(tmp_path, monkeypatch):
    recorded = make_executable(tmp_path / "site" / "mpiexec")
    monkeypatch.setattr(launchers_module, "load_build_info", lambda: {"mpiexec": str(recorded)})
    assert MpiexecLauncher.locate({"PATH": ""}) == str(recorded)


def test_mpiexec_recorded_by_name_is_this_environments(tmp_path, monkeypatch):
    # A pip build with PyPI's MPICH records "mpiexec": the one installed beside the package.
    monkeypatch.setattr(launchers_module, "load_build_info", lambda: {"mpiexec": "mpiexec"})
    scripts = tmp_path / "env" / "bin"
    monkeypatch.setattr(launchers_module, "scripts_directory", lambda: scripts)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "elsewhere" / "python"))
    on_path = make_executable(tmp_path / "path" / "mpiexec")
    env = {"PATH": str(on_path.parent)}
    assert MpiexecLauncher.locate(env) == str(on_path)  # not installed there: PATH's
    installed = make_executable(scripts / "mpiexec")
    assert MpiexecLauncher.locate(env) == str(installed)


def test_mpiexec_falls_back_to_the_venv_then_path(tmp_path, monkeypatch):
    monkeypatch.setattr(launchers_module, "load_build_info",
                        lambda: {"mpiexec": str(tmp_path / "gone" / "mpiexec")})
    venv_bin = tmp_path / "venv" / "bin"
    monkeypatch.setattr(sys, "executable", str(venv_bin / "python"))
    on_path = make_executable(tmp_path / "path" / "mpiexec")
    env = {"PATH": str(on_path.parent)}
    assert MpiexecLauncher.locate(env) == str(on_path)
    in_venv = make_executable(venv_bin / "mpiexec")
    assert MpiexecLauncher.locate(env) == str(in_venv)


def test_installed_mpiexec_is_found_without_path():
    # The build installs (or records) the launcher matching the binary's MPI.
    found = MpiexecLauncher.locate({"PATH": ""})
    assert found is not None and os.access(found, os.X_OK)


def test_template_program_must_exist(tmp_path):
    with pytest.raises(HpcprobeError) as raised:
        resolve_launcher("nosuchlauncher -n {np} {cmd}", {"PATH": str(tmp_path)})
    assert raised.value.exit_status == 3
    assert "launcher 'nosuchlauncher' not found on PATH" in raised.value.message


def test_custom_launcher_registers_with_decorator():
    @register_launcher("test-fake-launcher")
    class FakeLauncher(MpiexecLauncher):
        np_flag = "--procs"

        @classmethod
        def locate(cls, env):
            return "/opt/fake/launch"

    launcher = resolve_launcher("test-fake-launcher", {})
    assert launcher.command(2, [], ["p"]) == ["/opt/fake/launch", "--procs", "2", "p"]
    with pytest.raises(ValueError):
        register_launcher("test-fake-launcher")(FakeLauncher)


def test_mpirun_found_beside_the_build_mpi_first(tmp_path, monkeypatch):
    build_bin = tmp_path / "mpi" / "bin"
    make_executable(build_bin / "mpiexec")
    on_path = make_executable(tmp_path / "path" / "mpirun")
    monkeypatch.setattr(launchers_module, "load_build_info",
                        lambda: {"mpiexec": str(build_bin / "mpiexec")})
    env = {"PATH": str(on_path.parent)}
    assert MpirunLauncher.locate(env) == str(on_path)  # the build's MPI has no mpirun
    beside = make_executable(build_bin / "mpirun")
    assert MpirunLauncher.locate(env) == str(beside)
    monkeypatch.setattr(launchers_module, "load_build_info", lambda: {})
    assert MpirunLauncher.locate({"PATH": str(tmp_path / "empty")}) is None


@pytest.mark.parametrize("name", ["srun"])
def test_missing_launcher_exits_3_with_one_line(tmp_path, name):
    env = dict(os.environ, PATH=str(tmp_path))
    env.pop("SLURM_JOB_ID", None)
    completed = run_hpcprobe("ra", "single", "--table-log2", "10", "--launcher", name,
                             "--out", str(tmp_path / "out"), env=env)
    assert completed.returncode == 3
    assert stderr_lines(completed) == [
        f"hpcprobe: launcher '{name}' not found on PATH (install an MPI, or choose "
        "--launcher mpiexec|mpirun|srun|TEMPLATE)"]
    assert not (tmp_path / "out").exists()  # nothing was started or created


def test_find_bench_order(tmp_path, monkeypatch):
    chosen = make_executable(tmp_path / "chosen" / "hpcprobe-bench")
    on_path = make_executable(tmp_path / "path" / "hpcprobe-bench")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    assert find_bench({"HPCPROBE_BENCH": str(chosen), "PATH": str(on_path.parent)}) == str(chosen)
    assert find_bench({"PATH": str(on_path.parent)}) == str(on_path)
    beside = make_executable(tmp_path / "venv" / "bin" / "hpcprobe-bench")
    assert find_bench({"PATH": str(on_path.parent)}) == str(beside)


def test_find_bench_missing_is_exit_3(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with pytest.raises(HpcprobeError) as raised:
        find_bench({"PATH": str(tmp_path)})
    assert raised.value.exit_status == 3
    assert "hpcprobe-bench not found" in raised.value.message
    with pytest.raises(HpcprobeError) as raised:
        find_bench({"HPCPROBE_BENCH": str(tmp_path / "nope"), "PATH": ""})
    assert "HPCPROBE_BENCH" in raised.value.message


def test_rank_limits_refuse_what_cannot_start(monkeypatch):
    from hpcprobe.errors import UsageError
    from hpcprobe.launch import check_rank_count
    from hpcprobe.launch import limits

    monkeypatch.setattr(limits, "_soft_limit", lambda kind: 1000)
    monkeypatch.setattr(limits, "_mem_available_bytes", lambda: 64 << 30)
    monkeypatch.setattr(limits, "_read_int", lambda path: None)
    check_rank_count(200, "mpiexec", [], {})  # 800 + 64 descriptors, 600 threads: fits
    with pytest.raises(UsageError, match=r"--np 400: .*processes and threads.*ulimit -u"):
        check_rank_count(400, "mpiexec", [], {})
    # Spread over hosts or inside a job, the local limits do not apply.
    check_rank_count(400, "mpiexec", ["-f", "hosts"], {})
    check_rank_count(400, "mpirun", [], {"SLURM_JOB_ID": "7"})
    # A template launcher is trusted; nothing is beyond 2^24.
    check_rank_count(400, "template", [], {})
    with pytest.raises(UsageError, match="beyond any MPI launcher"):
        check_rank_count((1 << 24) + 1, "template", [], {})


def test_rank_limits_memory_and_slurm(monkeypatch):
    from hpcprobe.errors import UsageError
    from hpcprobe.launch import check_rank_count
    from hpcprobe.launch import limits

    monkeypatch.setattr(limits, "_soft_limit", lambda kind: None)
    monkeypatch.setattr(limits, "_read_int", lambda path: None)
    monkeypatch.setattr(limits, "_mem_available_bytes", lambda: 1 << 30)
    with pytest.raises(UsageError, match=r"at most about 64 ranks"):
        check_rank_count(65, "mpiexec", [], {})
    check_rank_count(64, "mpiexec", [], {})
    with pytest.raises(UsageError, match=r"allocation has 8 tasks"):
        check_rank_count(9, "srun", [], {"SLURM_NTASKS": "8"})
    check_rank_count(9, "srun", ["--overcommit"], {"SLURM_NTASKS": "8"})
    check_rank_count(8, "srun", [], {"SLURM_NTASKS": "8"})


@pytest.mark.parametrize("env, expected", [
    ({"SLURM_JOB_ID": "7", "SLURM_NTASKS": "16"}, 16),
    ({"SLURM_JOB_ID": "7", "SLURM_NPROCS": "3"}, 3),
    ({"SLURM_NTASKS": "16"}, None),                  # not inside a job: this machine's
    ({"SLURM_JOB_ID": "7"}, None),                   # salloc -N 2 without -n
    ({"SLURM_JOB_ID": "7", "SLURM_NTASKS": "4x"}, None),
    ({"SLURM_JOB_ID": "7", "SLURM_NTASKS": "0"}, None),
])
def test_default_ranks_are_the_allocations_tasks_inside_slurm(env, expected):
    from hpcprobe.launch.limits import allocation_cores

    assert allocation_cores(env) == (expected or os.cpu_count())
