"""The hpcc family as the registry (families/__init__.py) sees it."""

from functools import partial

from hpcprobe.families.base import Command, Family, Suite
from hpcprobe.families.hpcc.report import SECTION
from hpcprobe.families.hpcc.command import command_config, command_hpcc_family, hpcc_suite_steps
from hpcprobe.families.hpcc.headline import hpcc_headline
from hpcprobe.families.hpcc.options import HPCC_FAMILIES, check_hpcc
from hpcprobe.families.hpcc import studies_saini
from hpcprobe.families.hpcc.suite import describe_hpcc_suite, tiny_hpcc_steps
from hpcprobe.families.hpcc.parsers import (add_config_parser, add_hpcc_parser,
                                            add_hpcc_suite_options, check_config, check_run)

FAMILY = Family(
    "hpcc", benchmarks=HPCC_FAMILIES,
    commands=tuple(Command(name, 30 + index, partial(add_hpcc_parser, family=name),
                           command_hpcc_family, check_hpcc)
                   for index, name in enumerate(HPCC_FAMILIES))
    + (Command("config", 41, add_config_parser, lambda args, argv: command_config(args),
               check_config),),
    report=SECTION, add_run_options=add_hpcc_suite_options, check_run=check_run,
    bound=HPCC_FAMILIES, headline=hpcc_headline,
    suites=(Suite("hpcc", tiny_hpcc_steps, describe_hpcc_suite, sized_steps=hpcc_suite_steps,
                  hpcc_summary=True),),
    studies=studies_saini.STUDIES,
)
