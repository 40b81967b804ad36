"""A family's command line from the bench's description (describe.py): its variants and
algorithms from the described kernels, each described option as an argparse option (its
flag, help, default and type from cli_grammars.py), the check that refuses an option the
chosen variant does not take, and the bench options of the parsed arguments.

No family table repeats what the bench declares: a kernel or an option added in C shows up
here with no Python edit (docs/adding-a-kernel.md). Checks that need several options
together stay in the bench; hpcprobe passes the values on and shows its one line.
"""

import argparse
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from hpcprobe.cli_grammars import argparse_type, metavar
from hpcprobe.cli_types import CliParser, choice, unknown
from hpcprobe import describe
from hpcprobe.describe import Family, Kernel, Option
from hpcprobe.errors import UsageError

# The bench's choice of a variant's algorithm (core/runtime/main.c), not a family option.
ALGO_OPTION = "--algo"
# Common options of the bench that the launch gives itself (runner.py: the results file
# and a quiet bench); hpcprobe's own --out (the results directory) and --quiet (its
# display) stand in their place on the command line (cli_types.add_launch_options).
LAUNCH_GIVES = ("--out", "--quiet")


def user_options(family: Family) -> Tuple[Option, ...]:
    """The described options a user gives on hpcprobe's command line."""
    return tuple(o for o in family.options if o.name not in LAUNCH_GIVES)


def variants_taking(family: Family, name: str) -> Tuple[str, ...]:
    return tuple(dict.fromkeys(k.variant for k in family.kernels if name in k.options))


def _launched(family: Family) -> Tuple[str, ...]:
    """The variants that take options at all (gpu info takes none)."""
    return tuple(dict.fromkeys(k.variant for k in family.kernels if k.options))


def loosest(family: Family, option: Option) -> Tuple[Optional[float], Optional[float]]:
    """The widest range any kernel gives the option: what the argparse type allows (the
    check narrows it to the chosen kernel's)."""
    ranges = [(option.min, option.max)] + [
        (k.defaults[option.name].min, k.defaults[option.name].max)
        for k in family.kernels if option.name in k.defaults]
    lows = [low for low, _ in ranges if low is not None]
    highs = [high for _, high in ranges if high is not None]
    return (min(lows) if lows else None), (max(highs) if highs else None)


def default_text(family: Family, option: Option) -> str:
    """" (default X)", with the variants whose default differs ("; copy: 5"); "" where
    the bench computes it (its help says how) or for a flag."""
    if option.type == "flag" or option.default is None:
        return ""
    others: Dict[str, str] = {}
    for kernel in family.kernels:
        own = kernel.defaults.get(option.name)
        if own is not None and own.default != option.default:
            others.setdefault(kernel.variant, own.default or "computed")
    return f" (default {option.default}" + "".join(
        f"; {variant}: {value}" for variant, value in others.items()) + ")"


def option_help(family: Family, option: Option, prefix: str = "") -> str:
    """The described help, with the variants that take it where not all do, and the
    default; escaped for argparse's %-formatting."""
    takers = variants_taking(family, option.name)
    where = "" if takers == _launched(family) else f"{', '.join(takers)}: "
    return (prefix + where + option.help + default_text(family, option)).replace("%", "%%")


def add_option(parser: CliParser, family: Family, option: Option, prefix: str = "") -> None:
    """One described option: its flag, help and the type of its grammar."""
    text = option_help(family, option, prefix)
    if option.type == "flag":
        parser.add_argument(option.name, dest=option.dest, action="store_true", help=text)
        return
    parser.add_argument(option.name, dest=option.dest, metavar=metavar(option), help=text,
                        type=argparse_type(option, *loosest(family, option)))


def add_described_options(parser: CliParser, family: Family) -> None:
    """Every option the family's kernels take, as the bench describes it."""
    for option in user_options(family):
        add_option(parser, family, option)


def add_variant_argument(parser: CliParser, family: Family) -> None:
    """The optional variant word, its choices the described kernels' variants."""
    variants = family.variants()
    parser.add_argument("variant", nargs="?", type=choice("variant", variants),
                        metavar="{" + ",".join(variants) + "}")


def _choosing(family: Family) -> Tuple[str, ...]:
    """The variants with more than one algorithm: those that take --algo."""
    return tuple(v for v in family.variants() if len(family.algorithms(v)) > 1)


