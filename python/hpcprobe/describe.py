"""What hpcprobe-bench says of itself (`hpcprobe-bench describe --json`,
schema/describe-v1.json) as typed objects: its families, their kernels and options. The
parsers of the families that read it build their variants, options, checks and help from
it, so that a kernel or an option added in C needs no Python edit (docs/adding-a-kernel.md).

The bench is asked once per build: the document is kept in the user's cache directory
($HPCPROBE_CACHE_DIR, else $XDG_CACHE_HOME/hpcprobe, else ~/.cache/hpcprobe), keyed by the
bench's path, size and modification time, and once per process in memory. A cache that
cannot be read, or was written for another build, is asked again and rewritten; one that
cannot be written is only skipped. A bench that does not answer is one UsageError line
naming it.
"""

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from hpcprobe.errors import UsageError
from hpcprobe.launch import find_bench

DESCRIBE_TIMEOUT_S = 60.0
READS_VERSION = "1."  # 1.x only adds members (schema/describe-v1.json)
CACHE_ENV_VARIABLE = "HPCPROBE_CACHE_DIR"


@dataclass(frozen=True)
class Option:
    """One option as the bench declares it; `default` as the user would type it (None:
    none, or computed at run time when `default_computed`, and the help says how)."""

    name: str
    type: str
    grammar: str
    default: Optional[str]
    default_computed: bool
    min: Optional[float]
    max: Optional[float]
    min_exclusive: bool
    max_exclusive: bool
    count_max: Optional[int]
    choices: Optional[Tuple[str, ...]]
    help: str
    common: bool
    kernels: Tuple[str, ...]

    @property
    def dest(self) -> str:
        """The argparse attribute of the option ("--table-log2" -> "table_log2")."""
        return self.name.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class KernelDefault:
    """A kernel's own default and range of an option, where they differ from the
    family option's (gpu copy's --repeat)."""

    name: str
    default: Optional[str]
    min: Optional[float]
    max: Optional[float]


@dataclass(frozen=True)
class Kernel:
    id: str
    variant: str
    algorithm: str
    summary: str
    options: Tuple[str, ...]
    defaults: Mapping[str, KernelDefault]


@dataclass(frozen=True)
class Family:
    name: str
    kernels: Tuple[Kernel, ...]
    options: Tuple[Option, ...]

    def variants(self) -> Tuple[str, ...]:
        return tuple(dict.fromkeys(kernel.variant for kernel in self.kernels))

    def kernels_of(self, variant: str, algorithm: Optional[str] = None) -> Tuple[Kernel, ...]:
        return tuple(k for k in self.kernels if k.variant == variant
                     and algorithm in (None, k.algorithm))

    def algorithms(self, variant: str) -> Tuple[str, ...]:
        return tuple(kernel.algorithm for kernel in self.kernels_of(variant))

    def option(self, dest: str) -> Option:
        """The option whose attribute is `dest`; KeyError when the bench has none (a
        Python reference to an option the C side renamed or dropped)."""
        for option in self.options:
            if option.dest == dest:
                return option
        raise KeyError(f"hpcprobe-bench {self.name} has no option for '{dest}'")


@dataclass(frozen=True)
class Description:
    version: str
    bench: str
    families: Mapping[str, Family]
    common_options: Tuple[Option, ...]

    def family(self, name: str) -> Family:
        if name not in self.families:
            raise UsageError(f"{self.bench} describes no family '{name}' (rebuild it with "
                             "'make build')")
        return self.families[name]


def _option(data: Mapping[str, Any]) -> Option:
    choices = data.get("choices")
    return Option(
        name=data["name"], type=data["type"], grammar=data["grammar"],
        default=data.get("default"), default_computed=bool(data.get("default_computed")),
        min=data.get("min"), max=data.get("max"),
        min_exclusive=bool(data.get("min_exclusive")),
        max_exclusive=bool(data.get("max_exclusive")),  # 1.1
        count_max=data.get("count_max"),
        choices=tuple(choices) if choices is not None else None, help=data["help"],
        common=bool(data.get("common")), kernels=tuple(data.get("kernels", ())))


