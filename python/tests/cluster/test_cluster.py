"""The emulated cluster without a cluster: parsing, planning (names, addresses, links,
dimension-order routes against the contention family's model), the description file,
the launcher's argv and environment, the ssh-like arguments of hpcprobe-enter-host, and
one-line refusals that come before anything is made (python/tests/
test_integration_cluster.py makes real ones)."""

import ipaddress
import itertools
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from helpers import run_hpcprobe, stderr_lines

from hpcprobe.cluster import (ClusterLauncher, ClusterRequest, cluster_launch, parse_fault,
                              parse_topology)
from hpcprobe.cluster import enter, launcher, plan, routing, shaping
from hpcprobe.cluster.model import cluster_from_dict
from hpcprobe.cluster.network_text import network_text, parse_network_text
from hpcprobe.cluster.spec import parse_delay, parse_rate
from hpcprobe.errors import HpcprobeError, UsageError
from hpcprobe.netsim.network import Network

SUBNET = ipaddress.IPv4Network("10.123.0.0/16")


def planned(topology: str, nodes: int, name: str = "c1", cores: int = 1, cpus=(0, 1)):
    request = ClusterRequest(name, nodes, parse_topology(topology), 4e8, 0.0, 2e8, cores)
    cluster = plan.plan_cluster(request, SUBNET, list(cpus))
    for number, host in enumerate([*cluster.hosts, cluster.head]):
        host.holder_pid = 1000 + number
    cluster.status = "up"
    return cluster


@pytest.mark.parametrize("text, bits", [("400mbit", 4e8), ("1gbit", 1e9), ("1.5Gbit", 1.5e9),
                                        ("100kbit", 1e5), ("50mbps", 4e8)])
def test_rates_take_tc_units(text, bits):
    assert parse_rate("--link-rate", text) == bits


@pytest.mark.parametrize("text", ["400", "fast", "0mbit", "-1gbit", "2tbit", "400 mbitz"])
def test_bad_rates_are_refused(text):
    with pytest.raises(UsageError, match="--link-rate must be a rate such as 400mbit"):
        parse_rate("--link-rate", text)


@pytest.mark.parametrize("text, seconds", [("20us", 2e-5), ("1ms", 1e-3), ("0", 0.0),
                                           ("0.5s", 0.5), ("50µs", 5e-5)])
def test_delays(text, seconds):
    assert parse_delay("--link-delay", text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["20", "1h", "2s", "-1ms", "x"])
def test_bad_delays_are_refused(text):
    with pytest.raises(UsageError, match="--link-delay must be a delay"):
        parse_delay("--link-delay", text)


@pytest.mark.parametrize("text, kind, dims", [("flat", "flat", ()), ("tree:2x4", "tree", (2, 4)),
                                              ("torus:4x2", "torus", (4, 2)),
                                              ("mesh:3x3x2", "mesh", (3, 3, 2))])
def test_topologies(text, kind, dims):
    topology = parse_topology(text)
    assert (topology.kind, topology.dims, str(topology)) == (kind, dims, text)


@pytest.mark.parametrize("text", ["ring", "tree:4", "tree:2x2x2", "torus:0x4", "torus:2x2x2x2",
                                  "flat:2", "torus:ax2"])
def test_bad_topologies_are_refused(text):
    with pytest.raises(UsageError, match="--topology must be flat, tree:LxH"):
        parse_topology(text)


def test_flat_plan_names_addresses_and_links():
    cluster = planned("flat", 2)
    assert [h.name for h in cluster.hosts] == ["c1-h0", "c1-h1"]
    assert [h.namespace for h in cluster.hosts] == ["hpcprobe-c1-h0", "hpcprobe-c1-h1"]
    assert cluster.namespaces == ["hpcprobe-c1-h0", "hpcprobe-c1-h1", "hpcprobe-c1-head",
                                  "hpcprobe-c1-fabric"]
    assert [link.id for link in cluster.links] == ["h0-sw", "h1-sw", "head-sw"]
    for host in [*cluster.hosts, cluster.head]:
        assert ipaddress.IPv4Address(host.address) in SUBNET
    assert [h.cpus for h in cluster.hosts] == [(0,), (1,)]  # each its own CPU
    assert [link.id for link in cluster.path("h0", "h1")] == ["h0-sw", "h1-sw"]
    assert cluster.min_rate_on_path("c1-h0", "c1-h1") == 4e8


