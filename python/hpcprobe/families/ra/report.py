"""The RandomAccess section of a report (papers 000 and 001): GUPS by algorithm, GUPS
against P with Plimpton et al.'s model, the look-ahead (Q) sweep, the Mod switches of the
hypercube algorithm, Garg et al.'s mapping modes and the shared-table error-rate study.

Each part says "absent" when the records it needs are not there."""

from typing import Dict, List, Optional, Sequence, Tuple

from hpcprobe.families.ra.bottleneck import record_role_times
from hpcprobe.families.ra.model import HypercubeModel
from hpcprobe.families.ra.model_fit import fit_t1, fit_tc
from hpcprobe.families.ra.multicore import (MODE_LAYOUT, error_rates, relative, summarize_rates,
                                            wrong_words)
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import (Record, ci_text, cv_text, headline_stats, int_parameter,
                                    merged_count, newest_first, parameter, plain, ranks, threads,
                                    value_text, verdict_cell)
from hpcprobe.report.registry import ReportSection
from hpcprobe.report.settings import setting_words
from hpcprobe.families.ra.settings import ALGORITHM_OPTIONS, lock_step_hypercube, mods_text
from hpcprobe.report.plots import Curve, FigureSink
from hpcprobe.families.ra.sweep import efficiency_percent
from hpcprobe.suite.headline import record_verdict
from hpcprobe.units import GIGA, MEGA, MICRO, format_number

HPCC_LOOKAHEAD = 1024
HPCC_UPDATES_PER_WORD = 4
MODEL_MAX_LOG2 = 20


def _mods(record: Record) -> Optional[str]:
    """The Mods of a lock-step hypercube record ("all" for every one), else None."""
    mods = parameter(record, "mods")
    if not isinstance(mods, str) or not lock_step_hypercube(record):
        return None
    return mods_text(mods)


def _sync(record: Record) -> Optional[str]:
    sync = parameter(record, "sync")
    locks = int_parameter(record, "locks")
    if sync == "locks" and locks:
        return f"locks:{locks}"
    return sync if isinstance(sync, str) else None


def setting(record: Record, leave_out: Sequence[str] = ()) -> str:
    """The options that change the algorithm, where not the default ("mods none,
    overlap off"); those in `leave_out` skipped; "" at the defaults."""
    return ", ".join(setting_words(record, ALGORITHM_OPTIONS, leave_out))


def _label_words(record: Record, leave_out: Sequence[str]) -> List[str]:
    words = [setting(record, leave_out)] if setting(record, leave_out) else []
    mode = int_parameter(record, "mapping_mode")
    if mode not in (None, 1):
        words.append(f"mode {mode}")
    if threads(record) > 1:
        words.append(f"{threads(record)} threads")
    if _sync(record):
        words.append(f"sync {_sync(record)}")
    per_word = int_parameter(record, "updates_per_word")
    if per_word not in (None, HPCC_UPDATES_PER_WORD):
        words.append(f"{per_word} updates/word")
    if parameter(record, "rng") == "lcg":
        words.append("lcg")
    if parameter(record, "update_loop") == "plain":
        words.append("plain loop")
    return words


def compare_label(record: Record, lookahead: bool = True, leave_out: Sequence[str] = ()) -> str:
    """What tells two RandomAccess rows apart besides variant and algorithm: every
    option that changes the algorithm (settings.py) and every other setting not HPCC's.
    A figure whose x is Q leaves Q out (`lookahead`), a table with a column for an
    option leaves that option out (`leave_out`, by attribute, e.g. "mods")."""
    words = []
    value = int_parameter(record, "lookahead")
    if lookahead and value is not None and value != HPCC_LOOKAHEAD:
        words.append(f"Q={value}")
    return ", ".join(words + _label_words(record, leave_out))


def _relative(value: Optional[float], base: Optional[float]) -> Optional[str]:
    ratio = relative(value, base)  # None without a value or a non-zero base
    return None if ratio is None else f"{ratio:.3g}"


def median_gups(record: Record) -> Tuple[Optional[float], Optional[float], Optional[float]]:
    """(median, CI low, CI high) of the headline in GUPS."""
    stats = headline_stats(record)
    scale = [None if value is None else value / GIGA
             for value in (stats.median, stats.ci_low, stats.ci_high)]
    return scale[0], scale[1], scale[2]