def add_algo_option(parser: CliParser, family: Family) -> None:
    """--algo where some variant has several algorithms, each with its summary."""
    choosing = _choosing(family)
    if not choosing:
        return
    algorithms = tuple(dict.fromkeys(a for v in choosing for a in family.algorithms(v)))
    text = "; ".join(f"{variant}: " + ", ".join(
        f"{k.algorithm} ({k.summary})" for k in family.kernels_of(variant))
        + f", default {family.algorithms(variant)[0]}" for variant in choosing)
    parser.add_argument(ALGO_OPTION, dest="algo", metavar="|".join(algorithms),
                        type=choice("algorithm", algorithms), help=text.replace("%", "%%"))


def applies_only(family: Family, name: str, takers: Sequence[str], chosen: str) -> UsageError:
    return UsageError(f"{name} applies to 'hpcprobe {family.name} {'|'.join(takers)}' only, "
                      f"not to '{family.name} {chosen}'")


def chosen_kernels(args: argparse.Namespace, family: Family, variant: str) -> Tuple[Kernel, ...]:
    """The kernels the arguments choose; --algo refused where the variant has one
    algorithm, or named one it does not have."""
    algo = getattr(args, "algo", None)
    if algo is not None:
        if variant not in _choosing(family):
            raise applies_only(family, ALGO_OPTION, _choosing(family), variant)
        if algo not in family.algorithms(variant):
            raise unknown("algorithm", algo, family.algorithms(variant))
    return family.kernels_of(variant, algo)


def _given(args: argparse.Namespace, option: Option) -> bool:
    return getattr(args, option.dest, None) not in (None, False)


def check_described(args: argparse.Namespace, family: Family, variant: str) -> None:
    """Each option given is one the chosen kernels take, within their own range (the
    type allowed the loosest of the family)."""
    kernels = chosen_kernels(args, family, variant)
    for option in user_options(family):
        if not _given(args, option):
            continue
        taking = [k for k in kernels if option.name in k.options]
        if not taking:
            raise applies_only(family, option.name, variants_taking(family, option.name),
                               variant)
        for kernel in taking:
            _check_range(args, family, option, kernel, variant)


def _check_range(args: argparse.Namespace, family: Family, option: Option, kernel: Kernel,
                 variant: str) -> None:
    """The value within the kernel's own range, where the family's loosest is wider."""
    own = kernel.defaults.get(option.name)
    low, high = (own.min, own.max) if own is not None else (option.min, option.max)
    if option.type == "flag" or (low, high) == loosest(family, option):
        return
    try:
        argparse_type(option, low, high)(getattr(args, option.dest))
    except UsageError as error:
        raise UsageError(f"{error.message} ('{family.name} {variant}')") from None


def described_bench_options(args: argparse.Namespace, family: Family,
                            variant: str) -> List[str]:
    """hpcprobe-bench options of the arguments, as typed: --algo when given, then every
    described option the chosen kernels take, in the bench's order."""
    algo = getattr(args, "algo", None)
    taken = {name for k in family.kernels_of(variant, algo) for name in k.options}
    options = [ALGO_OPTION, algo] if algo is not None else []
    for option in user_options(family):
        value = getattr(args, option.dest, None)
        if option.name not in taken or value in (None, False):
            continue
        options += [option.name] if option.type == "flag" else [option.name, value]
    return options


def bench_values(family: Family, variant: str, values: Mapping[str, str]) -> Tuple[str, ...]:
    """Bench options hpcprobe chooses itself (the main job's steps, a device per launch),
    by attribute, in the order given; KeyError for one no kernel of the variant takes,
    so a C rename cannot go unnoticed."""
    taken = {name for k in family.kernels_of(variant) for name in k.options}
    options: List[str] = []
    for dest, value in values.items():
        name = family.option(dest).name
        if name not in taken:
            raise KeyError(f"hpcprobe-bench {family.name} {variant} takes no {name}")
        options += [name, value]
    return tuple(options)


def bench_flags(family: Family, variant: str, *dests: str) -> Tuple[str, ...]:
    """Bench flags hpcprobe gives itself (the suites' --oversubscribe), by attribute, in
    the order given; KeyError for one no kernel of the variant takes, or not a flag."""
    taken = {name for k in family.kernels_of(variant) for name in k.options}
    flags: List[str] = []
    for dest in dests:
        option = family.option(dest)
        if option.name not in taken or option.type != "flag":
            raise KeyError(f"hpcprobe-bench {family.name} {variant} takes no flag {option.name}")
        flags.append(option.name)
    return tuple(flags)


def bench_step_options(benchmark: str, variant: str, values: Mapping[str, str],
                       flags: Sequence[str] = ()) -> Tuple[str, ...]:
    """The bench options of a suite's step: bench_values, then bench_flags, of the bench
    family `benchmark`."""
    family = describe.family(benchmark)
    return bench_values(family, variant, values) + bench_flags(family, variant, *flags)
