"""The memory family as the registry (families/__init__.py) sees it."""

from functools import partial

from hpcprobe.families.base import Command, Family
from hpcprobe.families.memory.report import SECTION
from hpcprobe.families.memory.command import command_memory
from hpcprobe.families.memory.headline import memory_headline
from hpcprobe.families.memory.options import add_memory_parser, check_memory
from hpcprobe.families.memory import studies_hpcmp
from hpcprobe.families.memory.tables import MEMORY_BENCHMARKS, memory_tables

FAMILY = Family(
    "memory", benchmarks=MEMORY_BENCHMARKS,
    commands=tuple(Command(name, order, partial(add_memory_parser, family=name),
                           command_memory, check_memory)
                   for name, order in (("stream", 20), ("mem", 21))),
    tables=memory_tables, report=SECTION, bound=MEMORY_BENCHMARKS,
    headline=memory_headline, studies=studies_hpcmp.STUDIES,
)
