"""The command lines of `hpcprobe ra` (its variants, `sweep`, and the studies
`shared-table-study` and `modes`) and `hpcprobe model ra` (docs/cli.md): their parsers,
the checks that refuse an option of another variant with one line, and the
hpcprobe-bench options they become. Values the bench validates (table size,
look-ahead, ...) are passed through as typed; what only hpcprobe uses (a sweep's
look-ahead list, the model's inputs) is checked here, before anything is launched."""

import argparse
import difflib
from typing import Callable, List, Sequence, Tuple

from hpcprobe.cli_types import (CliParser, add_launch_options, choice, int_list, is_count,
                                nonnegative_seconds, positive_int, positive_number,
                                positive_seconds)
from hpcprobe.errors import UsageError
from hpcprobe.launch.kernels import algorithms, variants
from hpcprobe.families.ra.model import MAX_CROSSOVER_PROCS, Topology, parse_topology

# The variants and `ra mpi` algorithms come from `hpcprobe-bench list` (ra_variants(),
# mpi_algorithms()); these are offered when the bench cannot be asked (launch/kernels.py).
FALLBACK_VARIANTS = ("single", "star", "mpi", "ceiling")
FALLBACK_ALGORITHMS = ("reference", "alltoall", "hypercube", "torus", "shared", "pipeline")
# Studies of threaded `ra mpi` runs: Garg & Sabharwal's Table 2, and their mapping modes.
RA_STUDIES = ("shared-table-study", "modes")
# The algorithms that run threads on one table per rank; the others run one rank per
# core (mapping mode 1; sweep, model).
THREADED_ALGORITHMS = ("shared", "pipeline")
# --mapping-mode without --algo: modes 1-4 keep the bench's default (it refuses 2-4).
MODE_ALGORITHMS = {5: "shared", 6: "shared", 7: "pipeline", 8: "pipeline"}
STUDY_MODES = (1, 5, 6, 7, 8)
DEFAULT_STUDY_MODES = (1, 5, 6, 8)
# Table 2(a): 32M..512M updates on a 16M-word table; Table 2(b): its locking strategies.
STUDY_UPDATES_PER_WORD = (2, 4, 8, 16, 32)
STUDY_SYNCS = ("none", "locks:1", "locks:16", "locks:32", "atomic")
MODELS = ("ra",)
# Plimpton et al.'s Table 4: the look-aheads Q of `hpcprobe ra sweep` by default.
SWEEP_LOOKAHEADS = (1, 4, 16, 64, 256, 1024, 2048, 4096, 8192, 32768)
MAX_SWEEP_LOOKAHEAD = 32768
# `hpcprobe ra` options handed to hpcprobe-bench as typed (it validates them).
RA_VALUE_OPTIONS = (
    ("algo", "--algo"),
    ("table_log2", "--table-log2"), ("memory_fraction", "--memory-fraction"),
    ("rng", "--rng"), ("lookahead", "--lookahead"), ("repeat", "--repeat"),
    ("warmup", "--warmup"), ("time_limit", "--time-limit"), ("hugepages", "--hugepages"),
    ("owner", "--owner"), ("grid", "--grid"), ("dims", "--dims"), ("mods", "--mods"),
    ("overlap", "--overlap"), ("update_loop", "--update-loop"),
    ("threads", "--threads"), ("mapping_mode", "--mapping-mode"), ("sync", "--sync"),
    ("roles", "--roles"), ("updates_per_word", "--updates-per-word"),
)
RA_FLAG_OPTIONS = (("allow_noncompliant", "--allow-noncompliant"), ("no_verify", "--no-verify"),
                   ("oversubscribe", "--oversubscribe"))



def ra_variants() -> Tuple[str, ...]:
    return variants("ra", FALLBACK_VARIANTS)


def ra_words() -> Tuple[str, ...]:
    """What may follow `hpcprobe ra`: a variant, "sweep" (ra mpi over look-aheads), or a
    study."""
    return ra_variants() + ("sweep",) + RA_STUDIES


def ra_algorithms() -> Tuple[str, ...]:
    """Every algorithm of `ra mpi`."""
    return algorithms("ra", "mpi", FALLBACK_ALGORITHMS)


def mpi_algorithms() -> Tuple[str, ...]:
    """The algorithms of `ra mpi` that run one rank per core."""
    return tuple(name for name in ra_algorithms() if name not in THREADED_ALGORITHMS)