def test_hosts_share_cpus_where_too_few():
    assert all(host.cpus == () for host in planned("flat", 2, cores=2).hosts)


def test_tree_paths_cross_the_uplinks_only_between_leaves():
    cluster = planned("tree:2x2", 4)
    assert [h.coordinates for h in cluster.hosts] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert [link.id for link in cluster.path("h0", "h1")] == ["h0-leaf0", "h1-leaf0"]
    assert [link.id for link in cluster.path("h1", "h3")] == [
        "h1-leaf0", "leaf0-root", "leaf1-root", "h3-leaf1"]
    assert cluster.min_rate_on_path("h1", "h3") == 2e8
    assert cluster.link_between("leaf1", "root").kind == "uplink"


@pytest.mark.parametrize("topology, nodes, links", [("torus:2x2", 4, 4), ("torus:4x2", 8, 12),
                                                    ("torus:3x3", 9, 18), ("mesh:3x3", 9, 12),
                                                    ("torus:8", 8, 8), ("mesh:2x2x2", 8, 12)])
def test_grid_link_counts(topology, nodes, links):
    cluster = planned(topology, nodes)
    assert len([link for link in cluster.links if link.kind != "head"]) == links


@pytest.mark.parametrize("topology, nodes", [("torus:4x2", 8), ("torus:3x3", 9),
                                             ("mesh:3x3", 9), ("torus:4x4x2", 32)])
def test_grid_routes_agree_with_the_contention_model(topology, nodes):
    """Every pair's path visits the hosts the simulator's dimension-order route does."""
    cluster = planned(topology, nodes)
    kind, dims = topology.split(":")
    dims = tuple(int(d) for d in dims.split("x"))
    network = Network(dims, (kind == "torus",) * len(dims))
    for a, b in itertools.permutations(range(nodes), 2):
        visited = [a]
        for link in cluster.path(f"h{a}", f"h{b}"):
            ends = [int(node[1:]) for node in link.nodes]
            assert visited[-1] in ends
            visited.append(ends[1] if ends[0] == visited[-1] else ends[0])
        assert visited == network.route(a, b)
        assert cluster.hops(f"h{a}", f"h{b}") == int(network.hops(np.array([a]),
                                                                    np.array([b]))[0])


def test_torus_route_lines_take_the_first_link_and_add_ucx_routes():
    cluster = planned("torus:4x2", 8)
    lines = plan.route_lines(cluster, cluster.hosts[0])
    # h5 is at (2, 1): a tie along x goes the positive way, through h2 (10.123.0.3).
    assert "route replace 10.123.0.6/32 via 10.123.0.3 dev xp onlink" in lines
    assert "route replace 10.123.0.6/32 dev fab0 table 200" in lines
    assert lines[-1] == "route replace 10.123.255.254/32 dev head"
    head = plan.route_lines(cluster, cluster.head)
    assert head == ["route replace 10.123.0.0/16 via 10.123.0.1 dev fab0 onlink"]
    assert plan.route_lines(planned("flat", 2), planned("flat", 2).hosts[0]) == []


def test_coordinates_are_row_major():
    assert [routing.coordinates(i, (2, 3)) for i in range(6)] == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert all(routing.index_of(routing.coordinates(i, (3, 2, 4)), (3, 2, 4)) == i
               for i in range(24))


def test_links_are_found_by_any_spelling_of_their_ends():
    cluster = planned("torus:2x2", 4)
    for spelling in ("h0-h1", "h1-h0", "c1-h0-c1-h1", "c1-h1-h0"):
        assert cluster.link(spelling).id == "h0-h1"
    with pytest.raises(UsageError, match="has no link 'h0-h3'"):
        cluster.link("h0-h3")


def test_description_round_trips_through_json():
    cluster = planned("tree:2x2", 4)
    cluster.links[0].fault.loss_fraction = 0.2
    data = json.loads(json.dumps(cluster.to_dict()))
    assert data["format"] == "hpcprobe-cluster-1"
    assert data["topology"] == "tree:2x2"
    assert data["links"][4]["rate_bit_per_s"] == 2e8
    assert cluster_from_dict(data).to_dict() == cluster.to_dict()