def ceiling_for(record: Record, records: Sequence[Record]) -> Optional[Record]:
    """The newest passed `ra ceiling` record of the same table, rng and ranks (one rank for
    `single`) run with the prefetching loop: the machine's limit that record is measured
    against (a `--update-loop plain` ceiling is HPCC's loop, not the limit)."""
    want_ranks = 1 if record.get("variant") == "single" else ranks(record)
    if record.get("variant") not in ("mpi", "single"):
        return None
    found = [r for r in records if r.get("variant") == "ceiling" and ranks(r) == want_ranks
             and record_verdict(r) == "passed" and parameter(r, "update_loop") != "plain"
             and int_parameter(r, "table_log2") == int_parameter(record, "table_log2")
             and parameter(r, "rng") == parameter(record, "rng")]
    return newest_first(found)[0] if found else None


def ceiling_fraction(record: Record, records: Sequence[Record]) -> Optional[float]:
    """The record's median GUPS as a fraction of its ceiling's, or None without one."""
    ceiling = ceiling_for(record, records)
    if ceiling is None:
        return None
    return relative(median_gups(record)[0], median_gups(ceiling)[0])


def _row(record: Record, records: Sequence[Record]) -> List[object]:
    stats = headline_stats(record)
    table_log2 = int_parameter(record, "table_log2")
    fraction = ceiling_fraction(record, records)
    return [record.get("variant"), record.get("algorithm"), compare_label(record) or "—",
            f"{ranks(record)} × {threads(record)}",
            None if table_log2 is None else f"2^{table_log2}",
            plain(stats.count) + (f" ({merged_count(record)} launches)"
                                  if merged_count(record) > 1 else ""),
            value_text(stats, GIGA), ci_text(stats, GIGA), cv_text(stats),
            "—" if fraction is None else f"{fraction:.3g}", verdict_cell(record)]


