"""Paper 002's memory figures as studies (docs/studies/hpcmp.md): Figure 2's R+W time per
access against stride, one copy and every copy at once, beside Levesque's model; Figure 4's
block-size sweep at -O3 and -O0; Figure 6's single/dual (and dual/quad) ratios of STREAM,
latency and R+W time, beside the model's assumptions."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.cli_described import bench_step_options
from hpcprobe.records import number, parameter
from hpcprobe.study import levesque, papers
from hpcprobe.study.efficiency import pearson
from hpcprobe.study.declare import Measured, Point, Study, StudyContext
from hpcprobe.suite.step import SuiteStep

STEP_BUDGET_S = 120.0
_TINY = {"min_time": "0.001", "repeat": "2"}
# Figure 2's strides (2^3 .. 2^22 B: within half of the bench's default buffer, 4x the
# caches, on any machine with 2 MiB of last-level cache or more); tiny: two, 256 KiB buffer.
_STRIDES = {"default": tuple(2 ** k for k in range(3, 23)), "tiny": (256, 4096)}
# Figure 4's block sizes (1 KiB .. 16 MiB); tiny: two.
_BLOCKS = {"default": tuple(2 ** k for k in range(10, 25)), "tiny": (4096, 65536)}
NS = 1e9
GB = 1e9


def _step(benchmark: str, variant: str, values: Mapping[str, str], ranks: int,
          context: StudyContext, label: Optional[str] = None) -> SuiteStep:
    # The mem and stream kernels refuse more copies than cores unless told.
    flags = ("oversubscribe",) if ranks > max(1, context.cores) and not context.cluster \
        else ()
    return SuiteStep(benchmark, variant, bench_step_options(benchmark, variant, values, flags),
                     STEP_BUDGET_S, label=label, ranks=ranks)


def _copies(context: StudyContext) -> int:
    """Figure 2's two copies (dual core), or the first of --np."""
    return context.np[0] if context.np else 2


def _stream(ranks: int, context: StudyContext) -> SuiteStep:
    sizes = {"array_bytes": "1M", "repeat": "2"} if context.scale == "tiny" else {}
    return _step("stream", "star", {"copies": "all", **sizes}, ranks, context)


def _fig2_points(context: StudyContext) -> List[Point]:
    copies, tiny = _copies(context), context.scale == "tiny"
    sizes = {"buffer_bytes": "256K", **_TINY} if tiny else {}
    points = []
    for index, stride in enumerate(_STRIDES[context.scale]):
        values = {"sweep": "stride", "copies": "all", "min_stride": str(stride),
                  "max_stride": str(stride), **sizes}
        steps: Tuple[SuiteStep, ...] = (_step("mem", "stride", values, copies, context),)
        if index == 0:  # the bandwidth ratio the model needs, once
            steps += (_stream(copies, context),)
        points.append(Point(stride, steps, key=f"stride-{stride}"))
    return points


def _records(measured: Sequence[Measured]) -> List[Any]:
    return [record for point in measured for record in point.records]


def _fig2_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    single, star = levesque.stream_bandwidths(
        levesque.pick(_records(measured), "stream", "star"))
    bw_ratio = levesque.ratio(single, star)
    rows = []
    for point in measured:
        stride = float(point.point.value)
        record = levesque.pick(point.records, "mem", "stride", sweep="stride")
        one = levesque.value_exactly(record, "time_per_access_one", stride)
        many = levesque.value_exactly(record, "time_per_access_many", stride)
        model = levesque.levesque_stride_ratio(
            stride, number(parameter(record, "buffer_bytes")),
            number(parameter(record, "cache_l2_bytes")), bw_ratio) if record else None
        rows.append({"stride_bytes": point.point.value,
                     "time_one": one * NS if one is not None else None,
                     "time_many": many * NS if many is not None else None,
                     "ratio": levesque.ratio(many, one), "ratio_levesque": model})
    return rows


def _fig4_points(context: StudyContext) -> List[Point]:
    sizes = _TINY if context.scale == "tiny" else {}
    points = []
    for block in _BLOCKS[context.scale]:
        steps = tuple(
            _step("mem", "stride", {"sweep": "block", "copies": "one", "min_bytes": str(block),
                                    "max_bytes": str(block), "build_variant": build,
                                    **sizes}, 1, context, label=f"block {build}")
            for build in ("O3", "O0"))
        points.append(Point(block, steps, key=f"block-{block}"))
    return points


def _fig4_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    rows = []
    for point in measured:
        block = float(point.point.value)
        times = {build: levesque.value_exactly(
            levesque.pick(point.records, "mem", "stride", sweep="block", build_variant=build),
            "time_per_access_one", block) for build in ("O3", "O0")}
        rows.append({"block_bytes": point.point.value, "time_o3": times["O3"],
                     "time_o0": times["O0"],
                     "o0_over_o3": levesque.ratio(times["O0"], times["O3"])})
    return rows


def _fig6_copies(context: StudyContext) -> Tuple[int, ...]:
    # Tiny: dual against single only (two ranks at most).
    return context.np or ((2,) if context.scale == "tiny" else (2, 4, 8))