def test_loss_bytecode_drops_the_asked_fraction():
    assert shaping.loss_bytecode(0.2) == (
        "4,32 0 0 4294963256,53 0 1 858993459,6 0 0 65537,6 0 0 65538")
    commands = shaping.end_commands(planned("flat", 2).links[0].ends[0], 4e8, 0.0, 0.2)
    assert commands[0] == ["tc", "-n", "hpcprobe-c1-h0", "qdisc", "add", "dev", "fab0",
                           "root", "handle", "1:", "htb", "default", "1"]
    assert commands[-1][-3:] == ["bpf", "bytecode", shaping.loss_bytecode(0.2)]


@pytest.mark.parametrize("words, expected", [(["down"], ("down", 0.0, 0.0)),
                                             (["loss", "20%"], ("loss", 0.2, 0.0)),
                                             (["delay", "1ms"], ("delay", 0.0, 1e-3))])
def test_faults_parse(words, expected):
    fault = parse_fault(words)
    assert (fault.action, fault.loss_fraction, fault.delay_s) == expected


@pytest.mark.parametrize("words", [[], ["sideways"], ["loss"], ["loss", "120%"], ["up", "1"]])
def test_bad_faults_are_refused(words):
    with pytest.raises(UsageError):
        parse_fault(words)


def test_launcher_argv_and_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HPCPROBE_CLUSTER_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    cluster = planned("flat", 4, cores=2, cpus=range(8))
    chosen = ClusterLauncher(cluster, ppn=2)
    argv = chosen.command(3, ["-genv", "X", "1"], ["prog", "--flag"])
    mpiexec, _ = launcher.cluster_mpiexec(os.environ)
    assert argv == [
        "nsenter", "-t", str(cluster.head.holder_pid), "--net", "--uts", "--mount",
        f"--wd={tmp_path}", "--", mpiexec, "-launcher", "ssh", "-launcher-exec",
        launcher.find_enter_program(os.environ), "-iface", "fab0", "-hosts",
        "c1-h0:2,c1-h1:2", "-ppn", "2", "-n", "3", "-genv", "X", "1", "prog", "--flag"]
    env = chosen.env
    limit = env.pop("HPCPROBE_LINK_LIMIT", None)
    fastest = max(link.rate_bit_per_s for link in cluster.links
                  if link.kind != "head" and link.rate_bit_per_s is not None)
    assert limit == f"{int(fastest / 8)} " + next(
        link.id for link in cluster.links if link.rate_bit_per_s == fastest)
    assert env == {"HPCPROBE_CLUSTER_FILE": str(tmp_path / "c1.json"),
                   "MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp",
                   "FI_TCP_IFACE": "fab0", "HPCPROBE_CLUSTER": "c1",
                   "HPCPROBE_CLUSTER_NETWORK": "flat:4 link_bytes_per_s=50000000 "
                                               "link_delay_s=0",
                   "HPCPROBE_TRANSPORT": "inter-node: tcp (MPICH ch4:ofi, FI_PROVIDER=tcp) "
                                         "over fab0; intra-node: shared memory (MPICH ch4 "
                                         "posix)"}
    assert [h.id for h in chosen.rank_hosts(3)] == ["h0", "h0", "h1"]
    launch = cluster_launch(cluster, 8, None, ["prog"])  # ppn: the hosts' cores
    assert [h.id for h in launch.rank_hosts] == ["h0", "h0", "h1", "h1", "h2", "h2", "h3", "h3"]
    with pytest.raises(UsageError, match="--np 9 at 2 ranks per host needs 5 hosts"):
        chosen.command(9, [], ["prog"])


def test_enter_program_splits_hydra_words_like_a_shell():
    args = ["-x", "c1-h1", '"/venv/bin/hydra_pmi_proxy"', "--control-port", "10.1.0.9:4000",
            "--usize", "-1"]
    assert enter._split(args) == ("c1-h1", ["/venv/bin/hydra_pmi_proxy", "--control-port",
                                            "10.1.0.9:4000", "--usize", "-1"])
    assert enter._split(["-x", "c1-h1"]) is None


