"""Merging records of repeated launches of one benchmark into one record.

Only records from the same machine and the same configuration merge: the metadata that
names the machine and the build (pyperf's checked metadata, here hosts, CPU, memory,
compiler and flags, MPI library, hpcprobe version and commit) and everything that shaped
the run (benchmark, variant, algorithm, parameters, layout, the headline's metric and
statistic, the bench command line without its --out file) must be equal, else the merge
is refused naming the first field that differs. Launch-to-launch differences are what a
merge is for: samples are pooled in launch order, so that statistics (and their modes)
see every launch.

The merged record is a valid record of the schema: samples, warm-ups and validation
repetitions concatenated; the headline recomputed with its statistic over all samples;
curves with per-point samples recomputed the same way, curves without them take per
point the median of the launches' values (max / min for max / min curves); status,
verdict and compliance the worst of the launches; counters kept where every launch
agrees, plus `merged_launches` and `merged_samples_per_launch`.
"""

import copy
import json
import statistics
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from hpcprobe.records import finite
from hpcprobe.records import section_of

Record = Dict[str, Any]

MACHINE_FIELDS = ("hosts", "cpu_model", "cores_per_node", "memory_bytes_per_node", "compiler",
                  "compiler_flags", "mpi_library", "hpcprobe_version", "git_commit")
CONFIG_FIELDS = ("benchmark", "variant", "algorithm", "parameters", "layout")
_VERDICT_ORDER = ("passed", "skipped", "failed")  # a merge is as good as its worst launch
_STATISTICS: Dict[str, Callable[[List[float]], float]] = {
    "median": statistics.median, "mean": statistics.fmean, "max": max, "min": min,
    "last": lambda values: values[-1],
}
# Curves without per-point samples: what combines the launches' values at a point.
_ACROSS_LAUNCHES: Dict[str, Callable[[List[float]], float]] = {
    "max": max, "min": min, "last": lambda values: values[-1],
}


class MergeRefused(ValueError):
    """Records that do not come from one machine and one configuration."""


def _bench_command(record: Record) -> List[Any]:
    """metadata.command_line without the value of --out (each run writes elsewhere)."""
    words = section_of(record, "metadata").get("command_line")
    words = words if isinstance(words, list) else []
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word == "--out":
            skip = True
        kept.append(word)
    return kept


def identity(record: Record) -> List[Tuple[str, Any]]:
    """(field, value) pairs that records must share to merge, in the order checked."""
    metadata = section_of(record, "metadata")
    headline = section_of(record, "value")
    pairs: List[Tuple[str, Any]] = [
        (f"metadata.{name}", sorted(metadata[name]) if name == "hosts"
         and isinstance(metadata.get(name), list) else metadata.get(name))
        for name in MACHINE_FIELDS]
    pairs += [(name, record.get(name)) for name in CONFIG_FIELDS]
    pairs += [("value.metric", headline.get("metric")),
              ("value.statistic", headline.get("statistic")),
              ("metadata.command_line", _bench_command(record))]
    return pairs


def merge_key(record: Record) -> str:
    """A string equal for exactly the records that may merge."""
    return json.dumps([value for _, value in identity(record)], sort_keys=True, default=str)


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:79] + "…"


def check_mergeable(records: Sequence[Record]) -> None:
    """Raise MergeRefused naming the first field where a record differs from the first."""
    first = identity(records[0])
    for index, record in enumerate(records[1:], 2):
        for (name, expected), (_, found) in zip(first, identity(record)):
            if expected != found:
                raise MergeRefused(
                    f"{name} differs: {_short(expected)} in launch 1, {_short(found)} in "
                    f"launch {index}")


def _pooled(entries: Sequence[Dict[str, Any]], key: str) -> List[Any]:
    pooled: List[Any] = []
    for entry in entries:
        values = entry.get(key)
        pooled += values if isinstance(values, list) else []
    return pooled


def _merge_metrics(records: Sequence[Record]) -> List[Dict[str, Any]]:
    merged = []
    for metric in records[0]["metrics"]:
        same = [entry for record in records for entry in record["metrics"]
                if entry.get("name") == metric.get("name")]
        entry = dict(metric, samples=_pooled(same, "samples"))
        if any("warmup" in one for one in same):
            entry["warmup"] = _pooled(same, "warmup")
        merged.append(entry)
    return merged


def _combine(values: Sequence[Any], statistic: str, table: Dict[str, Callable]) -> Any:
    numbers = finite(values)
    if not numbers:
        return None
    return table.get(statistic, statistics.median)(numbers)


