"""bench/congestion's GPCNeT path on real emulated hosts (root, ip, tc), with a stand-in
for GPCNeT: a program named network_load_test in a temporary GPCNET_BIN whose every rank
prints its host, rank 0 also a GPCNeT table (the fixture of test_bench_gpcnet.py). The
bench's launcher must put one rank on each of the 10 hosts and hand the table back."""

import sys
from pathlib import Path

import pytest
from test_bench_gpcnet import GPCNET_OUTPUT

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench" / "lib"))
import gpcnet_compare  # noqa: E402

HOSTS = 10  # GPCNeT's minimum, and what the bench launches


def stand_in(directory: Path) -> Path:
    (directory / "table.txt").write_text(GPCNET_OUTPUT)
    program = directory / "network_load_test"
    program.write_text("#!/bin/sh\n"
                       'echo "rank $PMI_RANK on $(hostname)"\n'
                       f'[ "$PMI_RANK" = 0 ] && cat {directory / "table.txt"}\n'
                       "exit 0\n")
    program.chmod(0o755)
    return directory


def test_the_bench_launches_gpcnet_on_every_host_and_reads_its_table(make_cluster,
                                                                      cluster_env, tmp_path):
    cluster = make_cluster("g", "--nodes", str(HOSTS), "--topology", "tree:2x5",
                           "--link-rate", "400mbit", "--cores-per-node", "1")
    gpcnet_bin = stand_in(tmp_path)
    text = gpcnet_compare.run_gpcnet([sys.executable, "-m", "hpcprobe"], cluster.name,
                                     str(gpcnet_bin), HOSTS, budget_s=60, env=cluster_env)
    seen = [line.split(" on ")[1] for line in text.splitlines() if line.startswith("rank ")]
    assert sorted(seen) == sorted(host.name for host in cluster.hosts)  # 10 distinct hosts
    assert gpcnet_compare.gpcnet_figures(text)["bandwidth"]["cif_avg"] == 1.3


def test_a_missing_or_failing_gpcnet_is_one_message(make_cluster, cluster_env, tmp_path):
    with pytest.raises(RuntimeError, match="no network_load_test in"):
        gpcnet_compare.run_gpcnet([sys.executable, "-m", "hpcprobe"], "none", str(tmp_path))
    cluster = make_cluster("h", "--nodes", "2", "--cores-per-node", "1")
    program = tmp_path / "network_load_test"
    program.write_text("#!/bin/sh\necho 'must be run on at least 10 nodes' >&2\nexit 1\n")
    program.chmod(0o755)
    with pytest.raises(RuntimeError, match=r"failed \(1\).*at least 10 nodes"):
        gpcnet_compare.run_gpcnet([sys.executable, "-m", "hpcprobe"], cluster.name,
                                  str(tmp_path), 2, budget_s=60, env=cluster_env)
