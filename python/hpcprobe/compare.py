"""`hpcprobe compare A B`: two runs side by side. Built for two placements of the
same benchmarks on one machine (paper 002 section 4.4.2: block against round-robin),
and meant to grow into comparing systems: matching, the headline rows and the JSON are
generic; what a benchmark adds is one entry of DETAILS.

Records are matched by what makes them the same experiment (experiment_key: the
benchmark, variant, algorithm, ranks and the parameters in EXPERIMENT_PARAMETERS), the
last record of each experiment in each run. The placement is not part of the key: it
is what is being compared. Records are untrusted input: numbers are checked, strings
shown as plain text.
"""

import argparse
import json
import statistics
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from rich.console import RenderableType

from hpcprobe.beff_summary import BEFF_KEYS, beff_figures
from hpcprobe.comm_report import GIGA, MICRO, MISSING
from hpcprobe.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VALIDATION_FAILED
from hpcprobe.launching import read_record_inputs, stderr_line, stdout_console
from hpcprobe.memory import _table, binary_size, number, numbers, series_points
from hpcprobe.show import plain, verdict_text
from hpcprobe.stats import metric_samples
from hpcprobe.units import format_number, scale_for

Record = Dict[str, Any]
Key = Tuple[str, ...]
Row = List[str]

# Parameters that make two records different experiments (not just different runs).
EXPERIMENT_PARAMETERS = ("function", "group_ranks", "message_bytes", "sweep", "build_variant",
                         "hugepages", "rng", "copies_requested")


def _section(record: Record, name: str) -> Dict[str, Any]:
    section = record.get(name)
    return section if isinstance(section, dict) else {}


def experiment_key(record: Record) -> Key:
    parameters = _section(record, "parameters")
    words = [str(record.get(field)) for field in ("benchmark", "variant", "algorithm")]
    words.append(f"{_section(record, 'layout').get('ranks')} ranks")
    words += [f"{name}={parameters[name]}" for name in EXPERIMENT_PARAMETERS
              if name in parameters and name != "function"]
    return tuple(words)


def match_runs(a: Sequence[Record], b: Sequence[Record]) -> List[Tuple[Key, Optional[Record],
                                                                        Optional[Record]]]:
    """(key, A's record, B's record) per experiment, A's order first; None where a
    run lacks it."""
    last_a: Dict[Key, Record] = {experiment_key(record): record for record in a}
    last_b: Dict[Key, Record] = {experiment_key(record): record for record in b}
    keys = list(last_a) + [key for key in last_b if key not in last_a]
    return [(key, last_a.get(key), last_b.get(key)) for key in keys]


def _headline(record: Optional[Record]) -> Tuple[Optional[float], str, str]:
    value = _section(record or {}, "value")
    return number(value.get("value")), plain(value.get("unit", "")), plain(value.get("metric",
                                                                                    ""))


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return b / a if a and b is not None else None


def _quantity(value: Optional[float], unit: str) -> str:
    if value is None:
        return MISSING
    divisor, label = scale_for(unit, value)
    return f"{format_number(value, divisor)} {label}".rstrip()


def headline_rows(matches: Sequence[Tuple[Key, Optional[Record], Optional[Record]]]) -> List[Row]:
    rows = []
    for key, a, b in matches:
        (va, unit, metric), (vb, _, _) = _headline(a), _headline(b)
        rows.append([plain(" ".join(key), 80), metric, _quantity(va, unit), _quantity(vb, unit),
                     _cell(ratio(va, vb)), verdict_text(a) if a else MISSING,
                     verdict_text(b) if b else MISSING])
    return rows


def _cell(value: Optional[float], divisor: float = 1.0) -> str:
    return MISSING if value is None else format_number(value, divisor)


def _trio(values: List[float]) -> List[Optional[float]]:
    if not values:
        return [None, None, None]
    return [min(values), statistics.fmean(values), max(values)]


def pairs_detail(a: Record, b: Record) -> List[Row]:
    """Pair bandwidths within and across nodes: min, mean, max, A against B."""
    rows = []
    for metric, label in (("intra_node_bandwidth", "intra-node"),
                          ("inter_node_bandwidth", "inter-node"), ("pair_bandwidth", "all")):
        ta = _trio(numbers(metric_samples(a, metric)))
        tb = _trio(numbers(metric_samples(b, metric)))
        for name, va, vb in zip(("min", "mean", "max"), ta, tb):
            if va is not None or vb is not None:
                rows.append([f"{label} {name} GB/s", _cell(va, GIGA), _cell(vb, GIGA),
                             _cell(ratio(va, vb))])
    return rows


