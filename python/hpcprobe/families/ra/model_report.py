"""`hpcprobe model ra`: Plimpton et al.'s predicted GUPS per process count beside the
measured points, and Garg & Sabharwal's bottleneck bound for a named network.

T_1 and T_C come from --t1/--tc, else are fitted from records (--from, --measure).
Output: a table for people, or one JSON object per process count (--json).
"""

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.table import Table
from rich.text import Text

from hpcprobe.errors import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VALIDATION_FAILED,
    HpcprobeError,
    UsageError,
)
from hpcprobe.launching import (
    LaunchContext,
    print_records,
    read_record_inputs,
    stderr_line,
    stdout_console,
)
from hpcprobe.netsim.patterns import HPCC_LOOKAHEAD, WORD_BYTES
from hpcprobe.cli_described import ALGO_OPTION
from hpcprobe.families.ra.options import MPI, bench_option, mpi_values
from hpcprobe.families.ra.model import (MAX_CROSSOVER_PROCS, Bottleneck, HypercubeModel,
                                        powers_of_two)
from hpcprobe.families.ra.model_fit import (Fit, fit_t1, fit_tc, measured_bytes_per_update,
                                            measured_gups, other_forms)
from hpcprobe.results import RecordSet, shown_problems
from hpcprobe.units import GIGA, format_number, format_quantity

Record = Dict[str, Any]
Row = Dict[str, Any]

DEFAULT_PROCS = powers_of_two(20)
# --measure: HPCC-sized steps on a small table, three repetitions, as in docs/kernels/ra-model.md.
MEASURE_ALGORITHM = "hypercube"
MEASURE_TABLE_LOG2 = "22"
MEASURE_REPEAT = "3"
MEASURE_BUDGET_S = 600.0


@dataclass(frozen=True)
class ModelInputs:
    """Everything the rows are computed from, and where T_1 and T_C came from."""

    model: HypercubeModel
    t1_source: str
    tc_source: str
    measured: Dict[int, List[float]]
    bottleneck: Optional[Bottleneck] = None
    # b measured from a record: (ranks it ran on, the bound with that b).
    measured_b: Optional[Tuple[int, Bottleneck]] = None
    # Lock-step records of another form (--mods, --owner, grid) kept out of `measured`.
    other_forms: int = 0


def _source(fit: Optional[Fit]) -> str:
    if fit is None:
        return "given"
    counts = sorted(set(fit.procs))
    records = "1 record" if fit.records == 1 else f"{fit.records} records"
    ranks = "1 rank" if counts == [1] else f"{', '.join(map(str, counts))} ranks"
    return f"fitted from {records} on {ranks}"


def _fit_or_fail(value: Optional[float], fit: Optional[Fit], message: str,
                 measured: bool) -> float:
    if value is not None:
        return value
    if fit is None:
        raise HpcprobeError(message) if measured else UsageError(message)
    return fit.value_s


def _where(args: argparse.Namespace) -> str:
    sources = list(args.from_paths or []) + (["the --measure runs"] if args.measure else [])
    return " in " + ", ".join(sources)


def hypercube_model(args: argparse.Namespace, records: Sequence[Record]) -> ModelInputs:
    """The model from --t1/--tc, or what is missing fitted from `records`."""
    q = args.q
    t1_fit = fit_t1(records, q) if args.t1 is None else None
    tc_fit = fit_tc(records, q) if args.tc is None else None
    t1_s = _fit_or_fail(args.t1, t1_fit, (
        f"no 1-rank 'ra mpi --algo hypercube' record at look-ahead {q} to fit T_1 from"
        f"{_where(args)}; give --t1 S or run with --measure"), args.measure)
    tc_s = _fit_or_fail(args.tc, tc_fit, (
        f"no 'ra mpi --algo hypercube --mods none' record on 2 or more ranks at look-ahead "
        f"{q} with route_ns, steps and stages to fit T_C from{_where(args)}; give --tc S or "
        "run with --measure"), args.measure)
    return ModelInputs(HypercubeModel(t1_s, tc_s, q), _source(t1_fit), _source(tc_fit),
                       measured_gups(records, args.algo, q),
                       other_forms=other_forms(records, args.algo, q))


def with_bottleneck(inputs: ModelInputs, args: argparse.Namespace,
                    records: Sequence[Record]) -> ModelInputs:
    """`inputs` with eq. (1) for --topology: b from --bytes-per-update (default 8), and a
    second bound with the b measured from the records of --algo, if any."""
    if args.topology is None:
        return inputs
    model = inputs.model

    def bound(bytes_per_update: float) -> Bottleneck:
        return Bottleneck(args.topology, args.link_bandwidth, bytes_per_update,
                          model.t_cpu_s, model.t_comm_s)

    measured = measured_bytes_per_update(records, args.algo)
    measured_b = None
    if measured is not None and args.bytes_per_update is None:
        measured_b = (measured[0], bound(measured[1]))
    return replace(inputs, bottleneck=bound(args.bytes_per_update or float(WORD_BYTES)),
                   measured_b=measured_b)