def _by_algorithm(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    rows = sorted(records, key=lambda r: (str(r.get("variant")), str(r.get("algorithm")),
                                          ranks(r), compare_label(r)))
    table = Table.of("GUPS by variant and algorithm", (
        "variant", "algorithm", "setting", "ranks × threads", "table", "samples",
        "median GUPS", "95 % CI", "CV", "of ceiling", "validation"),
        [_row(r, records) for r in rows],
        "GUPS = 10^9 updates/s of the headline metric (star: mean per rank); several values: "
        "modes of the samples, each with its count; of ceiling: the median as a fraction of "
        "`ra ceiling` on the same table and ranks (one rank for single), where one passed")
    best: Dict[str, Record] = {}
    for record in rows:
        if compare_label(record):
            continue
        name = f"{record.get('variant')} {record.get('algorithm')}"
        if name not in best or ranks(record) >= ranks(best[name]):
            best[name] = record
    if not best:
        return [table]
    names = list(best)
    values = [median_gups(best[name]) for name in names]
    categories = [f"{name} (P={ranks(best[name])})" for name in names]
    figure = sink.bars("RandomAccess GUPS by algorithm", "GUPS", categories,
                       {"median": [value[0] for value in values]},
                       {"median": [(value[1], value[2]) for value in values]},
                       "each variant and algorithm at HPCC's settings on its most ranks; "
                       "error bars: 95 % CI")
    return [table, figure]


def _curve_name(record: Record) -> str:
    """The algorithm, and its settings where not the defaults: one curve each."""
    label = compare_label(record)
    return str(record.get("algorithm")) + (f" ({label})" if label else "")


def _scaling_records(records: Sequence[Record]) -> Dict[str, Dict[int, Record]]:
    """Per algorithm and setting (--mods, --overlap, --owner, --dims...), per P: the
    record with the largest table."""
    curves: Dict[str, Dict[int, Record]] = {}
    for record in records:
        if record.get("variant") != "mpi" or threads(record) != 1:
            continue
        if int_parameter(record, "lookahead") != HPCC_LOOKAHEAD:
            continue
        name = _curve_name(record)
        points = curves.setdefault(name, {})
        held = points.get(ranks(record))
        if held is None or (int_parameter(record, "table_log2") or 0) >= (
                int_parameter(held, "table_log2") or 0):
            points[ranks(record)] = record
    return curves


def _model_curve(records: Sequence[Record], highest: int) -> Tuple[Optional[Curve], str]:
    t1, tc = fit_t1(records, HPCC_LOOKAHEAD), fit_tc(records, HPCC_LOOKAHEAD)
    missing = []
    if t1 is None:
        missing.append("T_1 (a 1-rank `ra mpi --algo hypercube` record at Q = 1024)")
    if tc is None:
        missing.append("T_C (a hypercube record on 2 or more ranks with --mods none)")
    if t1 is None or tc is None:
        return None, "model curve absent: no " + " and no ".join(missing) + \
            "; `hpcprobe model ra --measure` makes both"
    model = HypercubeModel(t1.value_s, tc.value_s, HPCC_LOOKAHEAD)
    top = min(MODEL_MAX_LOG2, max(4, highest.bit_length() + 3))
    procs = [1 << power for power in range(top + 1)]
    text = (f"model: T_P = T_1 + T_C·log2 P with T_1 = {t1.value_s * MEGA:.4g} µs and "
            f"T_C = {tc.value_s * MEGA:.4g} µs per Q = {HPCC_LOOKAHEAD} updates (fitted from "
            f"{t1.records} and {tc.records} records)")
    return Curve("model (Plimpton et al.)", procs, [model.gups(p) for p in procs],
                 line="--"), text


def _scaling(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    curves_by_name = _scaling_records(records)
    if not curves_by_name:
        return [Paragraph("absent: no `ra mpi` records at Q = 1024 with one thread per rank",
                          "absent")]
    curves = []
    for name, points in sorted(curves_by_name.items()):
        procs = sorted(points)
        values = [median_gups(points[p]) for p in procs]
        curves.append(Curve(name, procs, [v[0] for v in values], [v[1] for v in values],
                            [v[2] for v in values]))
    highest = max(max(points) for points in curves_by_name.values())
    model, text = _model_curve(records, highest)
    figure = sink.line("RandomAccess GUPS against ranks", "ranks P", "GUPS",
                       curves + ([model] if model else []), log_x=2, log_y=True,
                       caption="median GUPS at Q = 1024 with 95 % CI; at each P the largest "
                               "table measured")
    return [figure, Paragraph(text, "note" if model else "absent")]


def _sweep_groups(records: Sequence[Record]) -> Dict[Tuple, Dict[int, Record]]:
    groups: Dict[Tuple, Dict[int, Record]] = {}
    for record in records:
        lookahead = int_parameter(record, "lookahead")
        if record.get("variant") != "mpi" or threads(record) != 1 or lookahead is None:
            continue
        key = (str(record.get("algorithm")), compare_label(record, lookahead=False),
               ranks(record), int_parameter(record, "table_log2"))
        groups.setdefault(key, {})[lookahead] = record
    return {key: points for key, points in groups.items() if len(points) > 1}


def _baseline(records: Sequence[Record], algorithm: str, label: str) -> Optional[float]:
    """GUPS of the 1-rank record at Q = 1024 of the algorithm and setting `label`."""
    for record in records:
        if (record.get("variant") == "mpi" and record.get("algorithm") == algorithm
                and ranks(record) == 1 and int_parameter(record, "lookahead") == HPCC_LOOKAHEAD
                and compare_label(record, lookahead=False) == label):
            return median_gups(record)[0]
    return None


def _sweep(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    groups = _sweep_groups(records)
    if not groups:
        return [Paragraph("absent: no look-ahead sweep (`ra mpi` at two or more Q on the same "
                          "ranks and table; `hpcprobe ra sweep` runs one)", "absent")]
    curves, rows = [], []
    for (algorithm, label, procs, _), points in sorted(groups.items(), key=str):
        lookaheads = sorted(points)
        values = [median_gups(points[q]) for q in lookaheads]
        name = f"{algorithm} P={procs}" + (f" ({label})" if label else "")
        curves.append(Curve(name, lookaheads, [v[0] for v in values], [v[1] for v in values],
                            [v[2] for v in values],
                            [points[q].get("compliant") is False for q in lookaheads]))
        base = _baseline(records, algorithm, label)
        for q, value in zip(lookaheads, values):
            efficiency = efficiency_percent(value[0], procs, base)
            rows.append([name, q, format_number(value[0]),
                         None if efficiency is None else f"{efficiency:.3g}",
                         "no" if points[q].get("compliant") is False else "yes",
                         verdict_cell(points[q])])
    figure = sink.line("RandomAccess GUPS against look-ahead Q", "look-ahead Q (updates)", "GUPS",
                       curves, log_x=2, caption="hollow markers: non-compliant (Q > 1024)")
    table = Table.of("Look-ahead sweep (Plimpton et al., Table 4)", (
        "run", "Q", "GUPS", "efficiency (%)", "compliant", "validation"), rows,
        "efficiency = GUPS / (P × GUPS of 1 rank at Q = 1024 with the same algorithm and "
        "settings); — when there is no such record")
    return [figure, table]


def _mod_switches(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    groups: Dict[Tuple, Dict[str, Record]] = {}
    for record in records:
        mods = _mods(record)
        if mods is not None and threads(record) == 1:
            key = (ranks(record), int_parameter(record, "lookahead"),
                   int_parameter(record, "table_log2"),
                   compare_label(record, lookahead=False, leave_out=("mods", "overlap")))
            groups.setdefault(key, {})[mods] = record
    groups = {key: found for key, found in groups.items() if len(found) > 1}
    if not groups:
        return [Paragraph("absent: no lock-step hypercube records (--overlap off) that differ "
                          "only in --mods", "absent")]
    blocks: List[Block] = []
    for (procs, lookahead, table_log2, label), found in sorted(groups.items(), key=str):
        base = median_gups(found["none"])[0] if "none" in found else None
        rows = [[mods, format_number(median_gups(record)[0]),
                 _relative(median_gups(record)[0], base), verdict_cell(record)]
                for mods, record in sorted(found.items())]
        blocks.append(Table.of(
            f"Lock-step hypercube Mod switches on {procs} ranks, Q = {lookahead}, table "
            f"2^{table_log2}" + (f", {label}" if label else ""),
            ("mods", "GUPS", "relative to none", "validation"), rows,
            "Plimpton et al.'s Mod1-Mod7: prepost (Mod1), late-update (Mod2), late-wait (Mod3), "
            "isend (Mod6/7), switched on the lock-step hypercube (--overlap off; the pipelined "
            "default does what every Mod does whatever --mods says, so its records are not "
            "here); relative to none: to --mods none with the same other settings"))
    return blocks


def _mode_records(records: Sequence[Record]) -> List[Record]:
    """One record per mode, algorithm and setting (--owner, --overlap...), sync and shape
    at HPCC's Q and updates per word (the newest): what `hpcprobe ra modes` compares."""
    chosen: Dict[Tuple, Record] = {}
    for record in newest_first(records):
        mode = int_parameter(record, "mapping_mode")
        if mode not in MODE_LAYOUT or int_parameter(record, "lookahead") != HPCC_LOOKAHEAD:
            continue
        if int_parameter(record, "updates_per_word") not in (None, HPCC_UPDATES_PER_WORD):
            continue
        key = (mode, record.get("algorithm"), setting(record), _sync(record), ranks(record),
               threads(record), int_parameter(record, "table_log2"))
        chosen.setdefault(key, record)
    return list(chosen.values())


def _algorithm_text(record: Record) -> str:
    """The algorithm, with its setting where not the defaults ("torus (overlap on)")."""
    words = setting(record)
    return str(record.get("algorithm")) + (f" ({words})" if words else "")


def _modes(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = _mode_records(records)
    if not any(int_parameter(r, "mapping_mode") != 1 for r in found):
        return [Paragraph("absent: no mapping-mode records (`hpcprobe ra modes`)", "absent")]
    by_size: Dict[Optional[int], List[Record]] = {}
    for record in found:
        by_size.setdefault(int_parameter(record, "table_log2"), []).append(record)
    blocks: List[Block] = []
    for size, group in sorted(by_size.items(), key=str):
        if not any(int_parameter(r, "mapping_mode") != 1 for r in group):
            continue
        group.sort(key=lambda r: (int_parameter(r, "mapping_mode") or 0, _algorithm_text(r)))
        mode1 = [median_gups(r)[0] for r in group if int_parameter(r, "mapping_mode") == 1]
        base = max((v for v in mode1 if v is not None), default=None)
        rows = [[int_parameter(r, "mapping_mode"), MODE_LAYOUT[int_parameter(r, "mapping_mode")],
                 _algorithm_text(r), f"{ranks(r)} × {threads(r)}", _sync(r),
                 format_number(median_gups(r)[0]),
                 _relative(median_gups(r)[0], base), _eq7_bound(r),
                 verdict_cell(r)] for r in group]
        blocks.append(Table.of(f"Mapping modes (Garg et al., Table 1), table 2^{size}", (
            "mode", "table, generator, look-ahead", "algorithm", "ranks × threads", "sync",
            "GUPS", "relative to mode 1", "eq. (7) bound", "validation"), rows,
            "C: per core, N: per node; relative: to the fastest mode-1 record of this size; "
            "eq. (7) bound: ranks / the busiest role's busy time per update issued (Garg et "
            "al., section 5.1; threaded records with every rank's thread counters)"))
        blocks.append(sink.bars(f"GUPS by mapping mode, table 2^{size}", "GUPS",
                                [f"mode {row[0]} {row[2]}" for row in rows],
                                {"median": [median_gups(r)[0] for r in group]}))
    return blocks


def _eq7_bound(record: Record) -> Optional[str]:
    times = record_role_times(record)
    bound = times.bound_gups() if times else None
    return None if bound is None else format_number(bound)


def _error_study(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    racing = [r for r in records if r.get("algorithm") == "shared" and _sync(r) == "none"
              and threads(r) > 1 and int_parameter(r, "updates_per_word") is not None]
    if not racing:
        return [Paragraph("absent: no shared-table error-rate records (`hpcprobe ra "
                          "shared-table-study`)", "absent")]
    racing.sort(key=lambda r: (threads(r), int_parameter(r, "updates_per_word") or 0))
    rows, curves = [], {}
    for record in racing:
        rates = summarize_rates(error_rates(wrong_words(record), int_parameter(record,
                                                                              "table_words")))
        per_word = int_parameter(record, "updates_per_word")
        rows.append([threads(record), per_word, _scaled(rates.mean), _scaled(rates.std),
                     None if rates.ratio is None else f"{rates.ratio:.3g}", verdict_cell(record)])
        curve = curves.setdefault(threads(record), ([], [], [], []))
        for target, value in zip(curve, (per_word, _scaled(rates.mean),
                                         _minus(rates.mean, rates.std),
                                         _plus(rates.mean, rates.std))):
            target.append(value)
    figure = sink.line("Error rate of threads sharing a table without synchronisation",
                       "updates per table word", "error rate (10^-6)",
                       [Curve(f"{count} threads", *values) for count, values in curves.items()],
                       log_x=2, caption="mean ± one standard deviation over the repetitions")
    return [figure, Table.of("Shared-table error rates (Garg et al., Table 2a)", (
        "threads", "updates per word", "mean error rate (10^-6)", "std (10^-6)", "std/mean",
        "validation"), rows, "error rate = wrong words / table words; races lose updates")]


def _sync_costs(records: Sequence[Record]) -> List[Block]:
    """Garg et al.'s Table 2b: each synchronisation of T threads on a shared table
    against one thread without any, at HPCC's 4 updates per word."""
    shared = [r for r in records if r.get("algorithm") == "shared" and _sync(r)
              and int_parameter(r, "updates_per_word") in (None, HPCC_UPDATES_PER_WORD)]
    blocks: List[Block] = []
    by_size: Dict[Optional[int], List[Record]] = {}
    for record in shared:
        by_size.setdefault(int_parameter(record, "table_log2"), []).append(record)
    for size, group in sorted(by_size.items(), key=str):
        serial = [median_gups(r)[0] for r in group if threads(r) == 1 and _sync(r) == "none"]
        if not serial or len(group) < 2:
            continue
        base = serial[0]
        group.sort(key=lambda r: (threads(r), str(_sync(r))))
        rows = [[threads(r), _sync(r), format_number(median_gups(r)[0]),
                 _relative(median_gups(r)[0], base),
                 verdict_cell(r)] for r in group]
        blocks.append(Table.of(f"Synchronisation costs (Garg et al., Table 2b), table 2^{size}",
                               ("threads", "sync", "GUPS", "relative to 1 thread", "validation"),
                               rows, "relative: to one thread without synchronisation"))
    return blocks or [Paragraph("absent: no shared-table records with one thread and others "
                                "with a sync (`hpcprobe ra shared-table-study`)", "absent")]


def _scaled(value: Optional[float]) -> Optional[float]:
    return None if value is None else value / MICRO


def _minus(mean: Optional[float], std: Optional[float]) -> Optional[float]:
    return None if mean is None or std is None else _scaled(mean - std)


def _plus(mean: Optional[float], std: Optional[float]) -> Optional[float]:
    return None if mean is None or std is None else _scaled(mean + std)


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the RandomAccess section for its (merged) records."""
    return [*_by_algorithm(records, sink), *_scaling(records, sink), *_sweep(records, sink),
            *_mod_switches(records, sink), *_modes(records, sink), *_error_study(records, sink),
            *_sync_costs(records)]


SECTION = ReportSection("randomaccess", "RandomAccess (GUPS)", ("ra",), 10, section, compare_label,
                        algorithm_options=ALGORITHM_OPTIONS)
