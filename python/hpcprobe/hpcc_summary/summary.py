"""An HPCC-compatible summary block, so tools that parse hpccoutf.txt read our results.

Key names and order follow HPCC 1.5 (src/io.c, HPCC_Finalize); number formats are
block.py's: fixed point with a decimal point where HPCC has `%g` (rates, times),
integers for counts, `%e` for MPI_Wtick and the machine constants. SECTIONS, in HPCC's
order, give what the records measured: the general keys, HPL (with the machine's
arithmetic), DGEMM, PTRANS, RandomAccess, STREAM, FFT, b_eff, and HPCC's build switches
(keys.py has those of HPL, DGEMM, PTRANS, FFT and the machine); the printed block has
every key of HPCC 1.5 once, a key no record measured holding HPCC's "not run" value
(block.whole_block). Success is 1 only when every step asked for ran and every HPCC
record passed validation: a missing, failed or unverified one gives 0, and a line
after the summary names it.

b_eff's keys come from `beff` records through SECTIONS["beff"], the b_eff family's own
function (beff_summary.py: HPCC's ten keys, their definitions and units).

STREAM (HPCC's src/stream.c): `SingleSTREAM_<Kernel>` is the best rate of one process
running alone, `StarSTREAM_<Kernel>` the mean over the processes of each one's best rate
with all running at once, both in GB/s (10^9 B/s). They come from the last `stream star`
record (its per-copy best rates, and its one-copy phase) and the last `stream single`
record, which takes precedence for the Single keys. HPCC prints them after the
RandomAccess keys, after `STREAM_VectorSize` (elements per array) and `STREAM_Threads`.

When several `ra mpi` algorithms ran, the MPIRandomAccess keys report the highest rate
among the validated, compliant records, as an optimised HPCC run reports its algorithm
under the same keys; `MPIRandomAccess_Algorithm` gives HPCC's number for it where HPCC
has one, and a line before the block names it (HPCC's output file has free text outside
the summary block; parsers read only between its Begin and End lines).
"""

import statistics
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from hpcprobe.hpcc_summary import keys as hpcc_keys
from hpcprobe.hpcc_summary.balance import balance_of, keys_from_records
from hpcprobe.hpcc_summary.block import FORMAT_VERSION, decimal, integer, whole_block
from hpcprobe.hpcc_summary.keys import BEGIN_LINE, END_LINE, HPCC_BENCHMARKS
from hpcprobe.hpcc_summary.beff import beff_summary_entries
from hpcprobe.hpcc_summary.stream import STREAM_KERNELS, stream_single_best, stream_star_best
from hpcprobe.records import number
from hpcprobe.sanitize import plain
from hpcprobe.samples import metric_median
from hpcprobe.records import section_of

Record = Dict[str, Any]
Entry = Tuple[str, str]

# HPCC numbers its MPIRandomAccess algorithms (RandomAccess.h, HPCC_RA_ALGORITHM): 0 the
# standard one, 1 Sandia's hypercube routing (RA_SANDIA_NOPT, Plimpton et al.'s
# algorithm), 2 Sandia's power-of-two version with sorting and unrolling (RA_SANDIA_OPT2,
# which hpcprobe does not have). alltoall and torus have no HPCC number.
HPCC_ALGORITHM_NUMBERS = {"reference": 0, "hypercube": 1}


def _rng_infix(record: Record) -> str:
    # HPCC reports its LCG runs under the same keys with "_LCG" inserted.
    return "_LCG" if section_of(record, "parameters").get("rng") == "lcg" else ""


def _of_variant(records: Sequence[Record], variant: str, lcg: bool) -> List[Record]:
    return [
        record for record in records
        if record.get("variant") == variant and (_rng_infix(record) == "_LCG") == lcg
    ]


def _last(records: Sequence[Record], variant: str, lcg: bool) -> Optional[Record]:
    chosen = _of_variant(records, variant, lcg)
    return chosen[-1] if chosen else None


