"""Paper 004's studies (Bhatele & Kale, network contention on torus machines; data file
study/papers/004.json, docs/studies/bhatele.md): WOCON against message size (Figures
3-6), WICON near-neighbour against random pairs (Figure 9), stressing a link (Figure 11),
equidistant pairs (Figure 13), Table 1, and WOCON and WICON against P beside §1's
P^(4/3)-against-P argument.

On one machine each rank is an emulated node (--ranks-per-node 1) of the network the
paper's figure used (a partial allocation fills its first positions, along Z), so the
records carry the hops the paper's machine would give; on a cluster (--cluster) the
hosts are the nodes, as MPI finds them."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.families.contention import bhatele_rows as rows
from hpcprobe.families.contention.bhatele_model import (PAPER_CROSSING_EXPONENT,
                                                        PAPER_LINK_EXPONENT, fitted_exponent,
                                                        simulated_load, sweep, torus_dims)
from hpcprobe.records import number, parameter
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.suite.step import SuiteStep

# Message sizes of the size-axis studies (the paper's plots run from a few bytes to 1 MB);
# tiny keeps the first two.
SIZES = (16, 64, 256, 1024, 4096, 16384, 65536)
LARGE_SIZES = (1024, 16384, 65536, 262144)      # contention matters for large messages
TABLE_1_SIZES = (32, 1024, 16384)               # Table 1: BG/P's short, eager, rendezvous
SCALING_SIZE = {"tiny": 1024, "default": 16384}
DEFAULT_RANKS = 4
STEP_BUDGET_S = 30.0


Options = Dict[str, str]  # bench options by attribute (the bench's description names them)


def _run_options(context: StudyContext) -> Options:
    """Messages and repetitions: few at tiny (seconds), a median of 3 at default."""
    if context.scale == "tiny":
        return {"messages": "5", "repeat": "2", "warmup": "1"}
    return {"messages": "20", "repeat": "3", "warmup": "1"}


def _ranks(context: StudyContext, default: int = DEFAULT_RANKS) -> int:
    """The ranks of a size-axis study: the largest of --np, 2 at tiny, or `default`;
    with --nodes or on a cluster, the largest node count (4 on a cluster without --nodes)
    with --ppn ranks each."""
    if context.np:
        return max(context.np)
    if context.nodes or context.cluster:
        return max(context.node_counts((4,))) * context.ppn
    return 2 if context.scale == "tiny" else default


def _network(context: StudyContext, local: Options) -> Options:
    """`local` (the emulated network, each rank a node) on one machine; nothing on a
    cluster, whose hosts are the nodes (a tree cluster is modelled from its record)."""
    return {} if context.cluster else {**local, "ranks_per_node": "1"}


def _sizes(context: StudyContext, sizes: Sequence[int]) -> Tuple[int, ...]:
    return tuple(sizes[:2]) if context.scale == "tiny" else tuple(sizes)


def _step(variant: str, context: StudyContext, size: int, ranks: int,
          network: Options, extra: Optional[Options] = None, label: str = "") -> SuiteStep:
    values = {"sizes": str(size), **_run_options(context), **network, **(extra or {})}
    options = bench_step_options("contention", variant, values)
    return SuiteStep("contention", variant, options, STEP_BUDGET_S, label=label or None,
                     ranks=ranks)


def _size_points(variant: str, network: Options, sizes: Sequence[int] = SIZES,
                 extra: Optional[Options] = None):
    """Points over message size, one launch of `variant` each on `network`."""
    def points(context: StudyContext) -> List[Point]:
        ranks = _ranks(context)
        net = _network(context, network)
        return [Point(size, (_step(variant, context, size, ranks, net, extra),),
                      key=f"{size}B") for size in _sizes(context, sizes)]
    return points


def _ring_points(variant: str, sizes: Sequence[int] = LARGE_SIZES):
    """Points over message size on a ring of the ranks (the paper's Z): stress-link and
    equidistant pairs; on a cluster, a ring of its hosts."""
    def points(context: StudyContext) -> List[Point]:
        ranks = _ranks(context, 8)
        nodes = ranks // context.ppn if context.cluster else ranks
        net = ({"torus": str(nodes)} if context.cluster
               else {"torus": str(ranks), "ranks_per_node": "1"})
        return [Point(size, (_step(variant, context, size, ranks, net),), key=f"{size}B")
                for size in _sizes(context, sizes)]
    return points


def _one_record_rows(variant: str, make_row):
    """Rows of a study whose points each launch one `variant`."""
    def rows_of(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
        return [make_row(rows.first(m.records, variant), m.point.value) for m in measured]
    return rows_of


def _wicon_points(context: StudyContext) -> List[Point]:
    ranks = _ranks(context)
    net = _network(context, {"torus": "8x8x16"})
    return [Point(size, (_step("wicon", context, size, ranks, net, {"pairs": "nn"}, label="nn"),
                         _step("wicon", context, size, ranks, net, {"pairs": "rnd"},
                               label="rnd")), key=f"{size}B")
            for size in _sizes(context, LARGE_SIZES)]


def _wicon_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    return [rows.wicon_row(rows.first(m.records, "wicon", "nn"),
                           rows.first(m.records, "wicon", "rnd"), m.point.value)
            for m in measured]


def _table1_points(context: StudyContext) -> List[Point]:
    ranks = _ranks(context)
    net = _network(context, {"torus": "8x8x16"})
    return [Point(size, (_step("wocon", context, size, ranks, net),
                         _step("wicon", context, size, ranks, net, {"pairs": "nn"}, label="nn"),
                         _step("wicon", context, size, ranks, net, {"pairs": "rnd"},
                               label="rnd")), key=f"{size}B")
            for size in _sizes(context, TABLE_1_SIZES)]


def _table1_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    return [rows.table1_row(m.records, m.point.value) for m in measured]


def _scaling_counts(context: StudyContext) -> Tuple[int, ...]:
    if context.np or context.nodes:
        return context.rank_counts(())
    if context.cluster:
        return tuple(nodes * context.ppn for nodes in context.node_counts((2, 4)))
    return (2,) if context.scale == "tiny" else (2, 4, 8)


def _scaling_points(context: StudyContext) -> List[Point]:
    """WOCON, WICON NN and RND at one size on P ranks, each rank a node of a 3-D torus
    of P positions (as MPI_Dims_create would shape it)."""
    size = SCALING_SIZE[context.scale]
    points = []
    for procs in _scaling_counts(context):
        dims = "x".join(map(str, torus_dims(procs)))
        net = _network(context, {"torus": dims})
        points.append(Point(procs, (
            _step("wocon", context, size, procs, net),
            _step("wicon", context, size, procs, net, {"pairs": "nn"}, label="nn"),
            _step("wicon", context, size, procs, net, {"pairs": "rnd"}, label="rnd")),
            key=f"P{procs}"))
    return points


def _size_of(records: Sequence[Any]) -> Any:
    """The one message size a scaling point's records ran (parameters.max_message_bytes)."""
    for record in rows.usable(records, "wocon") + rows.usable(records, "wicon"):
        size = number(parameter(record, "max_message_bytes"))
        if size is not None:
            return size
    return None


def _scaling_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    found = []
    for m in measured:
        size = _size_of(m.records)
        nn, rnd = rows.first(m.records, "wicon", "nn"), rows.first(m.records, "wicon", "rnd")
        nn_t = rows.wicon_time(nn, size) if size else None
        rnd_t = rows.wicon_time(rnd, size) if size else None
        wocon = rows.at(rows.first(m.records, "wocon"), "message_time_mean", size) \
            if size else None
        model = simulated_load(torus_dims(int(m.point.value)))
        found.append({"procs": m.point.value, "wocon_us": rows.us(wocon),
                      "wicon_nn_us": rows.us(nn_t), "wicon_rnd_us": rows.us(rnd_t),
                      "rnd_over_nn": rows.ratio(rnd_t, nn_t), "links": model["links"],
                      "crossings": model["crossings"], "load": model["load"]})
    return found


def _scaling_notes(measured: Sequence[Measured]) -> List[Tuple[str, str, str]]:
    """§1's argument over k x k x k tori (64 to 32,768 nodes), by the simulator."""
    swept = sweep()
    procs = [row["procs"] for row in swept]
    links = fitted_exponent(procs, [row["links"] for row in swept])
    crossings = fitted_exponent(procs, [row["crossings"] for row in swept])
    example = simulated_load((8, 8, 8), 4)
    span = f"{procs[0]}-{procs[-1]} nodes"
    return [(f"links against P, k^3 tori of {span}", f"P^{links:.2f}",
             f"P^{PAPER_LINK_EXPONENT:.0f}"),
            (f"random pairs' link crossings against P, {span}", f"P^{crossings:.2f}",
             f"P^{PAPER_CROSSING_EXPONENT:.2f} (4/3)"),
            ("crossings per link, 8x8x8 torus, 4 ranks per node",
             f"{example['load']:.2f} (busiest link {example['max_load']})", "4 (p. 3)")]


def _wocon_study(item: str, network: Options, summary: str) -> Study:
    return Study(f"bhatele-{item}", "004", item, _size_points("wocon", network),
                 _one_record_rows("wocon", rows.wocon_row), budget_s=120,
                 interconnect=True, summary=summary)


STUDIES = (
    _wocon_study("fig3", {"torus": "8x4x4"},
                 "WOCON latency against message size and hops, 8x4x4 torus (BG/P)"),
    _wocon_study("fig4", {"torus": "8x8x16"},
                 "WOCON latency against message size and hops, 8x8x16 torus (BG/P)"),
    _wocon_study("fig5", {"mesh": "8x8x8"},
                 "WOCON latency against message size and hops, 8x8x8 mesh (XT3, 512 nodes)"),
    _wocon_study("fig6", {"mesh": "8x8x16", "wrap": "0,0,1"},
                 "WOCON latency against message size and hops, 8x8x16 torus in Z (XT3)"),
    Study("bhatele-fig9", "004", "fig9", _wicon_points, _wicon_rows, budget_s=180,
          interconnect=True, summary="WICON near-neighbour against random pairs, simulated"),
    Study("bhatele-fig11", "004", "fig11", _ring_points("stress-link"),
          _one_record_rows("stress-link", rows.stress_row), budget_s=180, interconnect=True,
          summary="stressing a link: the middle pair alone and with all pairs, simulated"),
    Study("bhatele-fig13", "004", "fig13", _ring_points("equidistant"),
          _one_record_rows("equidistant", rows.equidistant_row), budget_s=180,
          interconnect=True, summary="equidistant pairs: farthest over 1 hop, simulated"),
    Study("bhatele-table1", "004", "table1", _table1_points, _table1_rows, budget_s=120,
          interconnect=True, summary="WOCON and WICON, NN and RND, at 32 B, 1 KB, 16 KB"),
    Study("bhatele-fig9p", "004", "fig9p", _scaling_points, _scaling_rows, budget_s=180,
          notes=_scaling_notes, interconnect=True,
          summary="WOCON and WICON against P; links ∝ P against crossings ∝ P^(4/3)"),
)