def test_enter_program_gives_shell_commands_to_a_shell():
    # Open MPI's daemon command, as its rsh launcher writes it for a remote sh: the
    # quoted URI keeps its ';' (one word), a PATH set first needs the shell.
    orted = ["orted", "-mca", "orte_hnp_uri", '"1.0;tcp://10.1.255.254:4000"']
    assert enter._split(["c1-h1", *orted]) == (
        "c1-h1", ["orted", "-mca", "orte_hnp_uri", "1.0;tcp://10.1.255.254:4000"])
    with_path = ["PATH=/usr/bin:$PATH", ";", "export", "PATH", ";", *orted]
    assert enter._split(["c1-h1", *with_path]) == (
        "c1-h1", ["/bin/sh", "-c", " ".join(with_path)])
    assert enter._split(["c1-h1", "/opt/a=b/prog", "x"]) == ("c1-h1", ["/opt/a=b/prog", "x"])


def test_enter_program_refuses_a_host_not_up(tmp_path):
    description = planned("flat", 2).to_dict()
    path = tmp_path / "c1.json"
    path.write_text(json.dumps(description))
    program = shutil.which("hpcprobe-enter-host", path=os.path.dirname(sys.executable))
    assert program, "hpcprobe-enter-host is installed beside the venv's python"
    completed = subprocess.run([program, "-x", "c1-h1", "true"], capture_output=True,
                               text=True, env=dict(os.environ, HPCPROBE_CLUSTER_FILE=str(path)))
    assert completed.returncode == 255
    assert stderr_lines(completed) == [
        "hpcprobe-enter-host: host c1-h1 is not up (its holder process is gone); remake the "
        "cluster with 'hpcprobe cluster down' and 'up'"]


BAD_INPUT = [
    (["cluster", "up", "--name", "Bad-Name", "--nodes", "2"], "cluster name 'Bad-Name' must be"),
    (["cluster", "up", "--name", "c1", "--nodes", "6", "--topology", "tree:2x2"],
     "--nodes 6 does not match --topology tree:2x2 (2x2 = 4 hosts)"),
    (["cluster", "up", "--name", "c1", "--nodes", "2", "--link-rate", "fast"],
     "--link-rate must be a rate such as 400mbit"),
    (["cluster", "up", "--name", "c1", "--nodes", "300"], "--nodes must be from 1 to 256"),
    (["cluster", "up", "--name", "c1", "--nodes", "2", "--uplink-rate", "1gbit"],
     "--uplink-rate applies to --topology tree:LxH only"),
    (["cluster", "up", "--name", "c1", "--nodes", "4", "--topology", "ring"],
     "--topology must be flat"),
    (["cluster", "fault", "--name", "c1", "--link", "h0-h1", "sideways"], "a fault is down"),
    (["cluster"], "missing action for 'hpcprobe cluster'"),
    (["launch", "--cluster", "c1", "--np", "2"], "missing program"),
    (["launch", "--cluster", "c1", "--np", "0", "--", "true"], "--np must be a whole number"),
]


@pytest.mark.parametrize("argv, says", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_exit_2(argv, says, tmp_path):
    completed = run_hpcprobe(*argv, env=dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path)))
    assert completed.returncode == 2, completed.stderr
    lines = stderr_lines(completed)
    assert len(lines) == 1 and says in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_launch_on_a_cluster_that_does_not_exist(tmp_path):
    completed = run_hpcprobe("launch", "--cluster", "nosuch", "--np", "2", "--", "true",
                             env=dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path)))
    assert completed.returncode == 2
    assert stderr_lines(completed) == [
        f"hpcprobe: no cluster 'nosuch' in {tmp_path} (clusters: none; make one with "
        "'hpcprobe cluster up')"]


def test_a_cluster_whose_holders_are_gone_is_not_up(tmp_path, monkeypatch):
    monkeypatch.setenv("HPCPROBE_CLUSTER_DIR", str(tmp_path))
    cluster = planned("flat", 2)  # holder pids 1000… are not in its (absent) namespaces
    with pytest.raises(HpcprobeError, match=r"cluster c1 is not up \(hosts h0, h1, head are "
                                            r"gone\); remake it"):
        ClusterLauncher(cluster).require_up()


