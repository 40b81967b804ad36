"""Where cluster descriptions live: one JSON file per cluster, NAME.json, in
$HPCPROBE_CLUSTER_DIR or /run/hpcprobe/clusters (/run is emptied at boot, as are the
namespaces the files describe). Written whole (a new file renamed over the old), so a
reader never sees half a description."""

import json
import os
from pathlib import Path
from typing import List, Mapping, Optional

from hpcprobe.cluster.model import Cluster, cluster_from_dict
from hpcprobe.cluster.spec import NAME_PATTERN
from hpcprobe.errors import HpcprobeError, UsageError

DIRECTORY_VARIABLE = "HPCPROBE_CLUSTER_DIR"
DEFAULT_DIRECTORY = "/run/hpcprobe/clusters"
SUFFIX = ".json"


def cluster_dir(env: Optional[Mapping[str, str]] = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get(DIRECTORY_VARIABLE) or DEFAULT_DIRECTORY)


def cluster_file(name: str, env: Optional[Mapping[str, str]] = None) -> Path:
    return cluster_dir(env) / f"{name}{SUFFIX}"


def cluster_names(env: Optional[Mapping[str, str]] = None) -> List[str]:
    """The clusters described in the directory, by name."""
    try:
        entries = os.listdir(cluster_dir(env))
    except OSError:
        return []
    return sorted(entry[:-len(SUFFIX)] for entry in entries
                  if entry.endswith(SUFFIX) and NAME_PATTERN.fullmatch(entry[:-len(SUFFIX)]))


def read_cluster(path: Path) -> Cluster:
    """The cluster a file describes; HpcprobeError naming the file when it cannot."""
    try:
        return cluster_from_dict(json.loads(path.read_text(encoding="utf-8")))
    except OSError as error:
        raise HpcprobeError(f"cannot read {path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise HpcprobeError(f"{path} is not a cluster description ({error}); "
                            "'hpcprobe cluster down' still removes the cluster") from None


def load_cluster(name: str, env: Optional[Mapping[str, str]] = None) -> Cluster:
    """The cluster named `name`; UsageError (exit 2) when there is none."""
    path = cluster_file(name, env)
    if not path.exists():
        known = cluster_names(env)
        raise UsageError(f"no cluster '{name}' in {path.parent} (clusters: "
                         f"{', '.join(known) if known else 'none'}; make one with "
                         "'hpcprobe cluster up')")
    return read_cluster(path)


def _write(path: Path, cluster: Cluster, exclusive: bool) -> None:
    text = json.dumps(cluster.to_dict(), indent=1) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if exclusive:
        # The file is claimed first: two `up` of one name cannot both go on.
        with open(path, "x", encoding="utf-8") as stream:
            stream.write(text)
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def create_cluster_file(cluster: Cluster, env: Optional[Mapping[str, str]] = None) -> Path:
    """Write a new cluster's file; UsageError if one of that name exists."""
    path = cluster_file(cluster.name, env)
    try:
        _write(path, cluster, exclusive=True)
    except FileExistsError:
        raise UsageError(f"cluster '{cluster.name}' exists ({path}); remove it first with "
                         f"'hpcprobe cluster down --name {cluster.name}'") from None
    except OSError as error:
        raise HpcprobeError(f"cannot write {path}: {error.strerror}") from None
    return path


def save_cluster(cluster: Cluster, env: Optional[Mapping[str, str]] = None) -> None:
    path = cluster_file(cluster.name, env)
    try:
        _write(path, cluster, exclusive=False)
    except OSError as error:
        raise HpcprobeError(f"cannot write {path}: {error.strerror}") from None


def remove_cluster_file(name: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """Remove the file; False when there was none."""
    try:
        cluster_file(name, env).unlink()
        return True
    except FileNotFoundError:
        return False
