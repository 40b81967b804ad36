"""The HPCC section of a report (paper 003): HPCC's table of global and embarrassingly
parallel figures, computed by summary.py (the `run --suite hpcc --hpcc-summary`
block) for each number of ranks P; the HPL-normalised balance (Table 2) and its Kiviat
chart (Figure 5) as `hpcprobe compare` computes them; then each kernel's details: HPL's
order, block, grid, look-ahead, residual and time breakdown, DGEMM's BLAS, PTRANS's grid,
FFT's engine and the phases of the distributed transform.

The section gets the machine's HPL, DGEMM, PTRANS and FFT records, and its RandomAccess,
STREAM and b_eff records, which HPCC's table also reads (report/registry.py)."""

import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe.hpcc_summary.balance import Balance, balance_of, by_ranks, hpcc_keys_of
from hpcprobe.hpcc_summary.summary import hpcc_summary_entries, hpcc_summary_sections
from hpcprobe.hpcc_summary.balance_report import (balance_table_blocks, kiviat_figure,
                                                  kiviat_table_blocks)
from hpcprobe.report.blocks import Block, Paragraph, Table
from hpcprobe.report.common import (Record, int_parameter, newest_first, of_benchmark, parameter,
                                    plain, ranks, verdict_cell)
from hpcprobe.report.registry import ReportSection
from hpcprobe.report.plots import FigureSink
from hpcprobe.samples import metric_median
from hpcprobe.units import GIGA, format_number

MAX_P_COLUMNS = 6    # HPCC tables side by side, the most ranks
MAX_ROWS = 12        # records per kernel table, the newest
MAX_BREAKDOWNS = 4   # records per time-breakdown figure, the newest
MIN_DRAWN = 5        # balance ratios a P needs to be drawn in the Kiviat chart
MEASURED_SECTIONS = ("hpl", "dgemm", "ptrans", "randomaccess", "stream", "fft", "beff")
# Keys of HPCC's block that describe the build or the arithmetic, not a measurement.
_FIXED_KEY = re.compile(r"^(HPL_[ds]MACH_|[ds]weps$|HPL_eps$|HPLM(ax|in)Procs$|"
                        r"HPL_(nbdiv|nbmin|cpfact|crfact|ctop|order)$)")
HPL_PHASES = (("panel factorization", "panel_factorization_time_rank0"),
              ("trailing update", "trailing_update_time_rank0"),
              ("waiting for panels", "panel_wait_time_rank0"))
FFT_PHASES = (("transpose 1", "transpose1_time"), ("FFT 1 + twiddle", "fft1_twiddle_time"),
              ("transpose 2", "transpose2_time"), ("FFT 2", "fft2_time"),
              ("transpose 3", "transpose3_time"))


def compare_label(record: Record) -> str:
    """What tells two HPCC kernel rows apart: the problem size (and HPL's grid, FFT's
    engine)."""
    benchmark = record.get("benchmark")
    if benchmark == "hpl":
        return (f"N={int_parameter(record, 'n')}, NB={int_parameter(record, 'nb')}, "
                f"{int_parameter(record, 'p')}x{int_parameter(record, 'q')}")
    if benchmark in ("dgemm", "ptrans"):
        return f"n={int_parameter(record, 'n')}"
    if benchmark == "fft":
        engine = parameter(record, "fft_engine")
        return f"m=2^{int_parameter(record, 'log2_m')}" + (
            f", {plain(engine, 20)}" if isinstance(engine, str) else "")
    return ""


def _groups(records: Sequence[Record]) -> List[Tuple[int, List[Record]]]:
    """HPCC's records by P, the most ranks last; at most MAX_P_COLUMNS of them."""
    return list(by_ranks(records).items())[-MAX_P_COLUMNS:]


def _measured(entries: Sequence[Tuple[str, str]]) -> List[Tuple[str, str]]:
    return [(key, value) for key, value in entries if not _FIXED_KEY.match(key)]


def _hpcc_table(groups: Sequence[Tuple[int, List[Record]]]) -> Table:
    """Rows: HPCC's keys by test; columns: one per P (each P's records as one HPCC run)."""
    values: Dict[Tuple[str, str], Dict[int, str]] = {}
    for procs, group in groups:
        for test, entries in hpcc_summary_sections(group):
            if test in MEASURED_SECTIONS:
                for key, value in _measured(entries):
                    values.setdefault((test, key), {})[procs] = value
    rows = [[test, key] + [found.get(procs) for procs, _ in groups]
            for (test, key), found in values.items()]
    return Table.of("HPCC's summary keys, by test", ["test", "key"] + [
        f"P = {procs}" for procs, _ in groups], rows,
        "the keys, units and formats of HPCC 1.5's summary block (hpcc_summary/summary.py, "
        "as `run --suite hpcc` writes them), computed from this machine's records on each "
        "number of ranks P; a key is shown where a record measured it")


