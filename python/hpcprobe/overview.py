"""What `hpcprobe` with no command prints: every command, grouped by what it measures
or does, one line each (its help), and where to start. A command no group names is
listed under "other", so a new family is never hidden (a test keeps the groups whole)."""

from typing import Dict, List, Mapping, Sequence, Tuple

from hpcprobe.resources import docs_page

# (group, its commands in the order shown).
GROUPS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("the machine's limits", ("peak",)),
    ("processor", ("dgemm", "hpl", "fft", "ptrans")),
    ("memory", ("stream", "mem")),
    ("interconnect", ("comm", "beff", "pairs", "contention", "congestion", "topology",
                      "simulate")),
    ("RandomAccess", ("ra", "model")),
    ("GPU", ("gpu",)),
    ("suites and analysis", ("run", "study", "screen", "show", "report", "compare",
                             "history")),
    ("machine and set-up", ("sysinfo", "list", "config", "cluster", "launch",
                            "script")),
)
START = ("start with:  hpcprobe run            (a suite on every core; `make run` from a "
         "checkout)\n             hpcprobe report results/*/ -o report.html\n"
         "every command: hpcprobe COMMAND --help; {cli_doc}")


def grouped(commands: Sequence[str]) -> List[Tuple[str, List[str]]]:
    """The groups with the commands of `commands` they hold, then "other" for the rest."""
    placed = {name for _, names in GROUPS for name in names}
    found = [(group, [name for name in names if name in commands]) for group, names in GROUPS]
    rest = [name for name in commands if name not in placed]
    return [(group, names) for group, names in found + [("other", rest)] if names]


def overview_text(helps: Mapping[str, str], version: str) -> str:
    """The text: a heading per group, a line per command (name and help)."""
    width = max(len(name) for name in helps) + 2
    lines = [f"hpcprobe {version}: what an HPC machine delivers (processor, memory, "
             "interconnect)", ""]
    for group, names in grouped(list(helps)):
        lines.append(f"{group}:")
        lines += [f"  {name:<{width}}{helps[name]}" for name in names]
        lines.append("")
    return "\n".join(lines + [START.format(cli_doc=docs_page("cli.md"))])


def command_helps(subparsers_action) -> Dict[str, str]:
    """{command: its one-line help} from argparse's subparsers action."""
    return {action.dest: " ".join((action.help or "").split())
            for action in subparsers_action._choices_actions}
