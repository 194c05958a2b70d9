"""The built-in catalog's specs, parsed and validated once and kept between processes.

Reading a group of the catalog parses its YAML files and validates every spec (pint quantities
included): about 60 ms for the whole catalog, most of a one-shot command's own work. The
validated specs of a group are pickled into pint's cache folder (the user's cache folder, where
the unit registry keeps its own pickles; nothing is kept where it cannot be written), named by a
digest of everything they depend on: each file's path and bytes, whether numbers need a source,
the group, the versions of Python, pydantic and pint, and the code that validates them
(:data:`VALIDATING_CODE`). Any change gives another name, so a stale file is never read; the
files of the same folder's group with earlier digests are removed when a new one is written,
and so are those of catalog folders beyond the :data:`KEPT_FOLDERS` most recently written (each
checkout or install reads its own folder). A file that cannot be read back (truncated, another
format) is ignored and the group is parsed again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pint
import pydantic

from mlcost.units import ureg

#: The code a spec's validation runs (mlcost.specs imports only these): a change to any of them
#: may change what a file parses into.
VALIDATING_CODE = ("specs/*.py", "errors.py", "io.py", "units.py", "units.txt")
_FORMAT = b"mlcost parsed catalog 1"
#: How many catalog folders' specs one cache folder keeps: each install or checkout of mlcost
#: reads its own catalog folder, so a machine that runs many (CI clones, clean copies) would
#: otherwise keep them all (924 files, 20 MB seen on a development machine). When a group is
#: written, the files of the other folders beyond the most recently written are removed; a
#: folder whose files were removed is parsed again on its next use (about 60 ms) and kept anew.
KEPT_FOLDERS = 16


@functools.cache
def _code_digest() -> bytes:
    """The digest of the versions and of :data:`VALIDATING_CODE` (computed once per process)."""
    digest = hashlib.sha256(_FORMAT)
    digest.update(f"{sys.version}\n{pydantic.VERSION}\n{pint.__version__}\n".encode())
    package = Path(str(resources.files("mlcost")))
    for pattern in VALIDATING_CODE:
        for path in sorted(package.glob(pattern)):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def default_folder() -> Path | None:
    """pint's cache folder (the user's cache folder), or None where it cannot be written."""
    folder = ureg.cache_folder
    return None if folder is None else Path(folder)


def cache_file(folder: Path, files: Sequence[Path], *, require_sources: bool, group: str) -> Path:
    """Where in ``folder`` the validated specs of ``files`` (one group's) are kept."""
    digest = hashlib.sha256(_code_digest())
    digest.update(f"{require_sources}\n{group}\n".encode())
    for file in files:
        digest.update(str(file).encode() + b"\0" + file.read_bytes() + b"\0")
    # Named by the catalog's folder (the one above the group's) and group first: a new digest
    # replaces only that folder's group (two installs of mlcost keep their own files), and the
    # folders beyond KEPT_FOLDERS are told apart by it.
    catalog = files[0].parent.parent if files else ""
    where = hashlib.sha256(str(catalog).encode()).hexdigest()[:12]
    return folder / f"mlcost-catalog-{where}-{group}-{digest.hexdigest()[:24]}.pickle"


def load(path: Path | None) -> tuple[list[Any], dict[str, str]] | None:
    """The specs and origins kept at ``path``; None when there are none to read."""
    if path is None:
        return None
    try:
        with path.open("rb") as file:
            # The user's own cache folder; quantities come back on mlcost's registry
            # (mlcost.units._unpickle_quantity).
            specs, origins = pickle.load(file)
    except Exception:  # missing, truncated, or written by other code: parse the files again
        return None
    return list(specs), dict(origins)


def save(path: Path | None, specs: Sequence[Any], origins: dict[str, str]) -> None:
    """Keep ``specs`` (just validated: nothing derived from them yet) and their origins at
    ``path``, written atomically with normal permissions, and remove the group's earlier
    files and those of the catalog folders beyond :data:`KEPT_FOLDERS`; best effort (a cache
    folder that cannot be written is left alone)."""
    if path is None:
        return
    group_prefix = path.name.rsplit("-", 1)[0] + "-"
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as file:
            pickle.dump((list(specs), origins), file, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(file.name, 0o644)
        os.replace(file.name, path)
        for earlier in path.parent.glob(f"{group_prefix}*.pickle"):
            if earlier != path:
                earlier.unlink(missing_ok=True)
        _forget_other_folders(path.parent, keep=path.name.split("-")[2])
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(file.name)


def _forget_other_folders(folder: Path, *, keep: str) -> None:
    """Remove the kept specs of the catalog folders (``where`` in :func:`cache_file`'s names)
    beyond the :data:`KEPT_FOLDERS` most recently written, ``keep`` (the folder just written)
    always among those kept."""
    written: dict[str, float] = {}
    files: dict[str, list[Path]] = {}
    for file in folder.glob("mlcost-catalog-*.pickle"):
        parts = file.name.split("-")  # mlcost, catalog, where, group, digest.pickle
        if len(parts) != 5:
            continue
        with contextlib.suppress(OSError):  # removed meanwhile by another process
            when = file.stat().st_mtime
            written[parts[2]] = max(written.get(parts[2], when), when)
            files.setdefault(parts[2], []).append(file)
    others = sorted((w for w in written if w != keep), key=written.__getitem__, reverse=True)
    for where in others[KEPT_FOLDERS - 1 :]:
        for file in files[where]:
            file.unlink(missing_ok=True)


__all__ = ["KEPT_FOLDERS", "VALIDATING_CODE", "cache_file", "default_folder", "load", "save"]