def _fig6_points(context: StudyContext) -> List[Point]:
    tiny = context.scale == "tiny"
    latency = {"max_bytes": "1M", **_TINY} if tiny else {"points_per_octave": "1",
                                                         "repeat": "3"}
    stride = {"buffer_bytes": "256K", "max_stride": "64K", **_TINY} if tiny else {
        "max_stride": "64K", "repeat": "3"}
    return [Point(copies, (_stream(copies, context),
                           _step("mem", "latency", {"copies": "all", **latency}, copies,
                                 context),
                           _step("mem", "stride", {"sweep": "stride", "copies": "all",
                                                   **stride}, copies, context)),
                  key=f"copies-{copies}")
            for copies in _fig6_copies(context)]


def _fig6_values(point: Measured) -> Dict[str, Any]:
    """One copy count's figures, one copy alone ("one") and every copy at once ("many")."""
    records = point.records
    single, star = levesque.stream_bandwidths(levesque.pick(records, "stream", "star"))
    latency = levesque.pick(records, "mem", "latency")
    stride = levesque.pick(records, "mem", "stride", sweep="stride")
    return {
        "bw": {"one": single, "many": star},
        "lat": {phase: levesque.latency_levels(latency, phase) for phase in ("one", "many")},
        "rw": {phase: levesque.geometric_mean(levesque.stride_times(stride, phase))
               for phase in ("one", "many")},
    }


def _fig6_rows(measured: Sequence[Measured]) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = []
    previous: Optional[Dict[str, Any]] = None
    for point in measured:
        copies, values = int(point.point.value), _fig6_values(point)
        # The first row against one copy alone (its own records' one-copy phase), each
        # later row against the copy count before it (that row's every-copy phase).
        base_copies = rows[-1]["copies"] if rows else 1
        base = {"bw": previous["bw"]["many"], "rw": previous["rw"]["many"],
                "lat": previous["lat"]["many"]} if previous else {
            "bw": values["bw"]["one"], "rw": values["rw"]["one"], "lat": values["lat"]["one"]}
        many = values["lat"]["many"]
        star = values["bw"]["many"]
        rows.append({
            # what the row is compared with, once it has a record to compare
            "copies": copies, "base": base_copies if point.records else None,
            "bw_per_copy": star / GB if star is not None else None,
            "bw_ratio": levesque.ratio(base["bw"], star),
            "bw_ratio_levesque": levesque.model_bandwidth_ratio(copies, base_copies),
            "lat_l1_ratio": levesque.ratio(many["l1"], base["lat"]["l1"]),
            "lat_l2_ratio": levesque.ratio(many["l2"], base["lat"]["l2"]),
            "lat_mem_ratio": levesque.ratio(many["mem"], base["lat"]["mem"]),
            "lat_ratio_levesque": 1.0,
            "rw_ratio": levesque.ratio(values["rw"]["many"], base["rw"]),
        })
        previous = values
    return rows


def _fig6_notes(measured: Sequence[Measured]) -> List[Tuple[str, str, str]]:
    """Levesque's model for each NAS kernel of Figure 5 on this machine: the bandwidth
    fraction its dual-core slowdown implies where bandwidth halves, set to the measured
    dual/single bandwidth ratio; and whether R+W tracks bandwidth (Pearson's r)."""
    rows = _fig6_rows(measured)
    dual = next((row for row in rows if row["copies"] == 2 and row["base"] == 1), None)
    bw_ratio = dual["bw_ratio"] if dual else None
    notes = []
    for code, slowdown in _nas_slowdowns():
        fraction = levesque.implied_bandwidth_fraction(slowdown, 2.0)
        here = levesque.predicted_slowdown(fraction, bw_ratio)
        measured_text = (f"{here * 100:.0f}% predicted here (bandwidth fraction {fraction:.2f}, "
                         f"STREAM dual/single {bw_ratio:.2f})"
                         if here is not None and fraction is not None and bw_ratio else
                         "needs the 2-copy row's STREAM ratio")
        notes.append((f"{code}: dual-core time, Levesque's model", measured_text,
                      f"{slowdown * 100:.0f}% (Levesque, Figure 5)"))
    r = pearson([row["bw_ratio"] for row in rows], [row["rw_ratio"] for row in rows])
    notes.append(("R+W ratio against STREAM ratio, Pearson's r",
                  f"{r:.2f} over {len(rows)} rows" if r is not None else
                  "needs 3 rows or more (--np 2,4,8)",
                  "'all elements are strongly correlated with main memory bandwidth'"))
    return notes


def _nas_slowdowns() -> List[Tuple[str, float]]:
    """Figure 5's Levesque column (time increase for dual core, %) from the data file."""
    item = papers.item_of("002", "fig5")
    found = []
    for published in item.published:
        for row in published.rows:
            value = number(row.get("levesque"))
            if isinstance(row.get("code"), str) and value is not None:
                found.append((row["code"], value / 100))
    return found


HPCMP_FIG2 = Study("hpcmp-fig2", "002", "fig2", _fig2_points, _fig2_rows, budget_s=240,
                   summary="R+W time per access against stride, one copy and two at once, "
                           "beside Levesque's model")
HPCMP_FIG4 = Study("hpcmp-fig4", "002", "fig4", _fig4_points, _fig4_rows, budget_s=180,
                   summary="access time against block size, -O3 and -O0 builds, one copy")
HPCMP_FIG6 = Study("hpcmp-fig6", "002", "fig6", _fig6_points, _fig6_rows, budget_s=300,
                   notes=_fig6_notes,
                   summary="dual/single and quad/dual ratios of STREAM, latency and R+W time "
                           "beside Levesque's model; its NAS predictions")
STUDIES = (HPCMP_FIG2, HPCMP_FIG4, HPCMP_FIG6)
