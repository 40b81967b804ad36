"""`hpcprobe ra single|star|mpi`: one launch and its records; `ra sweep` and the studies
launch several (sweep.py, multicore.py)."""

import argparse
from typing import Sequence

from hpcprobe.hpcc_summary.write import write_launch_summary
from hpcprobe.families.ra.multicore import command_ra_modes, command_ra_shared_table_study
from hpcprobe.families.ra.options import ra_bench_options
from hpcprobe.families.ra.sweep import command_ra_sweep
from hpcprobe.families.ra.tables import ra_tables
from hpcprobe.launching import LaunchContext, print_records, stdout_console
from hpcprobe.report.common import Record
from hpcprobe.results import read_records

RA_DEFAULT_BUDGET_S = 3600.0

# The words after `hpcprobe ra` that launch several benchmarks, and their commands.
_RA_STUDIES = {"sweep": command_ra_sweep, "shared-table-study": command_ra_shared_table_study,
               "modes": command_ra_modes}


def _print_against_ceiling(context: LaunchContext, launched: Sequence[Record]) -> None:
    """The new mpi/single records as fractions of a ceiling measured earlier into the same
    results file, when there is one (`hpcprobe ra ceiling` with the same table and ranks)."""
    try:
        earlier = read_records(context.results_path).records
    except OSError:
        return
    ceilings = [record for record in earlier if record.get("variant") == "ceiling"]
    for table in ra_tables([*launched, *ceilings]):
        stdout_console().print(table)


def command_ra(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    if args.variant in _RA_STUDIES:
        return _RA_STUDIES[args.variant](args, user_argv)
    context = LaunchContext(args, user_argv, default_np=1)
    launch = context.launch("ra", args.variant, ra_bench_options(args), RA_DEFAULT_BUDGET_S)
    outcome = context.run(launch, 1, 1)
    print_records(outcome.found)
    _print_against_ceiling(context, outcome.found.records)
    if args.hpcc_summary:
        write_launch_summary(outcome, launch, context.out_dir)
    return outcome.exit_status