def _kernel(data: Mapping[str, Any]) -> Kernel:
    defaults = {d["name"]: KernelDefault(d["name"], d.get("default"), d.get("min"), d.get("max"))
                for d in data.get("option_defaults", ())}  # 1.1
    return Kernel(data["id"], data["variant"], data["algorithm"], data["summary"],
                  tuple(data["options"]), defaults)


def parse_description(document: Mapping[str, Any], bench: str) -> Description:
    """The typed objects of a describe document; UsageError naming the bench when it is
    not one this hpcprobe reads."""
    version = str(document.get("describe_version", "")) if isinstance(document, dict) else ""
    if not version.startswith(READS_VERSION):
        raise UsageError(f"{bench} describes itself in version '{version}'; this hpcprobe "
                         f"reads {READS_VERSION}x (rebuild it with 'make build')")
    try:
        families = {f["name"]: Family(f["name"], tuple(_kernel(k) for k in f["kernels"]),
                                      tuple(_option(o) for o in f["options"]))
                    for f in document["families"]}
        common = tuple(_option(o) for o in document["common_options"])
    except (KeyError, TypeError) as error:
        raise UsageError(f"{bench} gave a describe document without {error}") from None
    return Description(version, bench, families, common)


def cache_dir(env: Mapping[str, str]) -> Path:
    if env.get(CACHE_ENV_VARIABLE):
        return Path(env[CACHE_ENV_VARIABLE])
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hpcprobe"


def _build_key(bench: str) -> Dict[str, Any]:
    stat = os.stat(bench)
    return {"bench": bench, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _cache_file(directory: Path, bench: str) -> Path:
    # One file per bench path: a rebuild of the same bench replaces its entry.
    return directory / f"describe-{hashlib.sha256(bench.encode()).hexdigest()[:16]}.json"


def _read_cache(path: Path, key: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # none yet, or damaged: asked again and rewritten
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    document = entry.get("document")
    return document if isinstance(document, dict) else None


def _write_cache(path: Path, key: Mapping[str, Any], document: Mapping[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".describe-",
                                         delete=False, encoding="utf-8") as out:
            json.dump({"key": key, "document": document}, out)
        os.replace(out.name, path)  # whole or not at all, also for a parallel hpcprobe
    except OSError:
        pass  # a read-only home: the bench is asked again next time, nothing worse


def ask_bench(bench: str) -> Dict[str, Any]:
    """The document `BENCH describe --json` prints; one UsageError line naming the bench
    when it does not answer with one."""
    try:
        done = subprocess.run([bench, "describe", "--json"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=DESCRIBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise UsageError(f"{bench} did not describe its options in {DESCRIBE_TIMEOUT_S:g} s "
                         "('describe --json')") from None
    except OSError as error:
        raise UsageError(f"cannot run {bench} to read its options: {error}") from None
    first = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[0]
    if done.returncode != 0:
        raise UsageError(f"{bench} did not describe its options ('describe --json', exit "
                         f"status {done.returncode}: {first})")
    try:
        document = json.loads(done.stdout)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        raise UsageError(f"{bench} did not describe its options ('describe --json' printed "
                         "no JSON document)")
    return document


_LOADED: Dict[Tuple[Any, ...], Description] = {}


def load_description(bench: Optional[str] = None) -> Description:
    """The bench's description (`bench`, else the one hpcprobe launches): from this
    process's memory, else the cache of this build, else asked."""
    bench = bench or find_bench(os.environ)
    try:
        key = _build_key(bench)
    except OSError as error:
        raise UsageError(f"cannot read {bench}: {error.strerror}") from None
    memory_key = tuple(key.values())
    if memory_key not in _LOADED:
        path = _cache_file(cache_dir(os.environ), bench)
        document = _read_cache(path, key)
        if document is None:
            document = ask_bench(bench)
            parse_description(document, bench)  # a document it cannot read is not kept
            _write_cache(path, key, document)
        _LOADED[memory_key] = parse_description(document, bench)
    return _LOADED[memory_key]


def forget_loaded() -> None:
    """Drop what this process has loaded (tests: the next load reads the cache)."""
    _LOADED.clear()


def family(name: str) -> Family:
    """Family `name` of the bench hpcprobe launches."""
    return load_description().family(name)
