"""The plan's cost model: each step's predicted time from its sizes (the sizing layer's,
node_sizes.py, or the step's own) and a few rates: bytes over a bandwidth, flops over a
flop rate, updates over an update rate, a time-boxed step's own time, plus the start of
the launch. The rates are figures measured by this run so far or by the earlier run of
the same machine and suite (the headline's figures), else conservative defaults: those of
a slow core of today, so that a plan errs long (docs/main-job.md#the-plan)."""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Sequence, Tuple

from hpcprobe import describe
from hpcprobe.cli_grammars import expand_sizes, parse_size
from hpcprobe.suite.node_sizes import NodeSizes, given_value, option_value
from hpcprobe.suite.step import SuiteStep

# Conservative defaults, per rank unless said: (value, unit).
DEFAULT_RATES: Dict[str, float] = {
    "stream.single": 8e9,        # B/s, one core alone
    "stream.star": 4e9,          # B/s per rank, every core at once
    "dgemm": 10e9,               # flop/s per rank
    "hpl_efficiency": 0.8,       # HPL's rate over the ranks' DGEMM rate (main_job.py)
    "fft": 2e9,                  # flop/s per rank
    "ra.single": 3e7,            # updates/s, one core
    "ra.star": 2e7,              # updates/s per rank
    "ra.mpi": 5e6,               # updates/s per rank (across nodes: a few million)
    "ra.verify_over_run": 2.0,   # RandomAccess: the replay that verifies, over the run
    "ra.mpi.verify_over_run": 4.0,  # ... and over the ranks, in exchange rounds
    "touch": 1e9,                # B/s per rank: first touch of what a rank allocates
    "launch": 1.0,               # s to start a launch's ranks and the bench
    "launch_per_rank": 0.01,     # s more per rank
}
# comm's variant that runs every function in turn, and the one that moves no data.
COMM_ALL, COMM_NO_DATA = "all", "barrier"
# The headline figures each rate is read from, and how: (figure key, per rank?).
_FIGURES: Dict[str, Tuple[str, bool]] = {
    "stream.single": ("stream.single.triad", False),
    "stream.star": ("stream.star.triad", True),
    "dgemm": ("dgemm.star", False),
    "fft": ("fft.star", False),
    "ra.single": ("ra.single", False),
    "ra.star": ("ra.star", True),
    "ra.mpi": ("ra.mpi", True),
}
# FFTW_MEASURE times a few dozen candidate plans before the timed transforms.
FFT_PLANNING_TRANSFORMS = 30
# A latency sample is calibrated (doubled until it lasts --min-time) and warmed up first.
LATENCY_SAMPLE_OVERHEAD = 3
# The chase's cycle is built with a random store per 64-byte line.
LATENCY_BUILD_S_PER_LINE = 30e-9


@dataclass
class Rates:
    """The rates a prediction uses, and where each came from."""

    values: Dict[str, float] = field(default_factory=lambda: dict(DEFAULT_RATES))
    sources: Dict[str, str] = field(default_factory=dict)
    # Per suite step: the earlier run's (measured - launch) / predicted work.
    calibration: Dict[str, float] = field(default_factory=dict)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    def learn(self, figures: Sequence, ranks_of: Callable[[str], int], source: str) -> None:
        """Take every rate a headline figure of `figures` gives (a figure's value per
        rank where the rate is per rank: `ranks_of(key)` ranks measured it)."""
        by_key = {figure.key: figure for figure in figures}

        def value_of(key: str) -> Optional[float]:
            value = getattr(by_key.get(key), "value", None)
            ok = isinstance(value, float) and math.isfinite(value) and value > 0
            return value if ok else None

        for rate, (key, per_rank) in _FIGURES.items():
            value = value_of(key)
            if value is not None:
                self.values[rate] = value / (ranks_of(key) if per_rank else 1)
                self.sources[rate] = source
        hpl, dgemm = value_of("hpl"), value_of("dgemm.star")
        if hpl is not None and dgemm is not None:  # HPL over the ranks' DGEMM rate
            self.values["hpl_efficiency"] = hpl / (dgemm * ranks_of("hpl"))
            self.sources["hpl_efficiency"] = source


@dataclass(frozen=True)
class Prediction:
    """A step's predicted seconds: starting it, and its work at a rate."""

    launch_s: float
    work_s: float
    basis: str          # the work and the rate, in words
    calibration: float = 1.0  # the earlier run's measured time over its model time
    model_s: float = 0.0      # the work at the default rates: what calibration scales

    @property
    def seconds(self) -> float:
        return self.launch_s + self.work_s * self.calibration


def option_text(step: SuiteStep, dest: str, default: bool = False) -> Optional[str]:
    """The value the step gives a bench option (by its attribute, named as the bench
    describes it), else None, or with `default` the bench's default; None for a family
    without the option."""
    try:
        option = describe.family(step.benchmark).option(dest)
    except KeyError:
        return None
    text = option_value(step.bench_options, option.name)
    return option.default if text is None and default else text


def _option_number(step: SuiteStep, dest: str) -> float:
    """A bench option's value in the step, else the bench's default (describe)."""
    text = option_text(step, dest, default=True)
    try:
        return float(text) if text is not None else 0.0
    except ValueError:
        return 0.0


