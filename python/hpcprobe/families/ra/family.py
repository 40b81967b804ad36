"""The ra family as the registry (families/__init__.py) sees it."""

from hpcprobe.families.base import Command, Family
from hpcprobe.families.ra.report import SECTION
from hpcprobe.families.ra.command import command_ra
from hpcprobe.families.ra.headline import ra_headline
from hpcprobe.families.ra.model_report import command_model
from hpcprobe.families.ra.options import add_model_parser, add_ra_parser, check_model, check_ra
from hpcprobe.families.ra.tables import ra_tables
from hpcprobe.families.ra import studies_garg, studies_plimpton, studies_staged

FAMILY = Family(
    "ra", benchmarks=("ra",),
    commands=(Command("ra", 10, add_ra_parser, command_ra, check_ra),
              Command("model", 42, add_model_parser, command_model, check_model,
                      value_may_look_like_option=("--t1", "--tc", "--link-bandwidth",
                                                  "--bytes-per-update"))),
    tables=ra_tables, report=SECTION, headline=ra_headline,
    studies=studies_garg.STUDIES + studies_plimpton.STUDIES + studies_staged.STUDIES,
)
