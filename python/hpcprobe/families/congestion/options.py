"""The command line of `hpcprobe congestion` (docs/cli.md, docs/kernels/congestion.md)
and what `hpcprobe simulate congestion` adds to the simulator's.

Pattern names and the fraction are checked here, before anything is launched; sizes go
to hpcprobe-bench as typed (it checks them against the memory of the nodes and answers
with its own one line)."""

from typing import Callable, List

from hpcprobe.cli_types import (CliParser, add_launch_options, checked_as_typed,
                                float_option, nonnegative_int, positive_int, suggestion)
from hpcprobe.errors import UsageError
from hpcprobe.families.congestion.cif import CANARIES, CONGESTORS

# (attribute, option, metavar, help): passed to the bench as typed.
CONGESTION_VALUE_OPTIONS = (
    ("canary", "--canary", "LIST",
     f"canaries, a comma list of {', '.join(CANARIES)} (default all)"),
    ("congestor", "--congestor", "LIST",
     f"congestors, a comma list of {', '.join(CONGESTORS)}, or none for the quiet baseline "
     "(default all four)"),
    ("congestor_bytes", "--congestor-bytes", "B", "congestor message size (default 4K)"),
    ("bandwidth_bytes", "--bandwidth-bytes", "B", "bandwidth canary message size (default 128K)"),
    ("in_flight", "--in-flight", "K",
     "bandwidth messages in flight and concurrent Allreduces (default 8)"),
    ("samples", "--samples", "N", "latency and allreduce samples per rank and run (default 1000)"),
    ("bandwidth_samples", "--bandwidth-samples", "N",
     "bandwidth samples per rank and run (default 100)"),
    ("congestor_fraction", "--congestor-fraction", "F",
     "share of the nodes (one node: of the ranks) that congest (default 0.8)"),
    ("warmup", "--warmup", "W",
     "untimed canary samples first, and congestor rounds before the canaries start "
     "(default 10)"),
    ("seed", "--seed", "S", "seed of the canaries' random ring (default 1)"),
)


def name_list(option: str, allowed: List[str]) -> Callable[[str], str]:
    """argparse type: a comma list of names from `allowed`, each once; kept as text."""
    def parse(text: str) -> str:
        words = text.split(",")
        for index, word in enumerate(words):
            if word not in allowed:
                raise UsageError(f"{option} '{text}': unknown '{word}'"
                                 f"{suggestion(word, allowed)} (allowed: a comma list of "
                                 f"{', '.join(allowed)})")
            if word in words[:index]:
                raise UsageError(f"{option} '{text}' names '{word}' twice")
        if "none" in words and len(words) > 1:
            raise UsageError(f"{option} none is the quiet baseline and goes alone, not with "
                             f"'{text}'")
        return text
    return parse


_TYPES = {
    "canary": name_list("--canary", list(CANARIES)),
    "congestor": name_list("--congestor", list(CONGESTORS) + ["none"]),
    "in_flight": positive_int("--in-flight"),
    "samples": positive_int("--samples"),
    "bandwidth_samples": positive_int("--bandwidth-samples"),
    "congestor_fraction": float_option("--congestor-fraction", "a share above 0 and below 1",
                                       lambda value: 0 < value < 1),
    "warmup": nonnegative_int("--warmup"),
    "seed": nonnegative_int("--seed"),
}


def _as_typed(attribute: str) -> Callable[[str], str]:
    return checked_as_typed(_TYPES, attribute)


def add_congestion_parser(subparsers) -> CliParser:
    parser = subparsers.add_parser(
        "congestion", help="congestion under load (Chunduri et al., GPCNeT: Characterizing "
                           "Interference and Congestion on HPC Systems): canaries alone and "
                           "beside congestors; the Congestion Impact Factor")
    for attribute, option, metavar, text in CONGESTION_VALUE_OPTIONS:
        parser.add_argument(option, dest=attribute, metavar=metavar, type=_as_typed(attribute),
                            help=text)
    parser.add_argument("--no-verify", action="store_true", help="skip the message checks")
    add_launch_options(parser, default_np="number of CPU cores", hpcc_summary=False)
    return parser