def _size(step: SuiteStep, sizes: NodeSizes) -> float:
    """The step's size: its own option's value, else the sizing layer's default."""
    entry = sizes.entry(step.benchmark, step.variant)
    if entry is None:
        return 0.0
    given = given_value(entry, step.bench_options)
    return float(entry.value) if given is None else given


def _launch_s(ranks: int, rates: Rates) -> float:
    return rates.values["launch"] + rates.values["launch_per_rank"] * ranks


def _touch_s(step: SuiteStep, sizes: NodeSizes, rates: Rates) -> float:
    """Seconds to first-touch what a rank of the step allocates (the ranks in parallel)."""
    entry = sizes.entry(step.benchmark, step.variant)
    if entry is None:
        return 0.0
    return entry.bytes_per_rank(_size(step, sizes)) / rates.values["touch"]


def _stream(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """Each phase: the four kernels move 10 arrays an iteration; the first touch and the
    check another 6. single: one phase on one core; star: then every rank at once."""
    array = _size(step, sizes)
    moved = (10 * (_option_number(step, "repeat") or 10) + 6) * array
    seconds = moved / rates.values["stream.single"]
    basis = f"{moved:.3g} B at {rates.values['stream.single']:.3g} B/s"
    if step.variant != "single":
        seconds += moved / rates.values["stream.star"]
        basis += f", then per rank at {rates.values['stream.star']:.3g} B/s"
    return Prediction(_launch_s(ranks, rates), seconds, basis)


def _latency(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """Per working set, its samples (each at least --min-time, calibrated and warmed up
    first) and building its cycle; one copy alone, then every copy at once."""
    largest = _size(step, sizes)
    smallest = float(parse_size(option_text(step, "min_bytes", default=True) or "1K") or 1024)
    per_octave = _option_number(step, "points_per_octave") or 2
    points = math.log2(max(largest / smallest, 1.0)) * per_octave + 1
    phases = 2 if ranks > 1 else 1
    samples = points * (_option_number(step, "repeat") + LATENCY_SAMPLE_OVERHEAD)
    lines = largest / (1 - 2 ** (-1 / per_octave)) / 64
    seconds = phases * (samples * _option_number(step, "min_time")
                        + lines * LATENCY_BUILD_S_PER_LINE)
    return Prediction(_launch_s(ranks, rates), seconds,
                      f"{points:.0f} working sets to {largest:.3g} B, {phases} phase(s)")


def _dense(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """dgemm: 2 n^3 flop a repetition per rank; hpl: 2/3 N^3 + 2 N^2 over the ranks at
    the DGEMM rate times HPL's efficiency; fft: 5 m log2 m a transform per rank, and
    FFTW's planning."""
    size, repeat = _size(step, sizes), max(1.0, _option_number(step, "repeat"))
    rate = rates.values["dgemm"]
    if step.benchmark == "dgemm":
        flops, basis = repeat * 2 * size ** 3, "per rank at the DGEMM rate"
    elif step.benchmark == "hpl":
        rate *= rates.values["hpl_efficiency"] * ranks
        flops, basis = repeat * (2 / 3 * size ** 3 + 2 * size ** 2), "at the ranks' HPL rate"
    else:
        points = 2.0 ** size
        fftw = option_text(step, "fft") != "internal"
        transforms = repeat + (FFT_PLANNING_TRANSFORMS if fftw else 0)
        flops, rate = transforms * 5 * points * size, rates.values["fft"]
        basis = f"{transforms:g} transforms per rank at the FFT rate"
    return Prediction(_launch_s(ranks, rates), flops / rate,
                      f"{flops:.3g} flop {basis} ({rate:.3g} flop/s)")


def _ra(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """4 updates a word, and as many again to verify, at the variant's update rate (mpi:
    per rank, over the ranks)."""
    words = 2.0 ** _size(step, sizes)
    key = f"ra.{'mpi' if step.variant == 'mpi' else step.variant}"
    rate = rates.values.get(key, rates.values["ra.mpi"]) * (ranks if key == "ra.mpi" else 1)
    updates = 4 * words * max(1.0, _option_number(step, "repeat"))
    verify = rates.values["ra.mpi.verify_over_run" if key == "ra.mpi" else "ra.verify_over_run"]
    return Prediction(_launch_s(ranks, rates), updates / rate * (1 + verify),
                      f"{updates:.3g} updates at {rate:.3g} updates/s, verified in {verify:g}x")


def _comm(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """Each function and size for --time-per-size, after a calibration as long: `all`'s
    --functions (every one without), else the one function the variant names; Barrier
    at its one size, 0 (it moves no data)."""
    functions = option_text(step, "functions")
    if step.variant != COMM_ALL:
        count = 1
    elif functions:
        count = len(functions.split(","))
    else:  # every other variant the bench describes
        count = len(set(describe.family("comm").variants()) - {COMM_ALL})
    sizes_n = 1 if step.variant == COMM_NO_DATA else \
        len(expand_sizes(option_text(step, "sizes", default=True) or "0") or [0])
    seconds = 2 * count * sizes_n * _option_number(step, "time_per_size")
    return Prediction(_launch_s(ranks, rates), seconds,
                      f"{count} functions x {sizes_n} sizes, time-boxed")


def _beff(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """HPCC's b_eff: ping-pong pairs up to its two pair times (fewer on few ranks: every
    pair then takes milliseconds), then the rings."""
    bound = (_option_number(step, "latency_pairs_time")
             + _option_number(step, "bandwidth_pairs_time"))
    pairs = ranks * (ranks - 1)
    seconds = min(bound, 0.05 * pairs) + 0.02 * ranks
    return Prediction(_launch_s(ranks, rates), seconds,
                      f"{pairs} pairs, at most {bound:g} s of them, then the rings")


def _pairs(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """The pair matrix: each round of disjoint pairs, both directions alternating, for
    --repeat samples of --sample-time each and a calibration, up to --matrix-time."""
    rounds = ranks - 1 + ranks % 2 if ranks >= 2 else 0
    per_round = 2 * (_option_number(step, "repeat") + 0.5) * _option_number(step, "sample_time")
    bound = _option_number(step, "matrix_time")
    seconds = min(bound, rounds * per_round) if bound > 0 else rounds * per_round
    return Prediction(_launch_s(ranks, rates), seconds,
                      f"{rounds} rounds of pairs, at most {bound:g} s of them")


# The peak kernels' timed parts (docs/kernels/peak.md): the clock's chain of adds per
# repetition; each flops and bandwidth repetition lasts --min-time, after a calibration
# as long, and bandwidth runs each kernel at each level.
CLOCK_REPETITION_S = 0.05
PEAK_LEVELS, PEAK_KERNELS = 4, 3


def _peak(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    repeat = max(1.0, _option_number(step, "repeat"))
    kernel = step.variant.split("-")[0]
    if kernel == "clock":
        return Prediction(_launch_s(ranks, rates), repeat * CLOCK_REPETITION_S,
                          f"{repeat:g} timed chains of adds")
    levels = option_text(step, "levels", default=True) if kernel == "bandwidth" else None
    kernels = option_text(step, "kernels", default=True) if kernel == "bandwidth" else None
    count = 1 if kernel == "flops" else (
        (len(levels.split(",")) if levels and levels != "all" else PEAK_LEVELS)
        * (len(kernels.split(",")) if kernels and kernels != "all" else PEAK_KERNELS))
    seconds = count * (repeat + 1) * _option_number(step, "min_time")
    return Prediction(_launch_s(ranks, rates), seconds,
                      f"{count} kernel{'s' if count > 1 else ''} x {repeat:g} repetitions of "
                      "--min-time, after a calibration")


# Per benchmark: its model.
_MODELS = {"stream": _stream, "mem": _latency, "dgemm": _dense, "hpl": _dense, "fft": _dense,
           "ra": _ra, "comm": _comm, "beff": _beff, "pairs": _pairs,
           "peak": _peak}
# What a step no model covers is predicted at.
UNMODELLED_S = 5.0


def _model(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    model = _MODELS.get(step.benchmark)
    if model is None:
        found = Prediction(_launch_s(ranks, rates), UNMODELLED_S, "no model: a guess")
    else:
        found = model(step, sizes, ranks, rates)
    return Prediction(found.launch_s, found.work_s + _touch_s(step, sizes, rates), found.basis)


def predict(step: SuiteStep, sizes: NodeSizes, ranks: int, rates: Rates) -> Prediction:
    """The step's predicted time. Where an earlier run of the same suite measured the
    step, its time scaled by the work (the model at the default rates, now over then);
    else the model at the rates measured so far (this run's figures), else the
    defaults."""
    base = _model(step, sizes, ranks, Rates())
    # HPL's N follows the DGEMM rate: its time is the model's at the rates, not the
    # earlier run's time scaled by its work.
    calibration = None if step.benchmark == "hpl" else rates.calibration.get(step.name)
    if calibration is not None:
        return Prediction(_launch_s(ranks, rates), base.work_s, base.basis + "; scaled from "
                          "the earlier run's time", calibration, base.work_s)
    found = _model(step, sizes, ranks, rates)
    return Prediction(found.launch_s, found.work_s, found.basis, 1.0, base.work_s)


def calibrate(rates: Rates, earlier: Sequence, source: str) -> None:
    """From the finished steps of an earlier run of the same suite and ranks (StepOutcome:
    step, elapsed_s, model_s): the launch's start (90 % of its quickest step) and, per
    step, its measured time less that start over its model time."""
    timed = [step for step in earlier if step.elapsed_s and step.model_s]
    if not timed:
        return
    launch = 0.9 * min(step.elapsed_s for step in timed)
    rates.values["launch"], rates.values["launch_per_rank"] = launch, 0.0
    rates.sources["launch"] = rates.sources["launch_per_rank"] = source
    for step in timed:
        work = max(step.elapsed_s - launch, 0.05 * step.elapsed_s)
        rates.calibration[step.step] = min(max(work / step.model_s, 0.01), 100.0)
