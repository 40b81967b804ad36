"""Writing output files whole or not at all.

Each file is written to a temporary name in its own directory and renamed over the
target (os.replace, atomic on POSIX): a full disk or a killed hpcprobe leaves the old
file or none, never a half-written one. A failure removes the temporary file and is an
HpcprobeError with exit status 4, one line naming the file.

A symbolic link to a file gets its file replaced, and stays a link. A target that is not
a regular file (`-o /dev/stdout`, a FIFO) is written in place: renaming over it would
replace the device or the link itself.
"""

import os
import secrets
import stat
from pathlib import Path
from typing import Optional

from hpcprobe.errors import EXIT_IO_FAILURE, HpcprobeError


def _temporary_name(path: Path) -> Path:
    # Hidden, and unique: two hpcprobe writing one file do not share a temporary.
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")


def _write_new(temporary: Path, data: bytes) -> None:
    # 0o666 as open() would use: the umask applies, as for any file written directly.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(data)
        stream.flush()
        # Some file systems (NFS) report a full disk only here or at close.
        os.fsync(stream.fileno())


def _failure(path: Path, error: OSError) -> HpcprobeError:
    return HpcprobeError(f"cannot write {path}: {error.strerror or error}", EXIT_IO_FAILURE)


def _file_to_replace(path: Path) -> Optional[Path]:
    """The regular file to replace for `path` (a link's target); None when `path` is
    something else that exists (a device, a FIFO, a directory)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    return Path(os.path.realpath(path)) if stat.S_ISREG(mode) else None


def _write_in_place(path: Path, data: bytes) -> None:
    with open(path, "wb") as stream:
        stream.write(data)


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """`data` as the whole of `path`, or HpcprobeError (exit status 4) and `path` as it
    was."""
    try:
        target = _file_to_replace(path)
        if target is None:
            _write_in_place(path, data)
            return
    except OSError as error:
        raise _failure(path, error) from None
    temporary = _temporary_name(target)
    try:
        _write_new(temporary, data)
        os.replace(temporary, target)
    except OSError as error:
        try:
            temporary.unlink()
        except OSError:
            pass  # it was never created
        raise _failure(path, error) from None


def write_text_atomically(path: Path, text: str) -> None:
    """`text` (UTF-8) as the whole of `path`; see write_bytes_atomically."""
    # A lone surrogate (JSON can hold one) cannot be UTF-8: written as its escape.
    write_bytes_atomically(path, text.encode("utf-8", errors="backslashreplace"))


def make_directory(path: Path) -> None:
    """`path` and its parents, or HpcprobeError (exit status 4)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise HpcprobeError(f"cannot write {path}: {error.strerror or error}",
                            EXIT_IO_FAILURE) from None
