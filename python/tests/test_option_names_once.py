"""No Python source repeats an option name the bench declares (issue 39): hpcprobe takes
the names, grammars, help and defaults of the bench's options from its description
(`hpcprobe-bench describe --json`, hpcprobe/describe.py), so a renamed or added C option
needs no Python edit. A string constant in the package that equals a bench option's name
is a second declaration of it, unless it is one of hpcprobe's own options that happens to
share the name; those are listed below with the reason, and a listed one that is no longer
found fails too, so the list only shrinks.
"""

import ast
from pathlib import Path
from typing import Dict, Set

from hpcprobe import describe

PACKAGE = Path(__file__).resolve().parents[1] / "hpcprobe"

# (module under python/hpcprobe, option name): why hpcprobe has an option of that name.
OWN_OPTIONS: Dict[tuple, str] = {
    ("cli_types.py", "--out"): "hpcprobe's results directory, where the bench's --out is a file",
    ("cli_types.py", "--quiet"): "hpcprobe's display; the launch quiets the bench itself",
    ("cli_described.py", "--out"): "the common options the launch gives the bench itself",
    ("cli_described.py", "--quiet"): "the common options the launch gives the bench itself",
    ("runner.py", "--out"): "the launch hands the bench the results file it reads back",
    ("analysis_options.py", "--quiet"): "`hpcprobe analyze`'s own display",
    ("analysis/merge.py", "--out"): "`hpcprobe merge`'s output file",
    ("commands/script.py", "--out"): "`hpcprobe script`'s output file",
    ("families/hpcc/parsers.py", "--out"): "`hpcprobe config`'s output file",
    ("study/command.py", "--out"): "`hpcprobe study`'s directory, resumed by a second run",
    ("screen/command.py", "--out"): "`hpcprobe screen`'s directory for screen.json and records",
    ("cli.py", "--repeat"): "`hpcprobe run --repeat`: how many times the whole suite runs",
    ("suite/node_sizes.py", "--memory-cap"): "an argument of the `hpcprobe-bench sizes` query "
    "(runtime/sizing_query.c), not of a kernel",
}


def bench_option_names() -> Set[str]:
    description = describe.load_description()
    names = {o.name for o in description.common_options}
    for family in description.families.values():
        names.update(o.name for o in family.options)
    return names


def constants_naming(names: Set[str]) -> Set[tuple]:
    """(module, name) for every string constant of the package equal to a bench option."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.add((module, node.value))
    return found


def test_the_description_lists_the_options_this_test_looks_for():
    names = bench_option_names()
    assert {"--table-log2", "--sizes", "--array-bytes", "--repeat", "--out"} <= names


def test_no_python_source_repeats_a_bench_option_name():
    found = constants_naming(bench_option_names())
    repeated = sorted(found - set(OWN_OPTIONS))
    assert not repeated, ("bench option names spelled again in Python (take them from "
                          f"hpcprobe.describe instead): {repeated}")


def test_every_listed_own_option_is_still_there():
    stale = sorted(set(OWN_OPTIONS) - constants_naming(bench_option_names()))
    assert not stale, f"OWN_OPTIONS lists names no longer found (remove them): {stale}"
