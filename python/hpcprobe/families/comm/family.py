"""The comm family as the registry (families/__init__.py) sees it."""

from functools import partial

from hpcprobe.families.base import Command, Family, Suite
from hpcprobe.families.comm.report import SECTION
from hpcprobe.families.comm.command import command_comm_family
from hpcprobe.families.comm.headline import comm_headline
from hpcprobe.families.comm.options import (COMM_COMMANDS, add_comm_parser, add_placement_option,
                                            check_comm)
from hpcprobe.families.comm.peer_formats import PEER_FORMATS, peer_text
from hpcprobe.families.comm import studies_saini
from hpcprobe.families.comm.suite import comm_suite_steps, describe_comm_suite
from hpcprobe.families.comm import studies_hpcmp
from hpcprobe.families.comm.tables import comm_tables

FAMILY = Family(
    "comm", benchmarks=COMM_COMMANDS,
    commands=tuple(Command(name, 60 + index, partial(add_comm_parser, command=name),
                           command_comm_family, check_comm)
                   for index, name in enumerate(COMM_COMMANDS)),
    tables=comm_tables, report=SECTION, add_run_options=add_placement_option,
    run_options_last=True, check_run=check_comm,
    bound=COMM_COMMANDS, headline=comm_headline,
    text_formats=tuple((name, partial(peer_text, name)) for name in PEER_FORMATS),
    suites=(Suite("comm", comm_suite_steps, describe_comm_suite),),
    studies=studies_hpcmp.STUDIES + studies_saini.STUDIES,
)