def _balance_blocks(groups: Sequence[Tuple[int, List[Record]]], sink: FigureSink) -> List[Block]:
    found: Dict[str, Balance] = {}
    for procs, group in groups:
        if any(record.get("benchmark") == "hpl" for record in group):
            found[f"P = {procs}"] = balance_of(hpcc_keys_of(group, hpcc_summary_entries))
    if not found:
        return [Paragraph("absent: the balance of paper 003 divides by G-HPL: no hpl record "
                          "(`hpcprobe hpl` or `hpcprobe run --suite hpcc`)", "absent")]
    blocks = balance_table_blocks(found, "each P's figures over the same P's HPL, from HPCC's "
                                         "summary keys as `hpcprobe compare` computes them")
    # A P where only HPL ran would leave the chart no common axis: it stays in the table.
    drawn = {name: balance for name, balance in found.items()
             if sum(value is not None for value in balance.values.values()) >= MIN_DRAWN} or found
    figure = kiviat_figure(drawn, sink, "paper 003, Figure 5: each ratio over G-HPL, then over "
                                        "the best configuration here (with one, every axis is "
                                        "1: `hpcprobe compare` sets machines side by side)")
    return blocks + ([figure] if figure is not None else kiviat_table_blocks(drawn))


def _text(record: Record, name: str) -> Optional[str]:
    """A text parameter as one line of text; None (a dash) when it is not text."""
    value = parameter(record, name)
    return plain(value, 60) if isinstance(value, str) else None


def _gflops(record: Record) -> str:
    return format_number(metric_median(record, "flop_rate"), GIGA)


def _hpl(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_benchmark(records, "hpl"))
    if not found:
        return [Paragraph("absent: HPL: no hpl records (`hpcprobe hpl`)", "absent")]
    rows = [[ranks(r), int_parameter(r, "n"), int_parameter(r, "nb"),
             f"{int_parameter(r, 'p')}x{int_parameter(r, 'q')}",
             _text(r, "process_mapping"), int_parameter(r, "lookahead_depth"),
             _text(r, "panel_factorization"), _gflops(r),
             format_number(metric_median(r, "time")), _text(r, "blas"),
             verdict_cell(r)]
            for r in found[:MAX_ROWS]]
    blocks: List[Block] = [Table.of("HPL", (
        "ranks", "N", "NB", "grid PxQ", "mapping", "look-ahead", "panel factorization",
        "Gflop/s", "time s", "BLAS", "validation: scaled residual"), rows,
        "Gflop/s and time: the median over repetitions; HPL's scaled residual ||Ax-b||_inf / "
        "(eps (||A||_inf ||x||_inf + ||b||_inf) N)")]
    blocks += _breakdown(sink, found, HPL_PHASES, "HPL: where rank 0's time went",
                         lambda r: f"N={int_parameter(r, 'n')} on {ranks(r)} ranks",
                         "the median over repetitions of rank 0's time in each phase")
    return blocks + _more(found, "hpl")


def _breakdown(sink: FigureSink, found: Sequence[Record], phases: Sequence[Tuple[str, str]],
               title: str, name: Callable[[Record], str], caption: str) -> List[Block]:
    """Grouped bars: per phase, each record's median time (records without any: none)."""
    series: Dict[str, Sequence[Optional[float]]] = {}
    for record in found[:MAX_BREAKDOWNS]:
        times = [metric_median(record, metric) for _, metric in phases]
        if any(time is not None for time in times):
            label = name(record)
            series[label if label not in series else f"{label} ({len(series) + 1})"] = times
    if not series:
        return []
    return [sink.bars(title, "seconds", [phase for phase, _ in phases], series,
                      caption=caption)]


def _more(found: Sequence[Record], what: str) -> List[Block]:
    if len(found) <= MAX_ROWS:
        return []
    return [Paragraph(f"{len(found)} {what} configurations; the newest {MAX_ROWS} are listed, "
                      "the statistics at the end list them all")]


