"""The family registry: every benchmark family of hpcprobe, one package each
(families/<name>/: options.py, command.py, tables.py, report.py, and family.py, which
describes it as a Family), and what the command line, the generic commands and the
report are built from (docs/adding-a-kernel.md).

Layers: a family imports the shared layers (launch/, results, records, tables, analysis/,
report/, hpcc_summary/, netsim/, units, stats, runner, cli_types, ...) and no other
family (tests/test_layers.py). No shared layer imports a family: cli.py, suite/suites.py and
commands/ take the families from here, and the report reaches their sections through
report/registry.py, where this module registers them.
"""

from typing import Dict, Tuple

from hpcprobe.families.base import Command, Family
from hpcprobe.families.comm.family import FAMILY as COMM
from hpcprobe.families.congestion.family import FAMILY as CONGESTION
from hpcprobe.families.contention.family import FAMILY as CONTENTION
from hpcprobe.families.gpu.family import FAMILY as GPU
from hpcprobe.families.hpcc.family import FAMILY as HPCC
from hpcprobe.families.memory.family import FAMILY as MEMORY
from hpcprobe.families.peak.family import FAMILY as PEAK
from hpcprobe.families.ra.family import FAMILY as RA
from hpcprobe.report.registry import register_section

FAMILIES: Tuple[Family, ...] = (PEAK, RA, MEMORY, HPCC, CONTENTION, COMM, CONGESTION, GPU)

for _family in FAMILIES:
    if _family.report is not None:
        register_section(_family.report)


def family_commands() -> Dict[str, Command]:
    """Every family's commands by name."""
    return {command.name: command for family in FAMILIES for command in family.commands}


__all__ = ["Command", "FAMILIES", "Family", "family_commands"]
