"""The command lines of `hpcprobe ra` (its variants, `sweep`, and the studies
`shared-table-study` and `modes`) and `hpcprobe model ra` (docs/cli.md).

The variants, their algorithms and every bench option (flag, help, default, grammar) come
from the bench's description of its ra family (describe.py, cli_described.py), as do the
checks that refuse an option the chosen variant or algorithm does not take, with one line,
and the hpcprobe-bench options they become. Only what hpcprobe has and the bench does not
is declared here: the sweep and the studies (which launch `ra mpi` several times, with
their look-ahead and update-count lists, --modes, --syncs), the mapping modes that imply an
algorithm, and the model's inputs."""

import argparse
import difflib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpcprobe import describe
from hpcprobe.cli_described import (ALGO_OPTION, add_algo_option, add_option,
                                    applies_only, bench_values, check_described,
                                    described_bench_options, option_help, user_options)
from hpcprobe.cli_grammars import argparse_type, metavar
from hpcprobe.cli_types import (LAUNCH_ATTRIBUTES, CliParser, add_launch_options, choice,
                                int_list, is_count, nonnegative_seconds, positive_int,
                                positive_number, positive_seconds)
from hpcprobe.errors import UsageError
from hpcprobe.families.ra.model import MAX_CROSSOVER_PROCS, Topology, parse_topology

FAMILY = "ra"
# The variant the sweep and the studies launch, several times each.
MPI = "mpi"
SWEEP = "sweep"
SHARED_TABLE_STUDY = "shared-table-study"
MODES = "modes"
# Studies of threaded `ra mpi` runs: Garg & Sabharwal's Table 2, and their mapping modes.
RA_STUDIES = (SHARED_TABLE_STUDY, MODES)
SEVERAL = (SWEEP,) + RA_STUDIES
# Garg et al.'s Table 1: the algorithm of a mapping mode above 1 (--mapping-mode without
# --algo chooses it; modes 1-4 keep the bench's default, and it refuses 2-4). These are
# the algorithms that run threads on one table per rank; the others run one rank per core
# (mode 1: the sweep, mode 1 of `modes`, the model).
MODE_ALGORITHMS = {5: "shared", 6: "shared", 7: "pipeline", 8: "pipeline"}
THREADED_ALGORITHMS = tuple(dict.fromkeys(MODE_ALGORITHMS.values()))
SHARED_ALGORITHM = MODE_ALGORITHMS[5]
PIPELINE_ALGORITHM = MODE_ALGORITHMS[7]
SWEEP_ALGORITHM = "hypercube"
MODE1_ALGORITHM = "hypercube"
STUDY_MODES = (1, 5, 6, 7, 8)
DEFAULT_STUDY_MODES = (1, 5, 6, 8)
# Table 2(a): 32M..512M updates on a 16M-word table; Table 2(b): its locking strategies.
STUDY_UPDATES_PER_WORD = (2, 4, 8, 16, 32)
STUDY_SYNCS = ("none", "locks:1", "locks:16", "locks:32", "atomic")
MODELS = ("ra",)
# Plimpton et al.'s Table 4: the look-aheads Q of `hpcprobe ra sweep` by default.
SWEEP_LOOKAHEADS = (1, 4, 16, 64, 256, 1024, 2048, 4096, 8192, 32768)
# Bench options (by attribute) that one word after `hpcprobe ra` takes as a comma list,
# one value per launch, with its default list; every other word takes one value.
_LISTS = {"lookahead": (SWEEP, SWEEP_LOOKAHEADS),
          "updates_per_word": (SHARED_TABLE_STUDY, STUDY_UPDATES_PER_WORD)}
# What the studies do with a bench option, after its described help.
_STUDY_HELP = {
    "lookahead": "; sweep: a comma list (default " + ",".join(map(str, SWEEP_LOOKAHEADS)) + ")",
    "updates_per_word": "; shared-table-study: a comma list (default "
                        + ",".join(map(str, STUDY_UPDATES_PER_WORD)) + ")",
    "repeat": "; shared-table-study: 5, modes: 3",
    "threads": "; the studies: the cores used (default every core, at least 2)",
}
# The bench options the sweep or a study refuses though its launches take them: it sets
# them itself (the studies' tables, threads and syncs, the sweep's one rank per core at
# HPCC's 4 updates a word), verification is what shared-table-study (a) measures, and
# one file cannot hold the tables of several launches.
_REFUSED = {SWEEP: ("threads", "mapping_mode", "oversubscribe", "updates_per_word",
                    "dump_table"),
            SHARED_TABLE_STUDY: ("memory_fraction", "no_verify", "sync", "dump_table"),
            MODES: ("memory_fraction", "mapping_mode", "updates_per_word", "dump_table")}