def _dgemm(records: Sequence[Record]) -> List[Block]:
    found = newest_first(of_benchmark(records, "dgemm"))
    if not found:
        return [Paragraph("absent: DGEMM: no dgemm records (`hpcprobe dgemm single|star`)",
                          "absent")]
    rows = [[plain(r.get("variant")), ranks(r), int_parameter(r, "n"),
             int_parameter(r, "copies"), _gflops(r), int_parameter(r, "blas_threads"),
             _text(r, "blas_library") or _text(r, "blas"), verdict_cell(r)]
            for r in found[:MAX_ROWS]]
    return [Table.of("DGEMM", ("variant", "ranks", "n", "copies", "Gflop/s per copy",
                               "BLAS threads", "BLAS", "validation: residual"), rows,
                     "single: one rank alone; star: every rank at once (the mean over the "
                     "copies); HPCC's residual of C x against beta C0 x + alpha A (B x)")
            ] + _more(found, "dgemm")


def _ptrans(records: Sequence[Record]) -> List[Block]:
    found = newest_first(of_benchmark(records, "ptrans"))
    if not found:
        return [Paragraph("absent: PTRANS: no ptrans records (`hpcprobe ptrans`)", "absent")]
    rows = [[plain(r.get("algorithm")), ranks(r), int_parameter(r, "n"), int_parameter(r, "nb"),
             f"{int_parameter(r, 'p')}x{int_parameter(r, 'q')}",
             format_number(metric_median(r, "bandwidth"), GIGA),
             format_number(metric_median(r, "time")), verdict_cell(r)] for r in found[:MAX_ROWS]]
    return [Table.of("PTRANS", ("algorithm", "ranks", "n", "NB", "grid PxQ", "GB/s", "time s",
                                "validation: error in eps"), rows,
                     "C <- A^T + C on a block-cyclic grid; GB/s = 10^9 B/s, the median over "
                     "repetitions")] + _more(found, "ptrans")


def _fft_engine(record: Record) -> Optional[str]:
    """"fftw", or "internal (avx512)": the instruction set the internal FFT ran with."""
    engine, isa = _text(record, "fft_engine"), _text(record, "internal_isa")
    return f"{engine} ({isa})" if engine and isa else engine


def _fft(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    found = newest_first(of_benchmark(records, "fft"))
    if not found:
        return [Paragraph("absent: FFT: no fft records (`hpcprobe fft single|star|mpi`)",
                          "absent")]
    rows = [[plain(r.get("variant")), plain(r.get("algorithm")), ranks(r),
             f"2^{int_parameter(r, 'log2_m')}", _fft_engine(r),
             _text(r, "fftw_planner"), _gflops(r), verdict_cell(r)]
            for r in found[:MAX_ROWS]]
    blocks: List[Block] = [Table.of("FFT", (
        "variant", "algorithm", "ranks", "points m", "engine", "planner", "Gflop/s",
        "validation: error in eps ln m"), rows,
        "Gflop/s: 5 m log2 m flops per transform, the median over repetitions (star: per "
        "copy); HPCC's check: the inverse transform against the input")]
    distributed = [r for r in found if r.get("variant") == "mpi"]
    blocks += _breakdown(sink, distributed, FFT_PHASES, "FFT mpi: the phases of the transform",
                         lambda r: f"m=2^{int_parameter(r, 'log2_m')} on {ranks(r)} ranks",
                         "the six-step algorithm: the median over repetitions of each phase's "
                         "time; the transposes are the all-to-all exchanges")
    return blocks + _more(found, "fft")


def section(records: Sequence[Record], sink: FigureSink) -> List[Block]:
    """The blocks of the HPCC section for one machine's records."""
    groups = _groups(records)
    blocks: List[Block] = [_hpcc_table(groups)] if groups else []
    skipped = len(by_ranks(records)) - len(groups)
    if skipped > 0:
        blocks.append(Paragraph(f"records on {skipped} more numbers of ranks: the "
                                f"{MAX_P_COLUMNS} largest are shown"))
    return (blocks + _balance_blocks(groups, sink) + _hpl(records, sink) + _dgemm(records)
            + _ptrans(records) + _fft(records, sink))


# On the report page after the families whose records it reads.
SECTION = ReportSection("hpcc", "HPCC kernels: HPL, DGEMM, PTRANS, FFT",
                        ("hpl", "dgemm", "ptrans", "fft"), 90, section, compare_label,
                        reads=("ra", "stream", "beff"))
