"""The node-pair checks: the `pairs` kernel on one rank per node (docs/kernels/comm.md
`pairs`), its rounds of disjoint pairs sampled to the time the plan gives it, and each
node pair's figure from the record's `bandwidth` matrix.

pair-bandwidth: 1 MiB messages; a node pair's figure is the slower of its two directions
(a link bad one way is bad), each direction's best sample (the `bandwidth_max` matrix):
work sharing a node's cores only ever lowers a sample, while a bad link caps every
sample, so the best sample tells the link apart from the noise.

pair-latency: 8 B messages, streamed; the time per message, size / bandwidth, of the
slower direction (lower is better), each direction's median sample (`bandwidth`) of
0.2 s samples. It is the pipelined time of one small message, not a ping-pong's half
round trip: the pairs kernel times streams. Why median and 0.2 s: on 4 emulated hosts
sharing 2 cores (4 spinning ranks), identical links read 2.6 to 46 µs per message as
the best of 0.05 s samples, 4-34× apart across the pairs; the median of 0.2 s samples
read 36-59 µs (1.1-1.35× of the pairs' median in 4 runs)."""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.screen.verdicts import PairFigure
from hpcprobe.screen.checks import rank_host_names, validated


@dataclass(frozen=True)
class PairCheck:
    name: str
    size: int              # --size, bytes
    sample_time_s: float   # --sample-time
    repeat: int            # --repeat
    unit: str
    higher_is_better: bool
    share: float           # its share of the time the battery leaves
    matrix: str            # the record's matrix read: the pairs' best or median sample

    def options(self, matrix_time_s: float) -> Tuple[str, ...]:
        """The bench options, named as the bench describes them (asks the bench once)."""
        return bench_step_options("pairs", "bandwidth", {
            "size": str(self.size), "sample_time": f"{self.sample_time_s:g}",
            "repeat": str(self.repeat), "matrix_time": f"{matrix_time_s:.3f}"})

    @property
    def round_s(self) -> float:
        """A round's time at these options (docs/kernels/comm.md: about 2 × (repeat + ½)
        × sample time, whatever the number of pairs in it: they run at once)."""
        return 2 * (self.repeat + 0.5) * self.sample_time_s


PAIRS: Tuple[PairCheck, ...] = (
    PairCheck("pair-bandwidth", 1 << 20, 0.02, 3, "B/s", True, 1 / 2, "bandwidth_max"),
    PairCheck("pair-latency", 8, 0.2, 3, "s", False, 1 / 2, "bandwidth"),
)


def pair_check(name: str) -> Optional[PairCheck]:
    return next((check for check in PAIRS if check.name == name), None)


def _matrix(record: Mapping, name: str) -> Optional[list]:
    for matrix in record.get("matrices") or []:
        if isinstance(matrix, dict) and matrix.get("name") == name:
            values = matrix.get("values")
            return values if isinstance(values, list) else None
    return None


def _cell(rows: list, i: int, j: int) -> Optional[float]:
    try:
        value = rows[i][j]
    except (IndexError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _host_pair_bandwidths(record: Mapping, matrix: str) -> Dict[Tuple[str, str], float]:
    """Per unordered host pair (names sorted), the slowest direction of its rank pairs."""
    rows = _matrix(record, matrix) or []
    hosts = rank_host_names(record)
    found: Dict[Tuple[str, str], float] = {}
    for i, a in enumerate(hosts):
        for j, b in enumerate(hosts):
            value = _cell(rows, i, j)
            if a is None or b is None or a == b or value is None:
                continue
            key = (min(a, b), max(a, b))
            found[key] = min(found.get(key, value), value)
    return found


def pair_figures(check: PairCheck, record: Mapping) -> List[PairFigure]:
    """Each measured node pair's figure (pairs not measured are left out: the sample)."""
    good = validated(record)
    size = record.get("parameters", {}).get("message_bytes", check.size) \
        if isinstance(record.get("parameters"), dict) else check.size
    figures = []
    for (a, b), bandwidth in sorted(_host_pair_bandwidths(record, check.matrix).items()):
        value = bandwidth if check.higher_is_better else float(size) / bandwidth
        figures.append(PairFigure(a, b, check.name, value, check.unit,
                                  check.higher_is_better, good))
    return figures
