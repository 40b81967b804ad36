"""`cluster exec`'s MPI environment without a cluster: the host file and HYDRA_* variables
it gives a hydra build, the mpiexec/mpirun first on PATH that exec the bench's hydra or,
with Open MPI, refuse in one line naming `hpcprobe launch --cluster`
(test_integration_cluster_exec.py runs a real mpiexec across real hosts)."""

import os
import subprocess
import sys

import pytest
from test_cluster import planned

from hpcprobe.cluster import exec_env, launcher, run


class Execed(Exception):
    """What command_exec would have exec'd."""

    def __init__(self, argv, env):
        super().__init__(argv[0])
        self.argv, self.env = argv, env


@pytest.fixture
def exec_of(monkeypatch, tmp_path):
    """exec_of(flavour, executable) -> (argv, env) command_exec exec's, on a planned
    cluster of 3 hosts with 2 cores each; nothing is entered or run."""
    monkeypatch.setenv("HPCPROBE_CLUSTER_DIR", str(tmp_path))
    cluster = planned("flat", 3, name="cx9", cores=2)

    def execvpe(program, argv, env):
        raise Execed(argv, env)

    monkeypatch.setattr(run, "load_cluster", lambda name: cluster)
    monkeypatch.setattr(run.system, "require_privileges", lambda what: None)
    monkeypatch.setattr(launcher.system, "holder_alive", lambda host: True)
    monkeypatch.setattr(run.cgroups, "join", lambda host: None)
    monkeypatch.setattr(run.os, "execvpe", execvpe)

    def exec_of(flavour, executable):
        monkeypatch.setattr(launcher, "cluster_mpiexec", lambda env: (executable, flavour))
        with pytest.raises(Execed) as done:
            run.command_exec("cx9", None, ["mpiexec", "-n", "3", "hostname"])
        return done.value.argv, done.value.env

    return exec_of


def fake_hydra(tmp_path):
    """A stand-in for hydra's mpiexec: prints its words and the HYDRA_* it was given."""
    program = tmp_path / "bin" / "mpiexec"
    program.parent.mkdir()
    program.write_text(f"#!{sys.executable}\nimport os, sys\nprint(' '.join(sys.argv[1:]))\n"
                       "print(sorted(k for k in os.environ if k.startswith('HYDRA_')))\n")
    program.chmod(0o755)
    return str(program)


def test_hydra_gets_the_host_file_launcher_and_fabric_and_mpiexec_first_on_path(
        exec_of, tmp_path):
    argv, env = exec_of("hydra", "/opt/mpich/bin/mpiexec")
    assert argv[0] == "nsenter" and argv[-4:] == ["mpiexec", "-n", "3", "hostname"]
    directory = tmp_path / "cx9.exec"
    assert env["PATH"].split(os.pathsep)[0] == str(directory)
    assert env["HYDRA_HOST_FILE"] == str(directory / "hosts")
    assert (directory / "hosts").read_text() == "cx9-h0:2\ncx9-h1:2\ncx9-h2:2\n"
    assert env["HYDRA_LAUNCHER"] == "ssh"
    assert env["HYDRA_LAUNCHER_EXEC"] == launcher.find_enter_program(os.environ)
    assert env["HYDRA_IFACE"] == "fab0"
    # The transport a launch gets comes along (OFI over TCP on the fabric).
    assert env["FI_PROVIDER"] == "tcp" and env["MPIR_CVAR_CH4_NETMOD"] == "ofi"
    for name in ("mpiexec", "mpirun"):
        assert os.access(directory / name, os.X_OK)
        assert "exec /opt/mpich/bin/mpiexec " in (directory / name).read_text()


def test_the_shim_execs_hydra_with_the_words_and_drops_the_host_file_in_an_allocation(
        exec_of, tmp_path):
    hydra = fake_hydra(tmp_path)
    _, env = exec_of("hydra", hydra)
    env.pop("SLURM_JOB_ID", None)
    done = subprocess.run(["mpirun", "-n", "4", "-ppn", "1", "a b"], env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    words, seen = done.stdout.splitlines()
    assert words == "-n 4 -ppn 1 a b"
    assert seen == str(sorted(exec_env.HYDRA_VARIABLES))
    # Inside salloc hydra takes the allocation's hosts and srun itself: no host file or
    # launcher to override them; the fabric stays (the head's name resolves nowhere).
    done = subprocess.run(["mpiexec", "x"], env=dict(env, SLURM_JOB_ID="7"),
                          capture_output=True, text=True, timeout=30)
    assert done.stdout.splitlines() == ["x", "['HYDRA_IFACE']"]


def test_open_mpi_is_refused_in_one_line_naming_hpcprobe_launch(exec_of, tmp_path):
    _, env = exec_of("openmpi", "/usr/bin/mpirun")
    assert not [key for key in env if key.startswith("HYDRA_") and key not in os.environ]
    for name in ("mpiexec", "mpirun"):
        done = subprocess.run([name, "-np", "3", "hostname"], env=env, capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1
        assert "'hpcprobe launch --cluster cx9 --np P [--ppn K] -- PROGRAM ARGS'" in lines[0]
        assert "/usr/bin/mpirun is Open MPI's" in lines[0]


def test_removing_the_exec_directory(tmp_path):
    env = {"HPCPROBE_CLUSTER_DIR": str(tmp_path)}
    cluster = planned("flat", 2, name="cx8")
    exec_env.write_exec_dir(cluster, "hydra", "/bin/true", env)
    assert exec_env.remove_exec_dir("cx8", env)
    assert not (tmp_path / "cx8.exec").exists()
    assert not exec_env.remove_exec_dir("cx8", env)
