"""Host and link faults without a cluster: finding the cpu cgroup hierarchy (v1, v2, a
hybrid machine's v2 without the controller), the quota a fraction asks for, parsing and
one-line refusals of `cluster fault --host` and `rate`, the step that joins a host's
cgroup, how enter.py finds the cgroup from the head's mount namespace, and what records
and `show` say of the faults (test_integration_cluster_faults.py throttles real hosts)."""

import os
import subprocess
from pathlib import Path

import pytest
from helpers import run_hpcprobe, stderr_lines
from test_cluster import planned

from hpcprobe.cluster import cgroups, enter, faults, launcher, shaping
from hpcprobe.cluster.faults import parse_fault, parse_host_fault
from hpcprobe.errors import HpcprobeError, UsageError


def mounts(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "mounts"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_v1_cpu_hierarchy_names_its_controllers(tmp_path):
    found = cgroups.cpu_hierarchy(mounts(
        tmp_path, "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0",
        "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0",
        "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0"))
    # The hybrid v2 mount is not there (no cgroup.controllers): v1 is taken.
    assert found == ("v1", Path("/sys/fs/cgroup/cpu,cpuacct"), "cpu,cpuacct")


def test_v2_is_taken_only_where_it_offers_cpu(tmp_path):
    unified = tmp_path / "unified"
    unified.mkdir()
    (unified / "cgroup.controllers").write_text("io memory pids\n")
    lines = (f"cgroup2 {unified} cgroup2 rw 0 0", "cgroup /c cgroup rw,cpu 0 0")
    assert cgroups.cpu_hierarchy(mounts(tmp_path, *lines))[0] == "v1"
    (unified / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    assert cgroups.cpu_hierarchy(mounts(tmp_path, *lines)) == ("v2", unified, "")
    assert cgroups.cpu_hierarchy(mounts(tmp_path, "proc /proc proc rw 0 0")) is None
    assert cgroups.cpu_hierarchy(str(tmp_path / "absent")) is None


def test_up_makes_a_cgroup_per_host_in_the_hierarchy_it_finds(tmp_path):
    hierarchy = tmp_path / "cpu"
    hierarchy.mkdir()
    cluster = planned("flat", 2)
    cgroups.make_cgroups(cluster, mounts(tmp_path, f"cgroup {hierarchy} cgroup rw,cpu 0 0"))
    assert [host.cgroup for host in cluster.hosts] == [
        str(hierarchy / "hpcprobe-c1" / "h0"), str(hierarchy / "hpcprobe-c1" / "h1")]
    assert cluster.head.cgroup == "" and cluster.cgroup_mount == str(hierarchy)
    assert Path(cluster.hosts[1].cgroup).is_dir()
    assert cgroups.found_cgroups("c1", mounts(tmp_path, f"cgroup {hierarchy} cgroup cpu 0 0"))
    with pytest.raises(HpcprobeError, match="exists already; remove it with 'hpcprobe "
                                            "cluster down --name c1'"):
        cgroups.make_cgroups(planned("flat", 2), mounts(tmp_path, f"x {hierarchy} cgroup cpu"))
    cgroups.remove_cgroups(hierarchy / "hpcprobe-c1")
    assert list(hierarchy.iterdir()) == []


def test_v2_enables_the_cpu_controller_for_its_hosts(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    (tmp_path / "cgroup.subtree_control").write_text("memory\n")
    cluster = planned("flat", 1)
    cgroups.make_cgroups(cluster, mounts(tmp_path, f"cgroup2 {tmp_path} cgroup2 rw 0 0"))
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"
    assert (tmp_path / "hpcprobe-c1" / "cgroup.subtree_control").read_text() == "+cpu"
    assert cluster.hosts[0].cgroup == str(tmp_path / "hpcprobe-c1" / "h0")


def test_a_hierarchy_that_cannot_be_written_leaves_the_cluster_without_cgroups(tmp_path):
    hierarchy = tmp_path / "cpu"
    hierarchy.mkdir()
    cluster = planned("flat", 2)
    cgroups.make_cgroups(cluster, mounts(tmp_path, f"cgroup {hierarchy} cgroup ro,cpu 0 0"))
    # One where mkdir fails (root may write anywhere: a missing directory stands for it).
    cgroups.make_cgroups(cluster, mounts(tmp_path, f"cgroup {tmp_path}/no/such cgroup cpu 0"))
    assert [host.cgroup for host in cluster.hosts] == ["", ""] and not cluster.cgroup_mount
    assert list(hierarchy.iterdir()) == []


@pytest.mark.parametrize("cpus, limit", [(0.5, (5_000, 10_000)), (2.0, (20_000, 10_000)),
                                         (0.125, (1_250, 10_000)), (0.05, (1_000, 20_000)),
                                         (0.0001, (1_000, 1_000_000)), (None, None)])
def test_quota_is_the_cpus_time_in_a_10_ms_period_above_the_1_ms_floor(cpus, limit):
    assert cgroups.quota_us(cpus) == limit


@pytest.mark.parametrize("cpus, files", [
    (1.0, {"cpu.cfs_period_us": "10000\n", "cpu.cfs_quota_us": "10000\n"}),
    (None, {"cpu.cfs_period_us": "100000\n", "cpu.cfs_quota_us": "-1\n"})])
def test_v1_quota_is_written(tmp_path, cpus, files):
    host = planned("flat", 2, cores=2).hosts[0]
    host.cgroup = str(tmp_path)
    cgroups.set_cpu_limit(host, cpus)
    assert {name: (tmp_path / name).read_text() for name in files} == files


def test_v2_cpu_max_is_written_and_cleared(tmp_path):
    host = planned("flat", 2).hosts[0]
    host.cgroup = str(tmp_path)
    (tmp_path / "cpu.max").write_text("max 100000\n")
    cgroups.set_cpu_limit(host, 0.3)
    assert (tmp_path / "cpu.max").read_text() == "3000 10000\n"
    cgroups.set_cpu_limit(host, None)
    assert (tmp_path / "cpu.max").read_text() == "max 100000\n"
    assert not (tmp_path / "cpu.cfs_quota_us").exists()


def test_hosts_with_cpus_of_their_own_keep_their_cores_and_only_the_throttled_is_capped():
    cluster = planned("flat", 4, cores=1, cpus=range(4))
    cluster.hosts[1].cpu_fraction = 0.5
    assert faults.cpu_limits(cluster, 4) == {"h0": None, "h1": 0.5, "h2": None, "h3": None}


def test_hosts_sharing_the_cpus_are_all_capped_at_their_share_while_one_is_throttled():
    cluster = planned("flat", 4, cores=1)  # 4 cores on 2 CPUs: half a CPU each
    assert faults.cpu_limits(cluster, 2) == dict.fromkeys(["h0", "h1", "h2", "h3"])
    cluster.hosts[1].cpu_fraction = 0.5
    assert faults.cpu_limits(cluster, 2) == {"h0": 0.5, "h1": 0.25, "h2": 0.5, "h3": 0.5}
    cluster.hosts[1].cpu_fraction = 1.0  # lifted: no caps at all
    assert set(faults.cpu_limits(cluster, 2).values()) == {None}


def test_the_machine_share_is_what_the_hosts_get_of_this_machine_together():
    assert faults.machine_share(planned("flat", 4, cores=1), 2) == pytest.approx(2.0)
    assert faults.machine_share(planned("flat", 4, cores=1), 8) == pytest.approx(4.0)
    assert faults.machine_share(planned("flat", 2, cores=1, cpus=range(2)), 8) == 2.0


def test_the_join_step_writes_its_own_pid_then_execs(tmp_path):
    host = planned("flat", 2).hosts[0]
    assert cgroups.joined(host, ["true"]) == ["true"]  # no cgroup: as is
    host.cgroup = str(tmp_path)
    argv = cgroups.joined(host, ["sh", "-c", "echo $$ is me"])
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert out == f"{(tmp_path / 'cgroup.procs').read_text().strip()} is me\n"


def test_enter_finds_the_cgroup_through_the_heads_view(tmp_path):
    description = {"cgroup_mount": "/sys/fs/cgroup/cpu",
                   "head_cgroup_view": str(tmp_path / "c1.cgroup")}
    seen = enter._cgroup_here(description, "/sys/fs/cgroup/cpu/hpcprobe-c1/h0")
    assert seen == str(tmp_path / "c1.cgroup" / "hpcprobe-c1" / "h0")
    assert enter._cgroup_here(description, str(tmp_path)) == str(tmp_path)  # seen here
    assert enter._cgroup_here({}, "/x/y") == "/x/y"


@pytest.mark.parametrize("words, fraction", [(["cpu", "0.5"], 0.5), (["cpu", "1"], 1.0),
                                             (["cpu", ".25"], 0.25), (["up"], 1.0)])
def test_host_faults_parse(words, fraction):
    fault = parse_host_fault(words)
    assert (fault.action, fault.cpu_fraction) == (words[0], fraction)


@pytest.mark.parametrize("words", [[], ["cpu"], ["cpu", "0"], ["cpu", "1.5"], ["cpu", "nan"],
                                   ["cpu", "-0.5"], ["cpu", "50%"], ["down"], ["up", "1"],
                                   ["cpu", "0.5", "0.6"], ["rate", "1gbit"]])
def test_bad_host_faults_are_refused(words):
    with pytest.raises(UsageError):
        parse_host_fault(words)


def test_rate_fault_parses_and_reshapes_with_its_rate():
    assert parse_fault(["rate", "100mbit"]).rate_bit_per_s == 1e8
    for words in (["rate"], ["rate", "fast"], ["rate", "1kbit"], ["rate", "1gbit", "2"]):
        with pytest.raises(UsageError):
            parse_fault(words)
    cluster = planned("flat", 2)
    link = cluster.link("h0-sw")
    link.fault.rate_bit_per_s = 1e8
    assert link.effective_rate_bit_per_s == 1e8 and link.fault.active
    assert all("100000000bit" in command for command in shaping.link_commands(link)
               if "class" in command)
    assert cluster.min_rate_on_path("h0", "h1") == 1e8


def test_records_say_which_host_is_throttled_and_which_link_reshaped():
    cluster = planned("flat", 3)
    cluster.hosts[2].cpu_fraction = 0.5
    cluster.link("h0-sw").fault.rate_bit_per_s = 1e8
    assert launcher.fault_text(cluster) == "h2 cpu 0.5; h0-sw rate 100000000bit"
    cluster.link("h1-sw").fault.rate_bit_per_s = 4e9  # above the rest: the bench's limit
    assert launcher.link_limit(cluster) == "500000000 h1-sw"


FAULT_INPUT = [
    (["--link", "h0-sw", "--host", "h0", "cpu", "0.5"], "takes one of --link A-B"),
    (["cpu", "0.5"], "takes one of --link A-B"),
    (["--host", "h0", "cpu", "2"], "cpu takes a fraction of the host's cores' time from 0.01 "
                                   "to 1 such as 0.5, not '2'"),
    (["--host", "h0", "down"], "a host's fault is cpu F"),
    (["--link", "h0-sw", "rate", "quick"], "rate must be a rate such as 400mbit"),
    (["--link", "h0-sw", "cpu", "0.5"], "a fault is down, up, loss P%"),
]


@pytest.mark.parametrize("words, says", FAULT_INPUT, ids=[" ".join(w) for w, _ in FAULT_INPUT])
def test_bad_fault_input_is_one_line_and_exit_2(words, says, tmp_path):
    completed = run_hpcprobe("cluster", "fault", "--name", "c1", *words,
                             env=dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path)))
    assert completed.returncode == 2, completed.stderr
    lines = stderr_lines(completed)
    assert len(lines) == 1 and says in lines[0], lines
    assert list(tmp_path.iterdir()) == []