def topology(text: str) -> Topology:
    try:
        return parse_topology(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


def sync_spec(option: str) -> Callable[[str], str]:
    """argparse type: none, atomic or locks:K (K >= 1), kept as typed for the bench."""
    def parse(text: str) -> str:
        kind, colon, count = text.partition(":")
        if text in ("none", "atomic") or (
                kind == "locks" and colon and is_count(count) and int(count) >= 1):
            return text
        close = difflib.get_close_matches(kind, ["none", "atomic", "locks"], n=1)
        hint = f"; did you mean '{close[0]}{colon}{count}'?" if close and close[0] != kind else ""
        raise UsageError(f"{option} takes none, atomic or locks:K (K >= 1 striped locks), "
                         f"not '{text}'{hint}")
    return parse


def roles_spec(text: str) -> str:
    """argparse type of --roles: auto, or how many threads only route (0 or more)."""
    if text == "auto" or is_count(text):
        return text
    raise UsageError(f"--roles takes auto or a whole number of routing threads >= 0, "
                     f"not '{text}'")


def sync_list(text: str) -> List[str]:
    return [sync_spec("--syncs")(word) for word in text.split(",")]


def mode_list(text: str) -> List[int]:
    modes = int_list("--modes", 1, 8, "1,5,6,8")(text)
    if set(modes) - set(STUDY_MODES):
        raise UsageError(f"--modes takes {', '.join(map(str, STUDY_MODES))}, not "
                         f"{min(set(modes) - set(STUDY_MODES))} (the paper rules out 2-4)")
    return modes


def add_ra_parser(subparsers) -> CliParser:
    ra = subparsers.add_parser("ra", help="HPC Challenge RandomAccess (GUPS)")
    words = ra_words()
    ra.add_argument("variant", nargs="?", type=choice("variant", words),
                    metavar="{" + ",".join(words) + "}",
                    help="a variant, or a study: sweep (Plimpton's Table 4), shared-table-study "
                         "and modes (Garg & Sabharwal's Tables 2 and 1)")
    ra.add_argument("--algo", type=choice("algorithm", ra_algorithms()),
                    metavar="NAME", help="mpi: " + ", ".join(ra_algorithms())
                    + " (default reference, or as --mapping-mode implies); sweep: hypercube")
    ra.add_argument("--lookahead", metavar="L",
                    help="most updates pending; sweep: a comma list (default "
                         + ",".join(map(str, SWEEP_LOOKAHEADS)) + ")")
    # Passed to hpcprobe-bench as typed; it validates them (docs/cli.md).
    for option, metavar in (("--table-log2", "K"), ("--memory-fraction", "F"),
                            ("--rng", "poly|lcg"), ("--warmup", "W"),
                            ("--time-limit", "S"), ("--hugepages", "on|off"),
                            ("--owner", "division|predict"), ("--grid", "AxBxC"),
                            ("--dims", "D"), ("--mods", "none|all|LIST"),
                            ("--overlap", "on|off"), ("--update-loop", "prefetch|plain"),
                            ("--threads", "T"), ("--mapping-mode", "M")):
        ra.add_argument(option, metavar=metavar, help="see hpcprobe-bench (docs/cli.md)")
    ra.add_argument("--repeat", "--reps", dest="repeat", metavar="R",
                    help="timed repetitions (default 1; shared-table-study 5, modes 3)")
    ra.add_argument("--allow-noncompliant", action="store_true",
                    help="accept a look-ahead over 1024 or --updates-per-word not 4 (record "
                         "marked non-compliant)")
    ra.add_argument("--no-verify", action="store_true", help="skip verification")
    _add_threaded_options(ra)
    add_launch_options(ra, default_np="1; sweep: number of CPU cores")
    return ra


def _add_threaded_options(ra: CliParser) -> None:
    ra.add_argument("--sync", type=sync_spec("--sync"), metavar="none|atomic|locks:K",
                    help="shared: how threads guard the table (bench default atomic)")
    ra.add_argument("--roles", type=roles_spec, metavar="auto|K",
                    help="pipeline: K threads only route (bench default auto)")
    ra.add_argument("--oversubscribe", action="store_true", help="allow more threads than cores")
    ra.add_argument("--updates-per-word", metavar="F",
                    help="updates per table word (HPCC: 4); shared-table-study: a comma list "
                         "(default " + ",".join(map(str, STUDY_UPDATES_PER_WORD)) + ")")
    ra.add_argument("--syncs", type=sync_list, metavar="S,S,...",
                    help="shared-table-study (b): the syncs against 1 thread (default "
                         + ",".join(STUDY_SYNCS) + ")")
    ra.add_argument("--sync-a", type=sync_spec("--sync-a"), metavar="S",
                    help="shared-table-study (a): the sync of the error runs (default none)")
    ra.add_argument("--modes", type=mode_list, metavar="M,M,...",
                    help="modes: the mapping modes compared (default "
                         + ",".join(map(str, DEFAULT_STUDY_MODES)) + ")")
    ra.add_argument("--mode1-algo", type=choice("algorithm", mpi_algorithms()),
                    metavar="NAME", help="modes: the algorithm of mode 1 (default hypercube)")
    ra.add_argument("--json", action="store_true", help="the studies: JSON instead of tables")


def add_model_parser(subparsers) -> CliParser:
    model = subparsers.add_parser("model", help="performance models (ra: Plimpton, Garg)")
    model.add_argument("subject", nargs="?", type=choice("model", MODELS), metavar="{ra}")
    model.add_argument("--t1", type=positive_seconds("--t1"), metavar="S",
                       help="seconds for Q updates on one process (default: fitted)")
    model.add_argument("--tc", type=nonnegative_seconds("--tc"), metavar="S",
                       help="seconds per exchange stage of Q updates (default: fitted)")
    model.add_argument("--q", type=positive_int("--q"), default=1024, metavar="Q",
                       help="look-ahead: updates per process per step (default 1024)")
    model.add_argument("--procs", metavar="P,P,...",
                       type=int_list("--procs", 1, MAX_CROSSOVER_PROCS, "1,4,16,64", "2^40"),
                       help="process counts (default: powers of two 1 to 2^20)")
    model.add_argument("--from", dest="from_paths", nargs="+", action="extend",
                       metavar="FILE|DIR", help="records to fit T_1, T_C and b from")
    model.add_argument("--measure", action="store_true",
                       help="launch the two hypercube runs that T_1 and T_C are fitted from")
    model.add_argument("--algo", type=choice("algorithm", mpi_algorithms()),
                       default="hypercube", metavar="NAME",
                       help="algorithm of the measured points and b (default hypercube)")
    model.add_argument("--topology", type=topology, metavar="SPEC",
                       help="torus:AxBxC, torus:Nd, mesh:AxBxC, mesh:Nd or fattree")
    model.add_argument("--link-bandwidth", type=positive_number("--link-bandwidth", "bytes/s"),
                       metavar="B/S", help="bytes/s per link and direction")
    model.add_argument("--bytes-per-update",
                       type=positive_number("--bytes-per-update", "bytes"), metavar="B",
                       help="b of the bottleneck bound (default 8)")
    model.add_argument("--json", action="store_true", help="one JSON object per line")
    add_launch_options(model, default_np="2, with --measure", hpcc_summary=False)
    return model


OptionWords = Tuple[Tuple[str, str, Tuple[str, ...]], ...]


def _ra_option_words(single_launches: Tuple[str, ...]) -> OptionWords:
    """(attribute, option, the words after `hpcprobe ra` that take it), given the variants
    of one launch; the studies choose ranks, algorithms and table sizes themselves."""
    return (
        ("algo", "--algo", ("mpi", "sweep")),
        ("hpcc_summary", "--hpcc-summary", single_launches),
        ("np", "--np", single_launches + ("sweep",)),
        ("memory_fraction", "--memory-fraction", single_launches + ("sweep",)),
        ("no_verify", "--no-verify", single_launches + ("sweep", "modes")),
        ("threads", "--threads", ("mpi",) + RA_STUDIES),
        ("mapping_mode", "--mapping-mode", ("mpi", "shared-table-study")),
        ("sync", "--sync", ("mpi", "modes")),
        ("roles", "--roles", ("mpi", "modes")),
        ("oversubscribe", "--oversubscribe", ("mpi",) + RA_STUDIES),
        ("updates_per_word", "--updates-per-word", ("mpi", "shared-table-study")),
        ("syncs", "--syncs", ("shared-table-study",)),
        ("sync_a", "--sync-a", ("shared-table-study",)),
        ("modes", "--modes", ("modes",)),
        ("mode1_algo", "--mode1-algo", ("modes",)),
        ("json", "--json", RA_STUDIES),
    )


def _check_ra_option_words(args: argparse.Namespace) -> None:
    for attribute, option, words in _ra_option_words(ra_variants()):
        if getattr(args, attribute) not in (None, False) and args.variant not in words:
            raise UsageError(f"{option} applies to 'hpcprobe ra {'|'.join(words)}' only, "
                             f"not to 'ra {args.variant}'")


def check_ra(args: argparse.Namespace) -> None:
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe ra' (allowed: {', '.join(ra_words())})")
    if args.algo is not None and args.variant in ("single", "star"):
        raise UsageError(f"--algo applies to 'hpcprobe ra mpi' and 'hpcprobe ra sweep' only; "
                         f"'{args.variant}' has one algorithm")
    if args.hpcc_summary and args.variant == "sweep":
        raise UsageError("--hpcc-summary applies to 'hpcprobe ra single|star|mpi' and "
                         "'hpcprobe run', not to 'ra sweep' (look-aheads over 1024 are not "
                         "HPCC runs)")
    _check_ra_option_words(args)
    if args.variant == "mpi" and args.algo is None and is_count(args.mapping_mode or ""):
        args.algo = MODE_ALGORITHMS.get(int(args.mapping_mode))
    elif args.variant in RA_STUDIES:
        _check_study(args)
    elif args.variant == "sweep":
        if args.algo in THREADED_ALGORITHMS:
            raise UsageError(f"--algo {args.algo} applies to 'hpcprobe ra mpi' only; a sweep "
                             f"runs one rank per core (allowed: {', '.join(mpi_algorithms())})")
        parse = int_list("--lookahead", 1, MAX_SWEEP_LOOKAHEAD, "1,4,16,64")
        args.lookaheads = parse(args.lookahead) if args.lookahead is not None else list(
            SWEEP_LOOKAHEADS)


def _check_study(args: argparse.Namespace) -> None:
    """The numbers a study computes with, as numbers (None: the study's default)."""
    for attribute, option in (("threads", "--threads"), ("repeat", "--repeat")):
        text = getattr(args, attribute)
        setattr(args, attribute, None if text is None else positive_int(option)(text))
    args.modes = args.modes or list(DEFAULT_STUDY_MODES)
    args.syncs = args.syncs or list(STUDY_SYNCS)
    parse = int_list("--updates-per-word", 1, 64, "2,4,8,16,32")
    args.updates_per_words = (parse(args.updates_per_word) if args.updates_per_word is not None
                              else list(STUDY_UPDATES_PER_WORD))


# Options of `hpcprobe model` that only --measure uses.
_MEASURE_OPTIONS = (("np", "--np"), ("out", "--out"), ("launcher", "--launcher"),
                    ("launcher_arg", "--launcher-arg"), ("time_budget", "--time-budget"))


def _check_model_inputs(args: argparse.Namespace) -> None:
    missing = [option for attribute, option in (("t1", "--t1"), ("tc", "--tc"))
               if getattr(args, attribute) is None]
    if missing and not args.from_paths and not args.measure:
        raise UsageError(f"no value for {' and '.join(missing)}: give "
                         f"{' and '.join(option + ' S' for option in missing)}, or records to "
                         "fit from with --from FILE|DIR, or --measure")
    if args.measure:
        if args.np is not None and args.np < 2:
            raise UsageError(f"--np {args.np} is too few for --measure: T_C is fitted from an "
                             "exchange between ranks (allowed: 2 or more)")
        return
    for attribute, option in _MEASURE_OPTIONS:
        if getattr(args, attribute):
            raise UsageError(f"{option} applies with --measure only (it launches the runs "
                             "T_1 and T_C are fitted from)")


def check_model(args: argparse.Namespace) -> None:
    if args.subject is None:
        raise UsageError(f"missing model for 'hpcprobe model' (allowed: {', '.join(MODELS)})")
    _check_model_inputs(args)
    if args.topology is not None and args.link_bandwidth is None:
        raise UsageError("--topology needs --link-bandwidth B/S (bytes/s per link and "
                         "direction)")
    for attribute, option in (("link_bandwidth", "--link-bandwidth"),
                              ("bytes_per_update", "--bytes-per-update")):
        if getattr(args, attribute) is not None and args.topology is None:
            raise UsageError(f"{option} applies with --topology only (the bottleneck bound "
                             "needs a network)")


def ra_bench_options(args: argparse.Namespace, skip: Sequence[str] = ()) -> List[str]:
    """hpcprobe-bench options from `hpcprobe ra` arguments, passed on as typed; the
    attributes named in `skip` are left out."""
    options: List[str] = []
    for attribute, option in RA_VALUE_OPTIONS:
        value = getattr(args, attribute, None)
        if value is not None and attribute not in skip:
            options += [option, value]
    for attribute, option in RA_FLAG_OPTIONS:
        if getattr(args, attribute, False) and attribute not in skip:
            options.append(option)
    return options
