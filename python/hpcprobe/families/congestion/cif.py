"""The Congestion Impact Factor of a congestion record, from its raw samples
(docs/kernels/congestion.md).

For each canary and congestor: the isolated and congested samples' mean, median, p99
and p99.9, and the CIF of the mean and of the p99 -- congested / isolated for times
(latency, allreduce), isolated / congested for bandwidth, so that a CIF above 1 is always
"slower under load". Nothing is rounded before the division (GPCNeT divides values it
has already rounded to one decimal, which quantises sub-microsecond latencies).

Each CIF comes with a 95 % confidence interval: a percentile bootstrap over the samples
(both sets resampled, seeded, so the interval is the same on every reading).

Records are untrusted input: samples are read through `numbers`, names are checked
against the record's own parameters, and a CIF is None where it cannot be computed.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from hpcprobe.report.common import parameter, section_of
from hpcprobe.samples import find_metric
from hpcprobe.records import numbers

Record = Dict[str, Any]

CANARIES = ("latency", "bandwidth", "allreduce")
CONGESTORS = ("incast", "put-incast", "get-bcast", "alltoall")
RATE_CANARIES = ("bandwidth",)
BOOTSTRAP_ROUNDS = 300
BOOTSTRAP_MAX_SAMPLES = 4000  # per set; larger sets are thinned evenly first
BOOTSTRAP_SEED = 20191117      # fixed: the same record always gives the same interval
CI_LEVEL = 0.95


@dataclass(frozen=True)
class Summary:
    """One set of samples: count, mean, median, p99, p99.9 (SI units)."""

    count: int
    mean: Optional[float]
    median: Optional[float]
    p99: Optional[float]
    p999: Optional[float]


@dataclass(frozen=True)
class CifRow:
    """One canary beside one congestor."""

    canary: str
    congestor: str
    unit: str
    isolated: Summary
    congested: Summary
    cif_mean: Optional[float]
    cif_mean_ci: Optional[Tuple[float, float]]
    cif_p99: Optional[float]
    cif_p99_ci: Optional[Tuple[float, float]]


def metric_name(canary: str, condition: str) -> str:
    """"latency", "put-incast" -> "latency_put_incast" (as hpcprobe-bench names them)."""
    return f"{canary}_{condition.replace('-', '_')}"


def summary(values: np.ndarray) -> Summary:
    if values.size == 0:
        return Summary(0, None, None, None, None)
    p50, p99, p999 = np.percentile(values, [50, 99, 99.9])
    return Summary(int(values.size), float(values.mean()), float(p50), float(p99), float(p999))


def cif(isolated: Optional[float], congested: Optional[float], rate: bool) -> Optional[float]:
    """congested / isolated (times) or isolated / congested (rates); None if undefined."""
    if not isolated or not congested or isolated <= 0 or congested <= 0:
        return None
    return isolated / congested if rate else congested / isolated


def _thin(values: np.ndarray) -> np.ndarray:
    if values.size <= BOOTSTRAP_MAX_SAMPLES:
        return values
    return values[np.linspace(0, values.size - 1, BOOTSTRAP_MAX_SAMPLES).astype(np.int64)]


def bootstrap_ci(isolated: np.ndarray, congested: np.ndarray, rate: bool,
                 statistic: str) -> Optional[Tuple[float, float]]:
    """The percentile-bootstrap 95 % interval of the CIF of `statistic` (mean or p99)."""
    if isolated.size < 2 or congested.size < 2:
        return None
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    a, c = _thin(isolated), _thin(congested)
    ia = rng.integers(0, a.size, size=(BOOTSTRAP_ROUNDS, a.size))
    ic = rng.integers(0, c.size, size=(BOOTSTRAP_ROUNDS, c.size))
    if statistic == "mean":
        sa, sc = a[ia].mean(axis=1), c[ic].mean(axis=1)
    else:
        sa, sc = np.percentile(a[ia], 99, axis=1), np.percentile(c[ic], 99, axis=1)
    good = (sa > 0) & (sc > 0)
    if not good.any():
        return None
    ratios = sa[good] / sc[good] if rate else sc[good] / sa[good]
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def samples(record: Record, canary: str, condition: str) -> np.ndarray:
    metric = find_metric(record, metric_name(canary, condition))
    values = numbers(metric.get("samples")) if isinstance(metric, dict) else []
    return np.array([v for v in values if v > 0], dtype=float)


def _listed(record: Record, key: str, allowed: Sequence[str]) -> List[str]:
    text = parameter(record, key)
    if not isinstance(text, str):
        return []
    return [word for word in text.split(",") if word in allowed]


def canaries_of(record: Record) -> List[str]:
    return _listed(record, "canaries", CANARIES)


def conditions_of(record: Record) -> List[str]:
    """The congested conditions of a record: its congestors, or "none" for the baseline;
    "gpcnet" for a `--mode gpcnet` record (its four congestor groups at once)."""
    if parameter(record, "mode") == "gpcnet":
        return ["gpcnet"]
    return _listed(record, "congestors", CONGESTORS + ("none",))


def cif_row(record: Record, canary: str, congestor: str) -> CifRow:
    rate = canary in RATE_CANARIES
    alone, loaded = samples(record, canary, "isolated"), samples(record, canary, congestor)
    a, c = summary(alone), summary(loaded)
    return CifRow(canary, congestor, "B/s" if rate else "s", a, c,
                  cif(a.mean, c.mean, rate), bootstrap_ci(alone, loaded, rate, "mean"),
                  cif(a.p99, c.p99, rate), bootstrap_ci(alone, loaded, rate, "p99"))


def cif_rows(record: Record) -> List[CifRow]:
    """Every canary beside every congested condition the record ran."""
    return [cif_row(record, canary, congestor) for canary in canaries_of(record)
            for congestor in conditions_of(record)]


def congestor_bytes(record: Record) -> Dict[str, Tuple[float, List[float]]]:
    """Per congestor: the bytes it moved in all, and per node (counters)."""
    counters = section_of(record, "counters")
    found = {}
    for congestor in _listed(record, "congestors", CONGESTORS):
        per_node = numbers(counters.get(f"congestor_bytes_{congestor.replace('-', '_')}"))
        found[congestor] = (float(sum(per_node)), per_node)
    return found