# Options (by attribute) of the ranks' layout: `modes` passes them to mode 1 only, since
# modes 5-8 run on one rank, where `--grid 2x2` cannot fit.
MODE1_ONLY = ("owner", "grid", "dims", "mods", "overlap")
REPEAT_ALIAS = "--reps"


def ra_family() -> describe.Family:
    return describe.family(FAMILY)


def ra_words(family: describe.Family) -> Tuple[str, ...]:
    """What may follow `hpcprobe ra`: a variant, "sweep" (ra mpi over look-aheads), or a
    study."""
    return family.variants() + SEVERAL


def ra_algorithms(family: describe.Family) -> Tuple[str, ...]:
    """Every algorithm of `ra mpi`."""
    return family.algorithms(MPI)


def mpi_algorithms(family: describe.Family) -> Tuple[str, ...]:
    """The algorithms of `ra mpi` that run one rank per core."""
    return tuple(a for a in ra_algorithms(family) if a not in THREADED_ALGORITHMS)


def bench_option(dest: str) -> describe.Option:
    """The described ra option of attribute `dest` (KeyError if the bench has none)."""
    return ra_family().option(dest)


def bench_value(args: argparse.Namespace, dest: str):
    """The value given for the described ra option `dest` (None when not given)."""
    return getattr(args, bench_option(dest).dest, None)