def comm_detail(a: Record, b: Record) -> List[Row]:
    """t_avg per message size, A against B."""
    ta, tb = series_points(a, "time_avg"), series_points(b, "time_avg")
    return [[f"{binary_size(size)} t_avg µs", _cell(ta.get(size), MICRO),
             _cell(tb.get(size), MICRO), _cell(ratio(ta.get(size), tb.get(size)))]
            for size in ta if size in tb]


def beff_detail(a: Record, b: Record) -> List[Row]:
    """HPCC's ten b_eff figures, A against B."""
    fa, fb = beff_figures(a), beff_figures(b)
    rows = []
    for key, _, _, divisor in BEFF_KEYS:
        rows.append([key, _cell(fa[key], divisor), _cell(fb[key], divisor),
                     _cell(ratio(fa[key], fb[key]))])
    return rows


# benchmark -> the rows it adds beneath the headline (a later issue adds its own).
DETAILS: Dict[str, Callable[[Record, Record], List[Row]]] = {
    "pairs": pairs_detail,
    "comm": comm_detail,
    "beff": beff_detail,
}


def _placement(records: Sequence[Record]) -> Optional[str]:
    found = {plain(_section(record, "parameters").get("placement")) for record in records
             if isinstance(_section(record, "parameters").get("placement"), str)}
    return found.pop() if len(found) == 1 else None


def run_labels(args: argparse.Namespace, a: Sequence[Record],
               b: Sequence[Record]) -> Tuple[str, str]:
    """--labels, else the runs' placements when each run has one and they differ, else
    the paths given."""
    if args.labels:
        first, second = [word for word in args.labels.split(",") if word]
        return plain(first), plain(second)
    pa, pb = _placement(a), _placement(b)
    if pa and pb and pa != pb:
        return pa, pb
    return plain(args.runs[0]), plain(args.runs[1])


def comparison_tables(matches: Sequence[Tuple[Key, Optional[Record], Optional[Record]]],
                      labels: Tuple[str, str]) -> List[RenderableType]:
    la, lb = labels
    tables = [_table(f"hpcprobe compare: A = {la}, B = {lb}",
                     "one row per experiment (benchmark, variant, algorithm, ranks, ...): the "
                     "headline of each run and B/A; — where a run lacks it",
                     ["experiment", "metric", "A", "B", "B/A", "A validation", "B validation"],
                     headline_rows(matches))]
    for key, a, b in matches:
        detail = DETAILS.get(str((a or {}).get("benchmark")))
        if a is None or b is None or detail is None:
            continue
        rows = detail(a, b)
        if rows:
            tables.append(_table(plain(" ".join(key), 120), f"A = {la}, B = {lb}",
                                 ["figure", "A", "B", "B/A"], rows))
    return tables


def comparison_json(matches: Sequence[Tuple[Key, Optional[Record], Optional[Record]]],
                    labels: Tuple[str, str]) -> str:
    out = []
    for key, a, b in matches:
        (va, unit, metric), (vb, _, _) = _headline(a), _headline(b)
        out.append({"experiment": list(key), "metric": metric, "unit": unit, "a": va, "b": vb,
                    "b_over_a": ratio(va, vb)})
    return json.dumps({"a": labels[0], "b": labels[1], "experiments": out}, indent=2,
                      ensure_ascii=False)


def command_compare(args: argparse.Namespace, user_argv: Sequence[str]) -> int:
    runs, unreadable, invalid = [], False, False
    for name in args.runs:
        found, bad = read_record_inputs([name])
        for problem in found.problems:
            stderr_line(problem)
        unreadable |= bad
        invalid |= bool(found.problems)
        runs.append(found.records)
    if unreadable:
        return EXIT_BAD_INPUT
    matches = match_runs(runs[0], runs[1])
    labels = run_labels(args, runs[0], runs[1])
    if args.format == "json":
        print(comparison_json(matches, labels))
    else:
        console = stdout_console()
        for table in comparison_tables(matches, labels):
            console.print(table)
    if not any(a and b for _, a, b in matches):
        stderr_line(f"hpcprobe: no experiment ran in both {Path(args.runs[0])} and "
                    f"{Path(args.runs[1])}")
    return EXIT_VALIDATION_FAILED if invalid else EXIT_OK
