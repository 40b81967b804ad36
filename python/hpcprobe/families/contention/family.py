"""The contention family as the registry (families/__init__.py) sees it. The simulator's
command, `hpcprobe simulate` (the shared netsim/: cli.py, report.py), is registered by the
congestion family, which adds its pattern to it (families/congestion/simulate.py)."""

from hpcprobe.families.base import Command, Family
from hpcprobe.families.contention import studies_bhatele
from hpcprobe.families.contention.report import SECTION
from hpcprobe.families.contention.command import command_contention, command_topology
from hpcprobe.families.contention.options import (add_contention_parser, add_topology_parser,
                                                  check_contention, check_topology)
from hpcprobe.families.contention.tables import contention_tables

FAMILY = Family(
    "contention", benchmarks=("contention", "topology"),
    commands=(Command("contention", 50, add_contention_parser, command_contention,
                      check_contention),
              Command("topology", 51, add_topology_parser, command_topology, check_topology)),
    tables=contention_tables, report=SECTION, studies=studies_bhatele.STUDIES,
)