def topology(text: str) -> Topology:
    try:
        return parse_topology(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


def sync_spec(option: str) -> Callable[[str], str]:
    """argparse type: none, atomic or locks:K (K >= 1), kept as typed for the bench. The
    bench describes --sync as free text it reads itself; hpcprobe checks it (and the
    studies' --syncs, --sync-a) before any of a study's launches."""
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


def roles_spec(option: str) -> Callable[[str], str]:
    """argparse type: auto, or how many threads only route (0 or more); free text to the
    bench, checked here before `ra modes` launches mode 1."""
    def parse(text: str) -> str:
        if text == "auto" or is_count(text):
            return text
        raise UsageError(f"{option} takes auto or a whole number of routing threads >= 0, "
                         f"not '{text}'")
    return parse


# The described options whose grammar the bench leaves to itself (free text): their
# argparse type and metavar.
_OWN_TYPES = {"sync": (sync_spec, "none|atomic|locks:K"), "roles": (roles_spec, "auto|K")}


def sync_list(text: str) -> List[str]:
    return [sync_spec("--syncs")(word) for word in text.split(",")]


def mode_list(text: str) -> List[int]:
    modes = int_list("--modes", 1, 8, "1,5,6,8")(text)
    if set(modes) - set(STUDY_MODES):
        raise UsageError(f"--modes takes {', '.join(map(str, STUDY_MODES))}, not "
                         f"{min(set(modes) - set(STUDY_MODES))} (the paper rules out 2-4)")
    return modes


def _add_bench_option(parser: CliParser, family: describe.Family,
                      option: describe.Option) -> None:
    """A described option; a list one, --sync and --roles, --repeat (alias --reps) and those
    a study reads get their ra type, alias or help."""
    special = option.dest in _LISTS or option.dest in _OWN_TYPES or option.dest in _STUDY_HELP
    if not special:
        add_option(parser, family, option)
        return
    names = (option.name, REPEAT_ALIAS) if option.dest == "repeat" else (option.name,)
    text = option_help(family, option) + _STUDY_HELP.get(option.dest, "")
    kind, shown = _OWN_TYPES.get(option.dest, (None, metavar(option)))
    if kind is not None:
        value_type = kind(option.name)
    elif option.dest in _LISTS:
        value_type, shown = str, shown + "[,...]"  # checked in check_ra, per word
    else:
        value_type = argparse_type(option)
    parser.add_argument(*names, dest=option.dest, metavar=shown, help=text, type=value_type)


def add_ra_parser(subparsers) -> CliParser:
    family = ra_family()
    ra = subparsers.add_parser("ra", help="HPC Challenge RandomAccess (GUPS)")
    words = ra_words(family)
    ra.add_argument("variant", nargs="?", type=choice("variant", words),
                    metavar="{" + ",".join(words) + "}",
                    help=f"a variant, or a study: sweep (Plimpton's Table 4: ra mpi over "
                         f"look-aheads; --algo {'|'.join(mpi_algorithms(family))}, default "
                         f"{SWEEP_ALGORITHM}), shared-table-study and modes (Garg & "
                         "Sabharwal's Tables 2 and 1)")
    add_algo_option(ra, family)
    for option in user_options(family):
        _add_bench_option(ra, family, option)
    _add_study_options(ra, family)
    add_launch_options(ra, default_np="1; sweep: number of CPU cores")
    return ra


def _add_study_options(ra: CliParser, family: describe.Family) -> None:
    ra.add_argument("--syncs", type=sync_list, metavar="S,S,...",
                    help="shared-table-study (b): the syncs against 1 thread (default "
                         + ",".join(STUDY_SYNCS) + ")")
    ra.add_argument("--sync-a", type=sync_spec("--sync-a"), metavar="S",
                    help="shared-table-study (a): the sync of the error runs (default none)")
    ra.add_argument("--modes", type=mode_list, metavar="M,M,...",
                    help="modes: the mapping modes compared (default "
                         + ",".join(map(str, DEFAULT_STUDY_MODES)) + ")")
    ra.add_argument("--mode1-algo", type=choice("algorithm", mpi_algorithms(family)),
                    metavar="NAME", help=f"modes: the algorithm of mode 1 (default "
                                         f"{MODE1_ALGORITHM})")
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
    model.add_argument(ALGO_OPTION, type=choice("algorithm", mpi_algorithms(ra_family())),
                       default=SWEEP_ALGORITHM, metavar="NAME",
                       help=f"algorithm of the measured points and b (default "
                            f"{SWEEP_ALGORITHM})")
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


def _choosing(family: describe.Family) -> Tuple[str, ...]:
    """The words that take --algo: variants with several algorithms, and the sweep."""
    return tuple(v for v in family.variants() if len(family.algorithms(v)) > 1) + (SWEEP,)


def _own_option_words(family: describe.Family) -> Tuple[Tuple[str, str, Tuple[str, ...]], ...]:
    """(attribute, option, the words that take it) of hpcprobe's own options; the studies
    choose ranks, algorithms and table sizes themselves."""
    launches = family.variants()
    return (("algo", ALGO_OPTION, _choosing(family)),
            ("hpcc_summary", "--hpcc-summary", launches),
            ("np", "--np", launches + (SWEEP,)),
            ("syncs", "--syncs", (SHARED_TABLE_STUDY,)),
            ("sync_a", "--sync-a", (SHARED_TABLE_STUDY,)),
            ("modes", "--modes", (MODES,)),
            ("mode1_algo", "--mode1-algo", (MODES,)),
            ("json", "--json", RA_STUDIES))


def _check_own_options(args: argparse.Namespace, family: describe.Family) -> None:
    if args.hpcc_summary and args.variant == SWEEP:
        raise UsageError("--hpcc-summary applies to 'hpcprobe ra single|star|mpi' and "
                         "'hpcprobe run', not to 'ra sweep' (look-aheads over 1024 are not "
                         "HPCC runs)")
    for attribute, option, words in _own_option_words(family):
        if getattr(args, attribute) not in (None, False) and args.variant not in words:
            raise applies_only(family, option, words, args.variant)
    if args.variant == SWEEP and args.algo in THREADED_ALGORITHMS:
        raise UsageError(f"--algo {args.algo} applies to 'hpcprobe ra mpi' only; a sweep "
                         f"runs one rank per core (allowed: "
                         f"{', '.join(mpi_algorithms(family))})")


def _algorithms(family: describe.Family, word: str,
                args: Optional[argparse.Namespace] = None) -> Tuple[str, ...]:
    """The `ra mpi` algorithms the sweep or a study launches: those the arguments choose,
    or (without them) every one it could."""
    if word == SWEEP:
        return (args.algo or SWEEP_ALGORITHM,) if args else mpi_algorithms(family)
    if word == SHARED_TABLE_STUDY:
        return (SHARED_ALGORITHM,)
    first = (args.mode1_algo or MODE1_ALGORITHM,) if args else mpi_algorithms(family)
    return first + THREADED_ALGORITHMS


def _kernels(family: describe.Family, word: str,
             args: Optional[argparse.Namespace] = None) -> Tuple[describe.Kernel, ...]:
    """The kernels `word` launches with these arguments (without: every one it may)."""
    if word not in SEVERAL:
        return family.kernels_of(word, args.algo if args else None)
    return tuple(k for a in _algorithms(family, word, args) for k in family.kernels_of(MPI, a))


def _offered(word: str, option: describe.Option,
             kernels: Sequence[describe.Kernel]) -> Tuple[describe.Kernel, ...]:
    """The kernels of `word` that could get the option: in `modes`, an option of the
    ranks' layout goes to mode 1 only (modes 5-8 run on one rank)."""
    if word == MODES and option.dest in MODE1_ONLY:
        return tuple(k for k in kernels if k.algorithm not in THREADED_ALGORITHMS)
    return tuple(kernels)


def _takes(family: describe.Family, word: str, option: describe.Option,
           kernels: Sequence[describe.Kernel]) -> bool:
    refused = {family.option(dest).name for dest in _REFUSED.get(word, ())}
    return option.name not in refused and any(
        option.name in k.options for k in _offered(word, option, kernels))


def words_taking(family: describe.Family, option: describe.Option) -> Tuple[str, ...]:
    return tuple(w for w in ra_words(family) if _takes(family, w, option, _kernels(family, w)))


def _refuse_untaken(args: argparse.Namespace, family: describe.Family, word: str) -> None:
    """Each bench option given is one a kernel `word` launches takes; one line naming the
    words, or the algorithms of this word, that take it."""
    kernels, every = _kernels(family, word, args), _kernels(family, word)
    for option in user_options(family):
        if getattr(args, option.dest, None) in (None, False) or _takes(
                family, word, option, kernels):
            continue
        if _takes(family, word, option, every):
            flag = "--mode1-algo" if word == MODES else ALGO_OPTION
            takers = "|".join(k.algorithm for k in _offered(word, option, every)
                              if option.name in k.options)
            chosen = "|".join(dict.fromkeys(k.algorithm for k in _offered(word, option,
                                                                           kernels)))
            raise UsageError(f"{option.name} applies to 'hpcprobe ra {word} {flag} {takers}' "
                             f"only, not to 'ra {word} {flag} {chosen}'")
        raise applies_only(family, option.name, words_taking(family, option), word)


def _check_lists(args: argparse.Namespace, family: describe.Family) -> None:
    """A list option: the comma list of its word (kept as numbers in `lookaheads`,
    `updates_per_words`), one value in the range of its grammar for any other word."""
    for dest, (word, default) in _LISTS.items():
        option = family.option(dest)
        text = getattr(args, option.dest)
        if word == args.variant:
            example = ",".join(map(str, default[:4]))
            parse = int_list(option.name, int(option.min), int(option.max), example)
            setattr(args, dest + "s", parse(text) if text is not None else list(default))
        elif text is not None:
            argparse_type(option)(text)


def check_ra(args: argparse.Namespace) -> None:
    family = ra_family()
    if args.variant is None:
        raise UsageError(f"missing variant for 'hpcprobe ra' (allowed: "
                         f"{', '.join(ra_words(family))})")
    _check_own_options(args, family)
    mode = bench_value(args, "mapping_mode")
    if args.variant == MPI and args.algo is None and is_count(mode or ""):
        args.algo = MODE_ALGORITHMS.get(int(mode))
    _refuse_untaken(args, family, args.variant)
    _check_lists(args, family)
    if args.variant in RA_STUDIES:
        _check_study(args)
    elif args.variant != SWEEP:
        check_described(args, family, args.variant)


def _check_study(args: argparse.Namespace) -> None:
    """The study's defaults where not given."""
    args.modes = args.modes or list(DEFAULT_STUDY_MODES)
    args.syncs = args.syncs or list(STUDY_SYNCS)


# Options of `hpcprobe model` that only --measure uses: the launch options.
_MEASURE_OPTIONS = LAUNCH_ATTRIBUTES + (("launcher_arg", "--launcher-arg"),)


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


def ra_bench_options(args: argparse.Namespace) -> List[str]:
    """hpcprobe-bench options of `hpcprobe ra VARIANT`, as typed, in the bench's order."""
    return described_bench_options(args, ra_family(), args.variant)


def passed_options(args: argparse.Namespace, algorithm: str,
                   skip: Sequence[str] = ()) -> List[str]:
    """The described options given to the sweep or a study that its launch of `ra mpi
    --algo ALGORITHM` takes, as typed; the attributes in `skip` (what it sets itself)
    are left out."""
    family = ra_family()
    taken = {name for kernel in family.kernels_of(MPI, algorithm) for name in kernel.options}
    options: List[str] = []
    for option in user_options(family):
        value = getattr(args, option.dest, None)
        if option.dest in skip or option.name not in taken or value in (None, False):
            continue
        options += [option.name] if option.type == "flag" else [option.name, value]
    return options


def mpi_values(values: Dict[str, str]) -> Tuple[str, ...]:
    """Bench options of `ra mpi` that hpcprobe chooses itself, by attribute
    (cli_described.bench_values)."""
    return bench_values(ra_family(), MPI, values)
