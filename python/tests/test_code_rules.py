"""The code's own rules: walls between the C families (docs/adding-a-kernel.md), and size.

A family folder (core/kernels/<family>/) includes only `hpcprobe/` headers and its own
folder's; anything two families share belongs in core/include/hpcprobe/ and core/runtime/.
No source file is over 500 lines. Each rule lists today's exceptions, each with its
reason; an exception that no longer applies fails too, so the list only shrinks.
"""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 500
C_SUFFIXES = {".c", ".h", ".cu", ".cuh"}

# Includes of "../" paths that are allowed: none (a stale entry fails the test).
INCLUDE_EXCEPTIONS: set = set()

# Files over the budget, capped at their length: none (a stale entry fails the test).
SIZE_EXCEPTIONS: dict = {}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


def sources(roots, suffixes):
    """Files under the roots with one of the suffixes, skipping hidden and cache folders."""
    for root in roots:
        for path in sorted((REPO / root).rglob("*")):
            rel = path.relative_to(REPO)
            hidden = any(p.startswith(".") or p == "__pycache__" for p in rel.parts)
            if path.is_file() and path.suffix in suffixes and not hidden:
                yield rel.as_posix(), path


def relative_includes():
    """(file, included path) for every include of a path with "../" under core/."""
    return {(rel, target)
            for rel, path in sources(["core"], C_SUFFIXES)
            for target in INCLUDE.findall(path.read_text(errors="replace"))
            if "../" in target}


def line_counts():
    """Lines of every C/CUDA source (core/, bench/) and Python source (python/, bench/,
    contrib/)."""
    files = dict(sources(["core", "bench"], C_SUFFIXES))
    files.update(sources(["python", "bench", "contrib"], {".py"}))
    return {rel: len(path.read_text(errors="replace").splitlines())
            for rel, path in files.items()}


def test_the_sources_are_found():
    counts = line_counts()
    assert "core/runtime/harness.c" in counts and "python/hpcprobe/cli.py" in counts


def test_c_sources_include_no_path_out_of_their_folder():
    found = relative_includes() - INCLUDE_EXCEPTIONS
    assert not found, ("a family includes only hpcprobe/ headers and its own folder's; "
                       f"move what is shared to core/include/hpcprobe/: {sorted(found)}")


def test_no_source_is_over_the_line_budget():
    over = {rel: n for rel, n in line_counts().items()
            if n > max(MAX_LINES, SIZE_EXCEPTIONS.get(rel, 0))}
    assert not over, f"files over {MAX_LINES} lines (split them by role): {over}"


def test_every_exception_still_applies():
    counts = line_counts()
    stale = sorted(INCLUDE_EXCEPTIONS - relative_includes())
    stale += sorted(rel for rel in SIZE_EXCEPTIONS if counts.get(rel, 0) <= MAX_LINES)
    assert not stale, f"remove these exceptions from test_code_rules.py: {stale}"


KERNEL_DECLARATION = re.compile(r"extern const struct hpcp_kernel (hpcp_\w+);")


def kernel_symbols():
    registry = (REPO / "core/runtime/registry.c").read_text()
    return KERNEL_DECLARATION.findall(registry)


def test_a_kernel_is_one_family_folder_and_one_registry_line():
    """docs/adding-a-kernel.md: a kernel is defined in its family's folder (directly, or
    through the family's one descriptor macro, COMM_KERNEL) and named outside that folder
    only by runtime/registry.c, so adding one touches those two places and nothing
    shared."""
    texts = {path: path.read_text() for _, path in sources(["core"], C_SUFFIXES)}
    symbols = kernel_symbols()
    assert len(symbols) >= 40
    for symbol in symbols:
        defined = [p for p, text in texts.items()
                   if re.search(rf"const struct hpcp_kernel {symbol}\b", text)
                   and "extern" not in text.split(symbol)[0].splitlines()[-1]]
        defined += [p for p, text in texts.items() if re.search(rf"KERNEL\({symbol}\b", text)]
        folders = {p.parent for p in defined}
        assert len(folders) == 1 and next(iter(folders)).parent.name == "kernels", \
            (symbol, sorted(map(str, defined)))
        named = {p.relative_to(REPO).as_posix() for p, text in texts.items()
                 if re.search(rf"\b{symbol}\b", text) and p.parent not in folders
                 and p.parent.name != "tests"}  # the C unit tests may run any kernel
        assert named == {"core/runtime/registry.c"}, (symbol, named)
