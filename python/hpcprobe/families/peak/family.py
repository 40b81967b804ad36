"""The peak family as the registry (families/__init__.py) sees it."""

from hpcprobe.families.base import Command, Family, Suite
from hpcprobe.families.peak.command import command_peak
from hpcprobe.families.peak.headline import peak_headline
from hpcprobe.families.peak.options import FAMILY as BENCHMARK, add_peak_parser, check_peak
from hpcprobe.families.peak.tables import peak_tables
from hpcprobe.suite.peak_steps import describe_peak, peak_steps

FAMILY = Family(
    "peak", benchmarks=(BENCHMARK,),
    commands=(Command("peak", 5, add_peak_parser, command_peak, check_peak),),
    tables=peak_tables, bound=(BENCHMARK,), headline=peak_headline,
    suites=(Suite("peak", lambda scale, ranks: peak_steps("tiny" if scale == "tiny" else "full"),
                  describe_peak),),
)
