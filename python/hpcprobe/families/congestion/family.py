"""The congestion family as the registry (families/__init__.py) sees it. It registers
`hpcprobe simulate`: the shared network simulator (netsim/), whose patterns are
contention's, with the congestion pattern added (simulate.py)."""

from hpcprobe.families.base import Command, Family
from hpcprobe.families.congestion.command import command_congestion
from hpcprobe.families.congestion.options import add_congestion_parser, check_congestion
from hpcprobe.families.congestion.report import SECTION
from hpcprobe.families.congestion.simulate import (add_simulate_parser, check_simulate,
                                                   command_simulate)
from hpcprobe.families.congestion.tables import congestion_tables

FAMILY = Family(
    "congestion", benchmarks=("congestion",),
    commands=(Command("congestion", 53, add_congestion_parser, command_congestion,
                      check_congestion),
              Command("simulate", 52, add_simulate_parser, command_simulate, check_simulate,
                      value_may_look_like_option=("--link-bandwidth", "--flit-bytes",
                                                  "--hop-latency"))),
    tables=congestion_tables, report=SECTION,
)