def _bottleneck_fields(bottleneck: Bottleneck, procs: int, crossover: Optional[int]) -> Row:
    network = bottleneck.network_gups(procs)
    bisection = None
    if procs >= 2:
        bisection = bottleneck.topology.bisection_bytes_per_s(procs, bottleneck.link_bytes_per_s)
    return {
        "topology": bottleneck.topology.spec,
        "link_bandwidth_bytes_per_s": bottleneck.link_bytes_per_s,
        "bisection_bandwidth_bytes_per_s": bisection,
        "bytes_per_update": bottleneck.bytes_per_update,
        "cpu_bound_gups": bottleneck.cpu_gups(procs),
        "network_bound_gups": network,
        "bound": "network" if bottleneck.network_binds(procs) else "cpu",
        "crossover_procs": crossover,
    }


def _measured_b_fields(measured_b: Tuple[int, Bottleneck], procs: int,
                       crossover: Optional[int]) -> Row:
    measured_procs, bottleneck = measured_b
    return {
        "measured_bytes_per_update": bottleneck.bytes_per_update,
        "measured_bytes_procs": measured_procs,
        "network_bound_measured_b_gups": bottleneck.network_gups(procs),
        "bound_measured_b": "network" if bottleneck.network_binds(procs) else "cpu",
        "crossover_procs_measured_b": crossover,
    }


def model_rows(inputs: ModelInputs, procs: Sequence[int]) -> List[Row]:
    """One row per process count (those given and those measured), in increasing order."""
    model = inputs.model
    crossover = inputs.bottleneck.crossover_procs() if inputs.bottleneck else None
    measured_crossover = inputs.measured_b[1].crossover_procs() if inputs.measured_b else None
    rows = []
    for count in sorted(set(procs) | set(inputs.measured)):
        measured = inputs.measured.get(count, [])
        row: Row = {
            "procs": count, "lookahead": model.lookahead,
            "t1_s": model.t1_s, "tc_s": model.tc_s,
            "t1_source": inputs.t1_source, "tc_source": inputs.tc_source,
            "step_time_s": model.step_time_s(count), "gups": model.gups(count),
            "efficiency_percent": 100.0 * model.efficiency(count),
            "overlapped_step_time_s": model.overlapped_step_time_s(count),
            "overlapped_gups": model.overlapped_gups(count),
            "hiding_crossover_procs": model.hiding_crossover_procs(),
            "measured_gups": statistics.median(measured) if measured else None,
            "measured_records": len(measured),
        }
        if inputs.bottleneck is not None:
            row.update(_bottleneck_fields(inputs.bottleneck, count, crossover))
        if inputs.measured_b is not None:
            row.update(_measured_b_fields(inputs.measured_b, count, measured_crossover))
        rows.append(row)
    return rows


def _columns(inputs: ModelInputs) -> List[Tuple[str, str]]:
    """(heading, row key) of the table's columns."""
    columns = [("P", "procs"), ("T_P", "step_time_s"), ("model GUPS", "gups"),
               ("efficiency (%)", "efficiency_percent"),
               ("overlapped T_P", "overlapped_step_time_s"),
               ("overlapped GUPS", "overlapped_gups")]
    if inputs.measured:
        columns.append(("measured GUPS", "measured_gups"))
    if inputs.bottleneck is not None:
        b = format_number(inputs.bottleneck.bytes_per_update)
        columns += [("CPU bound GUPS", "cpu_bound_gups"),
                    (f"network bound GUPS (b = {b} B)", "network_bound_gups"),
                    ("binds", "bound")]
    if inputs.measured_b is not None:
        procs, bound = inputs.measured_b
        columns.append((f"network bound GUPS (b = {format_number(bound.bytes_per_update)} B "
                        f"measured on {procs} ranks)", "network_bound_measured_b_gups"))
    return columns


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if key == "procs":
        return f"{value:,}"
    if key in ("step_time_s", "overlapped_step_time_s"):
        return format_quantity(value, "s")
    if key == "efficiency_percent":
        return f"{value:.3g}"
    return format_number(value) if isinstance(value, float) else str(value)


def model_table(inputs: ModelInputs, rows: Sequence[Row]) -> Table:
    model = inputs.model
    table = Table(title=(
        f"RandomAccess hypercube model (Plimpton et al.): T_P = T_1 + T_C·log2 P per "
        f"Q = {model.lookahead} updates"))
    columns = _columns(inputs)
    for heading, key in columns:
        table.add_column(heading, justify="left" if key == "bound" else "right")
    for row in rows:
        table.add_row(*[Text(_cell(key, row.get(key))) for _, key in columns])
    return table