def _rate(record: Record) -> Optional[float]:
    rate = section_of(record, "value").get("value")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)):
        return None
    return float(rate)


def _gups(record: Record) -> Optional[float]:
    rate = _rate(record)
    return None if rate is None else rate / 1e9


def _validated(record: Record) -> bool:
    return (record.get("status") == "ok" and record.get("compliant") is not False
            and section_of(record, "validation").get("verdict") == "passed"
            and _rate(record) is not None)


def _chosen_mpi(records: Sequence[Record], lcg: bool) -> Optional[Record]:
    """The validated, compliant mpi record with the highest rate (the last of equals);
    the last mpi record when none is validated."""
    candidates = _of_variant(records, "mpi", lcg)
    validated = [record for record in candidates if _validated(record)]
    if not validated:
        return candidates[-1] if candidates else None
    best = validated[0]
    for record in validated[1:]:
        if (_rate(record) or 0.0) >= (_rate(best) or 0.0):
            best = record
    return best


def _executed_updates(record: Record) -> Optional[float]:
    executed = section_of(record, "counters").get("updates_executed")
    if isinstance(executed, list):  # per-rank counts
        return sum(count for count in executed if isinstance(count, (int, float)))
    return executed


def _entry(key: str, value: Optional[float], fmt) -> List[Entry]:
    return [] if value is None else [(key, fmt(value))]


def _mpi_entries(record: Record) -> List[Entry]:
    prefix = f"MPIRandomAccess{_rng_infix(record)}_"
    parameters = section_of(record, "parameters")
    table_words = parameters.get("table_words")
    errors = section_of(record, "validation").get("error")
    fraction = None
    if errors is not None and table_words:
        fraction = errors / table_words
    time_bound = parameters.get("time_limit_s")
    return [
        *_entry(prefix + "N", table_words, integer),
        *_entry(prefix + "time", metric_median(record, "time"), decimal),
        *_entry(prefix + "CheckTime", metric_median(record, "verify_time"), decimal),
        *_entry(prefix + "Errors", errors, integer),
        *_entry(prefix + "ErrorsFraction", fraction, decimal),
        *_entry(prefix + "ExeUpdates", _executed_updates(record), integer),
        *_entry(prefix + "GUPs", _gups(record), decimal),
        *_entry(prefix + "TimeBound", -1 if time_bound is None else time_bound, decimal),
        *_entry(prefix + "Algorithm", HPCC_ALGORITHM_NUMBERS.get(str(record.get("algorithm"))),
                integer),
    ]


def _per_process_entries(records: Sequence[Record], lcg: bool) -> List[Entry]:
    infix = "_LCG" if lcg else ""
    single = _last(records, "single", lcg)
    star = _last(records, "star", lcg)
    sized = single or star
    entries: List[Entry] = []
    if sized is not None:
        table_words = section_of(sized, "parameters").get("table_words")
        entries += _entry(f"RandomAccess{infix}_N", table_words, integer)
    if star is not None:
        entries += _entry(f"StarRandomAccess{infix}_GUPs", _gups(star), decimal)
    if single is not None:
        entries += _entry(f"SingleRandomAccess{infix}_GUPs", _gups(single), decimal)
    return entries


def _record_name(record: Record) -> str:
    words = (record.get("benchmark"), record.get("variant"), record.get("algorithm"))
    return " ".join(plain(word) for word in words if isinstance(word, str) and word)


def record_problems(records: Iterable[Record]) -> List[str]:
    """Why these records do not make a successful HPCC run: each one that failed, was
    not verified (--no-verify) or carries no verdict. Fail safe: only "passed" with
    status "ok" counts."""
    problems = []
    for record in records:
        verdict = section_of(record, "validation").get("verdict")
        if record.get("status") == "failed" or verdict == "failed":
            problems.append(f"'{_record_name(record)}' failed validation")
        elif verdict == "skipped":
            problems.append(f"'{_record_name(record)}' was not verified (--no-verify)")
        elif verdict != "passed" or record.get("status") != "ok":
            problems.append(f"'{_record_name(record)}' has no validation verdict")
    return problems