def _merge_one_series(entries: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    first = entries[0]
    statistic = str(first.get("statistic"))
    merged = dict(first)
    if all(isinstance(entry.get("samples"), list) for entry in entries):
        per_point = [list(points) for points in zip(*[entry["samples"] for entry in entries])]
        merged["samples"] = [sum(points, []) for points in per_point]
        merged["y"] = [_combine(points, statistic, _STATISTICS) for points in merged["samples"]]
    else:
        merged.pop("samples", None)
        merged["y"] = [_combine(points, statistic, _ACROSS_LAUNCHES)
                       for points in zip(*[entry.get("y") or [] for entry in entries])]
    return merged


def _merge_series(records: Sequence[Record]) -> Optional[List[Dict[str, Any]]]:
    if "series" not in records[0]:
        return None
    merged = []
    for entry in records[0].get("series") or []:
        same = [other for record in records for other in record.get("series") or []
                if other.get("name") == entry.get("name") and other.get("x") == entry.get("x")]
        if len(same) == len(records):
            merged.append(_merge_one_series(same))
    return merged


def _merge_validation(records: Sequence[Record]) -> Dict[str, Any]:
    validations = [section_of(record, "validation") for record in records]
    merged = dict(validations[0])
    verdicts = [str(entry.get("verdict")) for entry in validations]
    merged["verdict"] = max(verdicts, key=lambda verdict: _VERDICT_ORDER.index(verdict)
                            if verdict in _VERDICT_ORDER else 0)
    errors = finite(entry.get("error") for entry in validations)
    if errors:
        merged["error"] = max(errors)
    if any("per_repetition" in entry for entry in validations):
        merged["per_repetition"] = _pooled(validations, "per_repetition")
    return merged


def _merge_counters(records: Sequence[Record]) -> Dict[str, Any]:
    counters = [section_of(record, "counters") for record in records]
    kept = {name: value for name, value in counters[0].items()
            if all(other.get(name) == value for other in counters)}
    kept["merged_launches"] = len(records)
    kept["merged_samples_per_launch"] = [len(finite(_headline_samples(record)))
                                         for record in records]
    return kept


def _headline_samples(record: Record) -> List[Any]:
    name = section_of(record, "value").get("metric")
    for metric in record.get("metrics") or []:
        if metric.get("name") == name:
            return metric.get("samples") or []
    return []


def _notes(records: Sequence[Record], per_launch: Sequence[int]) -> List[str]:
    notes: List[str] = []
    for record in records:
        for note in record.get("notes") or []:
            if note not in notes:
                notes.append(note)
    counts = "+".join(str(count) for count in per_launch)
    notes.append(f"merged from {len(records)} launches: samples pooled in launch order "
                 f"({counts} headline samples)")
    return notes


def merge_records(records: Sequence[Record]) -> Record:
    """One record pooling `records` (raises MergeRefused, see check_mergeable)."""
    if not records:
        raise MergeRefused("nothing to merge")
    check_mergeable(records)
    if len(records) == 1:
        return copy.deepcopy(records[0])
    merged = copy.deepcopy(records[0])
    merged["started_at"] = min(record["started_at"] for record in records)
    merged["finished_at"] = max(record["finished_at"] for record in records)
    merged["status"] = "failed" if any(r.get("status") == "failed" for r in records) else "ok"
    merged["compliant"] = all(record.get("compliant") is True for record in records)
    merged["metrics"] = _merge_metrics(records)
    headline = merged["value"]
    headline["value"] = _combine(_headline_samples(merged), str(headline.get("statistic")),
                                 _STATISTICS)
    series = _merge_series(records)
    if series is not None:
        merged["series"] = series
    merged["validation"] = _merge_validation(records)
    merged["counters"] = _merge_counters(records)
    merged["notes"] = _notes(records, merged["counters"]["merged_samples_per_launch"])
    return merged


def group_records(records: Iterable[Record]) -> List[List[Record]]:
    """The records in groups that may merge, in order of first appearance."""
    groups: Dict[str, List[Record]] = {}
    for record in records:
        groups.setdefault(merge_key(record), []).append(record)
    return list(groups.values())


def merged_groups(records: Iterable[Record]) -> List[Record]:
    """One record per group of mergeable records (a group of one stays as it was)."""
    return [group[0] if len(group) == 1 else merge_records(group)
            for group in group_records(records)]
