"""Fixtures of the emulated-cluster tests: the cluster directory of this run (where root
or the tools are missing, the tests that need it fail and say why: they never skip), a
cluster maker whose clusters are removed after the test whatever happened, and two hosts
on one switch shared by a module's read-only tests."""

import os
from typing import Dict

import pytest
from clusters import RUN, down, up
from integration import require_cluster_support

from hpcprobe.cluster import system as cluster_system


@pytest.fixture(scope="module")
def cluster_env(tmp_path_factory) -> Dict[str, str]:
    require_cluster_support()
    return dict(os.environ, HPCPROBE_CLUSTER_DIR=str(tmp_path_factory.mktemp("clusters")))

@pytest.fixture
def make_cluster(cluster_env):
    """make_cluster(suffix, options…) -> Cluster, removed after the test whatever happens."""
    made = []

    def make(suffix, *options):
        made.append(f"{RUN}{suffix}")
        return up(cluster_env, made[-1], *options)

    yield make
    for name in made:
        if cluster_system.namespaces(f"hpcprobe-{name}-"):
            down(cluster_env, name)


@pytest.fixture(scope="module")
def flat2(cluster_env):
    """Two hosts on one switch at 400 Mbit/s, shared by a module's read-only tests."""
    name = f"{RUN}f"
    cluster = up(cluster_env, name, "--nodes", "2", "--link-rate", "400mbit",
                 "--cores-per-node", "2")
    yield cluster
    down(cluster_env, name)

