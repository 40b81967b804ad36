"""The contention family as the registry (families/__init__.py) sees it."""

from hpcprobe.families.base import Command, Family
from hpcprobe.families.contention.report import SECTION
from hpcprobe.families.contention.command import command_contention, command_topology
from hpcprobe.families.contention.options import (add_contention_parser, add_simulate_parser,
                                                  add_topology_parser, check_contention,
                                                  check_simulate, check_topology)
from hpcprobe.families.contention.simulate_report import command_simulate
from hpcprobe.families.contention.tables import contention_tables

FAMILY = Family(
    "contention", benchmarks=("contention", "topology"),
    commands=(Command("contention", 50, add_contention_parser, command_contention,
                      check_contention),
              Command("topology", 51, add_topology_parser, command_topology, check_topology),
              Command("simulate", 52, add_simulate_parser, command_simulate, check_simulate,
                      value_may_look_like_option=("--link-bandwidth", "--flit-bytes",
                                                  "--hop-latency"))),
    tables=contention_tables, report=SECTION,
)