def _general_entries(records: Sequence[Record]) -> List[Entry]:
    ranks = [section_of(record, "layout").get("ranks") or 1 for record in records]
    wticks = [section_of(record, "metadata").get("mpi_wtick_s") for record in records]
    wtick = next((tick for tick in wticks if tick is not None), None)
    return [
        *FORMAT_VERSION,
        ("LANG", "C"),
        ("Success", "0" if record_problems(records) or not records else "1"),
        *hpcc_keys.sizeof_entries(records),
        *_entry("CommWorldProcs", max(ranks, default=None), str),
        *_entry("MPI_Wtick", wtick, lambda tick: "%e" % tick),
    ]


def _last_stream(records: Sequence[Record], variant: str) -> Optional[Record]:
    chosen = [record for record in records if record.get("variant") == variant]
    return chosen[-1] if chosen else None


def _gbs(rate: Optional[float]) -> Optional[float]:
    return None if rate is None else rate / 1e9


def _stream_entries(records: Sequence[Record]) -> List[Entry]:
    """STREAM_VectorSize, STREAM_Threads, StarSTREAM_*, SingleSTREAM_* (HPCC's order)."""
    star = _last_stream(records, "star")
    single = _last_stream(records, "single") or star  # star ran the one-copy phase too
    sized = single or star
    if sized is None:
        return []
    parameters = section_of(sized, "parameters")
    threads = number(parameters.get("threads_per_rank")) or number(
        section_of(sized, "layout").get("threads_per_rank"))
    entries = [*_entry("STREAM_VectorSize", number(parameters.get("array_elements")), integer),
               *_entry("STREAM_Threads", threads, integer)]
    for kernel in STREAM_KERNELS:
        rates = stream_star_best(star, kernel) if star is not None else []
        mean = statistics.fmean(rates) if rates else None
        entries += _entry(f"StarSTREAM_{kernel.capitalize()}", _gbs(mean), decimal)
    for kernel in STREAM_KERNELS:
        best = stream_single_best(single, kernel) if single is not None else None
        entries += _entry(f"SingleSTREAM_{kernel.capitalize()}", _gbs(best), decimal)
    return entries


def _of_benchmark(records: Sequence[Record], *benchmarks: str) -> List[Record]:
    return [record for record in records if record.get("benchmark") in benchmarks]


def _randomaccess_entries(records: Sequence[Record]) -> List[Entry]:
    ra_records = _of_benchmark(records, "ra")
    entries: List[Entry] = []
    for lcg in (True, False):  # HPCC prints the LCG block first
        mpi = _chosen_mpi(ra_records, lcg)
        if mpi is not None:
            entries += _mpi_entries(mpi)
    for lcg in (True, False):
        entries += _per_process_entries(ra_records, lcg)
    return entries


EntriesFn = Callable[[Sequence[Record]], List[Entry]]
# HPCC's order. Each function gets every record and picks its own benchmark's.
SECTIONS: Dict[str, EntriesFn] = {
    "general": _general_entries,
    "hpl": hpcc_keys.hpl_entries,
    "dgemm": hpcc_keys.dgemm_entries,
    "ptrans": hpcc_keys.ptrans_entries,
    "randomaccess": _randomaccess_entries,
    "stream": lambda records: _stream_entries(_of_benchmark(records, "stream")),
    "fft": hpcc_keys.fft_entries,
    "beff": beff_summary_entries,
    "build": hpcc_keys.trailer_entries,
}



def hpcc_summary_sections(records: Iterable[Record]) -> List[Tuple[str, List[Entry]]]:
    """(section name, its (key, value) pairs) in HPCC's order for the HPCC records given;
    none without any (the report shows the block by test)."""
    records = _of_benchmark(list(records), *HPCC_BENCHMARKS)
    if not records:
        return []
    return [(name, entries_of(records)) for name, entries_of in SECTIONS.items()]