def _crossover_text(bottleneck: Bottleneck, what: str) -> str:
    crossover = bottleneck.crossover_procs()
    where = (f"the network bound takes over at P = {crossover:,}" if crossover is not None
             else f"the CPU bound holds up to P = {MAX_CROSSOVER_PROCS:,}")
    return f"{what} b = {format_number(bottleneck.bytes_per_update)} B/update: {where}"


def _hiding_text(model: HypercubeModel) -> str:
    """Where the overlapped form stops hiding its exchange behind the updates."""
    crossover = model.hiding_crossover_procs()
    where = (f"up to P* = 2^(T_1/T_C) = {crossover:,.4g}" if crossover is not None
             else f"past P = {MAX_CROSSOVER_PROCS:,}")
    return (f"overlapped (--overlap on): T_P = max(T_1, T_C·log2 P); the exchange hides "
            f"behind the updates {where}")


def model_notes(inputs: ModelInputs) -> List[str]:
    """The lines printed under the table: inputs, their sources, the crossover."""
    model = inputs.model
    lines = [
        f"T_1 = {format_quantity(model.t1_s, 's')} per {model.lookahead} updates "
        f"({inputs.t1_source}); T_C = {format_quantity(model.tc_s, 's')} per exchange stage "
        f"({inputs.tc_source})",
        _hiding_text(model),
    ]
    if inputs.other_forms:
        lines.append(f"measured GUPS: lock-step records with --mods none (hypercube on 2 or "
                     f"more ranks) and the default --owner and grid only; {inputs.other_forms} "
                     "record(s) of another form left out")
    if inputs.bottleneck is not None:
        bottleneck = inputs.bottleneck
        lines.append(
            f"bottleneck (Garg & Sabharwal eq. (1)) on {bottleneck.topology.spec} with "
            f"{format_quantity(bottleneck.link_bytes_per_s, 'B/s')} links per direction, "
            f"t_cpu = {bottleneck.t_cpu_s * GIGA:.4g} ns, "
            f"t_comm = {bottleneck.t_comm_s * GIGA:.4g} ns per update")
        lines.append(_crossover_text(bottleneck, "with"))
    if inputs.measured_b is not None:
        procs, bound = inputs.measured_b
        lines.append(_crossover_text(bound, f"with the measured (on {procs} ranks)"))
    return lines


def _measure(args: argparse.Namespace, user_argv: Sequence[str]) -> Tuple[RecordSet, int]:
    """Launch the 1-rank run (T_1), then the --np-rank `--mods none` run (T_C)."""
    context = LaunchContext(args, user_argv, default_np=2)
    options = [ALGO_OPTION, MEASURE_ALGORITHM, *mpi_values({
        "overlap": "off", "table_log2": MEASURE_TABLE_LOG2, "repeat": MEASURE_REPEAT,
        "lookahead": str(args.q)})]
    if args.q > HPCC_LOOKAHEAD:
        options.append(bench_option("allow_noncompliant").name)
    runs = [(1, options, "ra mpi hypercube on 1 rank (T_1)"),
            (context.np, options + list(mpi_values({"mods": "none"})),
             f"ra mpi hypercube --mods none on {context.np} ranks (T_C)")]
    found = RecordSet()
    for number, (np, bench_options, label) in enumerate(runs, 1):
        launch = context.launch("ra", MPI, bench_options, MEASURE_BUDGET_S, np=np)
        outcome = context.run(launch, number, len(runs), label=label)
        found.extend(outcome.found)
        if outcome.exit_status != EXIT_OK:
            return found, outcome.exit_status
    return found, EXIT_OK


def _gather_records(args: argparse.Namespace,
                    user_argv: Sequence[str]) -> Tuple[RecordSet, Optional[int]]:
    """Records from --from and --measure; an exit status when the command must stop."""
    found = RecordSet()
    if args.from_paths:
        found, unreadable = read_record_inputs(args.from_paths)
        for problem in shown_problems(found):
            stderr_line(problem)
        if unreadable:
            return found, EXIT_BAD_INPUT
    if args.measure:
        measured, status = _measure(args, user_argv)
        if not args.json:
            print_records(measured)
        found.records.extend(measured.records)
        if status != EXIT_OK:
            return found, status
    return found, None


def command_model(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    found, stop_status = _gather_records(args, user_argv)
    if stop_status is not None:
        return stop_status
    inputs = hypercube_model(args, found.records)
    inputs = with_bottleneck(inputs, args, found.records)
    rows = model_rows(inputs, args.procs or DEFAULT_PROCS)
    if args.json:
        for row in rows:
            sys.stdout.write(json.dumps(row) + "\n")
        sys.stdout.flush()
    else:
        console = stdout_console()
        console.print(model_table(inputs, rows))
        for line in model_notes(inputs):
            console.print(Text(line), soft_wrap=True)
    return EXIT_VALIDATION_FAILED if found.problems else EXIT_OK
