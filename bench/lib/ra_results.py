"""Reading hpcc's and hpcprobe's RandomAccess results for the bench reports."""
import json
import statistics
import sys
from pathlib import Path


def number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def hpcc_summary(path):
    """The Key=value block of an hpccoutf.txt, values as numbers where they are."""
    lines = Path(path).read_text().splitlines()
    block = lines[lines.index("Begin of Summary section.") + 1:
                  lines.index("End of Summary section.")]
    return {k: number(v) for k, _, v in (line.partition("=") for line in block)}


def require_hpcc_tables(summary, expected, run):
    """A comparison is only fair on the same table: exit unless every hpcc key in
    `expected` (e.g. {"MPIRandomAccess_N": 2**27}) has its value."""
    wrong = {k: summary.get(k) for k, v in expected.items() if summary.get(k) != v}
    if wrong:
        sys.exit(f"run {run}: hpcc table sizes {wrong} are not {expected}")


def randomaccess_keys(summary):
    return {k: v for k, v in summary.items() if "RandomAccess" in k}


def hpcc_cut_short(summaries, global_log2):
    """Runs (from 1) where hpcc's time bound cut MPIRandomAccess below 4N updates,
    so its rate covers fewer updates."""
    return [i + 1 for i, s in enumerate(summaries)
            if s["MPIRandomAccess_ExeUpdates"] < 4 * 2**global_log2]


def ra_record(path, variant, algorithm=None):
    """The one ra record of `variant` (and `algorithm`, when given) in a results.jsonl."""
    records = [r for r in map(json.loads, Path(path).read_text().splitlines())
               if r.get("benchmark") == "ra" and r.get("variant") == variant
               and algorithm in (None, r.get("algorithm"))]
    if len(records) != 1:
        sys.exit(f"{path}: expected one ra {variant} record, found {len(records)}")
    return records[0]


def metric_samples(record, name):
    """The samples of a record's metric, [] when it has none of that name."""
    return next((m["samples"] for m in record.get("metrics", []) if m["name"] == name), [])


def gups(record, metric=None):
    """The headline rate, or the median of a metric's samples, in GUPS."""
    if metric is None:
        return record["value"]["value"] / 1e9
    return statistics.median(metric_samples(record, metric)) / 1e9


def mpi_share(record):
    """The hypercube's time inside its exchange's MPI calls (counter exchange_ns, of the
    last repetition) as a fraction of that repetition's time: the median over ranks.
    None for a record without it."""
    per_rank = record.get("counters", {}).get("exchange_ns")
    times = metric_samples(record, "time")
    if not per_rank or not times or times[-1] <= 0:
        return None
    return statistics.median(ns / 1e9 / times[-1] for ns in per_rank)


def message_time_s(path):
    """The median time of one message in a `comm pingpong` results.jsonl of one size;
    exits unless its data checked out."""
    records = [r for r in map(json.loads, Path(path).read_text().splitlines())
               if r.get("benchmark") == "comm" and r.get("variant") == "pingpong"]
    if len(records) != 1 or records[0].get("validation", {}).get("verdict") != "passed":
        sys.exit(f"{path}: expected one verified comm pingpong record")
    return records[0]["value"]["value"]


def target_text(target):
    """(low, high) bounds on a ratio, high None for no upper bound; None: no target."""
    if target is None:
        return "(info)"
    low, high = target
    return f">= {low:.2f}" if high is None else f"{low:.2f}-{high:.2f}"


def target_met(target, ratio):
    if target is None:
        return None
    low, high = target
    return ratio >= low and (high is None or ratio <= high)


def met_text(met):
    return {True: "yes", False: "no"}.get(met, "-")


def write_json(path, data):
    """Write the bench's numbers; OUT may name a folder that does not exist yet."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=2) + "\n")
