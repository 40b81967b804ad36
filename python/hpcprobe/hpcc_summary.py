"""An HPCC-compatible summary block, so tools that parse hpccoutf.txt read our results.

Key names, order and number formats follow HPCC 1.5 (src/io.c, HPCC_Finalize): `%g`
for rates and times, integers for counts, `%e` for MPI_Wtick. Only keys that an
hpcprobe record measures are written.
"""

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from hpcprobe.stats import metric_median

Record = Dict[str, Any]
Entry = Tuple[str, str]

BEGIN_LINE = "Begin of Summary section."
END_LINE = "End of Summary section."
# HPCC numbers its MPIRandomAccess algorithms; 0 is the standard one.
HPCC_ALGORITHM_NUMBERS = {"reference": 0}


def _g(value: float) -> str:
    return "%g" % value


def _integer(value: float) -> str:
    return str(int(value))


def _section(record: Record, name: str) -> Dict[str, Any]:
    section = record.get(name)
    return section if isinstance(section, dict) else {}


def _rng_infix(record: Record) -> str:
    # HPCC reports its LCG runs under the same keys with "_LCG" inserted.
    return "_LCG" if _section(record, "parameters").get("rng") == "lcg" else ""


def _last(records: Sequence[Record], variant: str, lcg: bool) -> Optional[Record]:
    chosen = None
    for record in records:
        if record.get("variant") == variant and (_rng_infix(record) == "_LCG") == lcg:
            chosen = record
    return chosen


def _gups(record: Record) -> Optional[float]:
    rate = _section(record, "value").get("value")
    return None if rate is None else rate / 1e9


def _executed_updates(record: Record) -> Optional[float]:
    executed = _section(record, "counters").get("updates_executed")
    if isinstance(executed, list):  # per-rank counts
        return sum(count for count in executed if isinstance(count, (int, float)))
    return executed


def _entry(key: str, value: Optional[float], fmt) -> List[Entry]:
    return [] if value is None else [(key, fmt(value))]


def _mpi_entries(record: Record) -> List[Entry]:
    prefix = f"MPIRandomAccess{_rng_infix(record)}_"
    parameters = _section(record, "parameters")
    table_words = parameters.get("table_words")
    errors = _section(record, "validation").get("error")
    fraction = None
    if errors is not None and table_words:
        fraction = errors / table_words
    time_bound = parameters.get("time_limit_s")
    return [
        *_entry(prefix + "N", table_words, _integer),
        *_entry(prefix + "time", metric_median(record, "time"), _g),
        *_entry(prefix + "CheckTime", metric_median(record, "verify_time"), _g),
        *_entry(prefix + "Errors", errors, _integer),
        *_entry(prefix + "ErrorsFraction", fraction, _g),
        *_entry(prefix + "ExeUpdates", _executed_updates(record), _integer),
        *_entry(prefix + "GUPs", _gups(record), _g),
        *_entry(prefix + "TimeBound", -1 if time_bound is None else time_bound, _g),
        *_entry(prefix + "Algorithm", HPCC_ALGORITHM_NUMBERS.get(record.get("algorithm")),
                _integer),
    ]


def _per_process_entries(records: Sequence[Record], lcg: bool) -> List[Entry]:
    infix = "_LCG" if lcg else ""
    single = _last(records, "single", lcg)
    star = _last(records, "star", lcg)
    sized = single or star
    entries: List[Entry] = []
    if sized is not None:
        table_words = _section(sized, "parameters").get("table_words")
        entries += _entry(f"RandomAccess{infix}_N", table_words, _integer)
    if star is not None:
        entries += _entry(f"StarRandomAccess{infix}_GUPs", _gups(star), _g)
    if single is not None:
        entries += _entry(f"SingleRandomAccess{infix}_GUPs", _gups(single), _g)
    return entries


def _general_entries(records: Sequence[Record]) -> List[Entry]:
    failed = any(
        record.get("status") == "failed"
        or _section(record, "validation").get("verdict") == "failed"
        for record in records
    )
    ranks = [_section(record, "layout").get("ranks") or 1 for record in records]
    wticks = [_section(record, "metadata").get("mpi_wtick_s") for record in records]
    wtick = next((tick for tick in wticks if tick is not None), None)
    return [
        ("Success", "0" if failed else "1"),
        ("CommWorldProcs", str(max(ranks))),
        *_entry("MPI_Wtick", wtick, lambda tick: "%e" % tick),
    ]


def hpcc_summary_entries(records: Iterable[Record]) -> List[Entry]:
    """(key, value) pairs in HPCC's order, for the RandomAccess records given."""
    ra_records = [record for record in records if record.get("benchmark") == "ra"]
    if not ra_records:
        return []
    entries = _general_entries(ra_records)
    for lcg in (True, False):  # HPCC prints the LCG block first
        mpi = _last(ra_records, "mpi", lcg)
        if mpi is not None:
            entries += _mpi_entries(mpi)
    for lcg in (True, False):
        entries += _per_process_entries(ra_records, lcg)
    return entries


def hpcc_summary_text(records: Iterable[Record]) -> str:
    """The block from "Begin of Summary section." to "End of Summary section."."""
    lines = [BEGIN_LINE]
    lines += [f"{key}={value}" for key, value in hpcc_summary_entries(records)]
    lines.append(END_LINE)
    return "\n".join(lines) + "\n"