@pytest.mark.parametrize("topology, nodes, text", [
    ("tree:2x2", 4, "tree:2x2 link_bytes_per_s=50000000 uplink_bytes_per_s=25000000 "
                    "link_delay_s=0"),
    ("torus:4x2", 8, "torus:4x2 link_bytes_per_s=50000000 link_delay_s=0"),
    ("flat", 3, "flat:3 link_bytes_per_s=50000000 link_delay_s=0"),
])
def test_the_records_network_line_names_the_topology_and_its_link_rates(topology, nodes, text):
    # planned(): links at 400 Mbit/s, a tree's uplinks at 200 Mbit/s.
    assert str(network_text(planned(topology, nodes))) == text
    assert str(parse_network_text(text)) == text


def test_open_mpi_launch_keeps_to_tcp_and_shared_memory_on_the_fabric(monkeypatch, tmp_path):
    # Built with Open MPI (MPI=system): mpirun from the head, its daemons started by the
    # enter program, ob1 with the tcp BTL between hosts (not UCX, which would take shared
    # memory across the namespaces), vader within one, block placement.
    monkeypatch.setenv("HPCPROBE_CLUSTER_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(launcher, "cluster_mpiexec", lambda env: ("/usr/bin/mpirun", "openmpi"))
    cluster = planned("flat", 2, cores=2)
    chosen = ClusterLauncher(cluster, ppn=2)
    argv = chosen.command(3, [], ["prog"])
    head = argv.index("/usr/bin/mpirun")
    assert argv[:head][0] == "nsenter" and argv[-1] == "prog"
    words = argv[head + 1:-1]
    assert words[:6] == ["--host", "c1-h0:2,c1-h1:2", "-np", "3", "--map-by", "slot"]
    mca = dict(zip(words[7::3], words[8::3]))
    assert words[6::3] == ["--mca"] * 8
    assert mca == {"plm_rsh_agent": launcher.find_enter_program(os.environ),
                   "plm_rsh_no_tree_spawn": "1", "orte_leave_session_attached": "1",
                   "mpi_yield_when_idle": "1", "pml": "ob1", "btl": "self,vader,tcp",
                   "btl_tcp_if_include": "fab0", "oob_tcp_if_include": "fab0"}
    env = chosen.env
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    assert "FI_PROVIDER" not in env and "MPIR_CVAR_CH4_NETMOD" not in env
    assert env["HPCPROBE_TRANSPORT"] == ("inter-node: tcp (Open MPI ob1, btl tcp) over fab0; "
                                         "intra-node: shared memory (Open MPI btl vader)")


def test_slurm_conf_names_the_head_every_host_and_a_trees_switches(tmp_path):
    from hpcprobe.cluster import slurm

    cluster = planned("tree:2x2", 4, cores=2)
    conf = slurm.slurm_conf(cluster, tmp_path).splitlines()
    assert f"SlurmctldHost={cluster.head.name}({cluster.head.address})" in conf
    assert f"AuthInfo=socket={tmp_path}/munge.socket" in conf
    assert "TopologyPlugin=topology/tree" in conf and "MpiDefault=pmi2" in conf
    nodes = [line for line in conf if line.startswith("NodeName=")]
    assert nodes == [f"NodeName={h.name} NodeAddr={h.address} NodeHostname={h.name} CPUs=2 "
                     "State=UNKNOWN" for h in cluster.hosts]
    assert slurm.topology_conf(cluster).splitlines() == [
        "SwitchName=leaf0 Nodes=c1-h0,c1-h1", "SwitchName=leaf1 Nodes=c1-h2,c1-h3",
        "SwitchName=root Switches=leaf0,leaf1"]
    assert "TopologyPlugin=topology/none" in slurm.slurm_conf(planned("flat", 2), tmp_path)


def test_slurm_without_its_programs_is_one_line_before_anything_is_made(monkeypatch):
    from hpcprobe.cluster import slurm

    monkeypatch.setattr(slurm.shutil, "which",
                        lambda program: None if program in ("slurmd", "munged") else "/x")
    with pytest.raises(UsageError, match=r"--slurm needs Slurm and munge \(munged, slurmd not "
                                         r"found; on Debian: apt-get install slurm-wlm munge\)"):
        slurm.require_slurm()