def hpcc_summary_entries(records: Iterable[Record]) -> List[Entry]:
    """The (key, value) pairs that the HPCC records given measured, section by section in
    HPCC's order; none without any (whole_block makes the printed block of them)."""
    return [entry for _, entries in hpcc_summary_sections(records) for entry in entries]


def _algorithm_label(record: Record) -> str:
    label = plain(record.get("algorithm"))
    mods = section_of(record, "parameters").get("mods")
    if isinstance(mods, str):
        label += f" (mods {plain(mods)})"
    number = HPCC_ALGORITHM_NUMBERS.get(str(record.get("algorithm")))
    hpcc = f"HPCC algorithm {number}" if number is not None else "no HPCC algorithm number"
    return f"{label}, {hpcc}"


def algorithm_lines(records: Iterable[Record]) -> List[str]:
    """One line per generator naming the algorithm that the MPIRandomAccess keys report,
    when it is not HPCC's reference or several algorithms ran; nothing otherwise."""
    ra_records = [record for record in records if record.get("benchmark") == "ra"]
    lines = []
    for lcg in (True, False):
        chosen = _chosen_mpi(ra_records, lcg)
        ran = {str(record.get("algorithm")) for record in _of_variant(ra_records, "mpi", lcg)}
        if chosen is None or ran == {"reference"}:
            continue
        prefix = "MPIRandomAccess_LCG_*" if lcg else "MPIRandomAccess_*"
        why = ("the highest validated rate" if _validated(chosen)
               else "the last record, none being validated")
        lines.append(
            f"{prefix} report ra mpi --algo {_algorithm_label(chosen)}: {why} of the "
            f"mpi algorithms run ({', '.join(plain(name) for name in sorted(ran))})")
    return lines


def balance_lines(records: Sequence[Record]) -> List[str]:
    """Paper 003's balance ratios (analysis/balance.py, the same as `hpcprobe compare`)
    of these records: lines for after the block; none without HPL."""
    keys = keys_from_records(records, hpcc_summary_entries)
    if not keys.get("HPL_Tflops"):
        return []
    found = balance_of(keys)
    lines = [f"Balance (paper 003, Table 2): G-HPL = {keys['HPL_Tflops'] * 1e3:g} Gflop/s"]
    for name, value in found.values.items():
        if value is not None and name not in ("G-HPL", "G-HPL/G-HPL"):
            lines.append(f"  {name} = {value:.4g}")
    return lines


def hpcc_summary_text(records: Iterable[Record], step_problems: Sequence[str] = ()) -> str:
    """The block from "Begin of Summary section." to "End of Summary section." with
    every key of HPCC 1.5 once, after the lines of algorithm_lines (if any), and paper
    003's balance ratios after it when HPL ran.

    `step_problems` names the steps that were asked for and did not deliver (failed,
    killed, no record): any makes Success 0, as a failed or unverified record does.
    unsuccessful_lines says why, for after the text (parsers read only the block)."""
    records = list(records)
    entries = hpcc_summary_entries(records)
    if step_problems:
        entries.append(("Success", "0"))
    lines = algorithm_lines(records)
    lines.append(BEGIN_LINE)
    lines += [f"{key}={value}" for key, value in whole_block(entries)]
    lines.append(END_LINE)
    lines += balance_lines(records)
    return "\n".join(lines) + "\n"


def unsuccessful_lines(records: Iterable[Record], step_problems: Sequence[str] = ()) -> List[str]:
    """One "Not successful: ..." line per reason that Success is 0; none when it is 1."""
    problems = list(step_problems) + record_problems(_of_benchmark(list(records),
                                                                   *HPCC_BENCHMARKS))
    return [f"Not successful: {problem}" for problem in problems]
