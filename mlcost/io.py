"""Reading and writing files safely.

Writes go through a temporary file in the same folder and an atomic rename, so a reader never sees
half a file and an interrupted write leaves the old file intact; the file gets the permissions a
plain ``open(path, "w")`` would give (``0o666`` less the user's umask), not ``mkstemp``'s 0600.
Reads of user-supplied text files are bounded in size and must be UTF-8, so a binary file, a
device such as ``/dev/zero`` or a huge file is refused with one line instead of a traceback.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from mlcost.errors import SpecError

#: The largest input text file read (spec YAML, config.json, results.csv): 64 MiB. The biggest
#: real inputs (a bench results.csv of the full preset) are a few MB.
MAX_INPUT_BYTES = 64 * 2**20


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Bytes the temporary file of :func:`write_bytes_atomically` adds to the target's name: a
#: leading dot, a dot, and ``mkstemp``'s 8 random characters (``.NAME.XXXXXXXX``), so a target's
#: name may be at most the file system's limit less these.
TEMPORARY_NAME_EXTRA_BYTES = 10


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) atomically."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, then rename),
    with the permissions ``0o666 & ~umask``."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.resolve().parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_input_text(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a user's input file, at most ``limit`` bytes.

    Raises :class:`mlcost.errors.SpecError` (one line naming the file) for a file that cannot be
    read, is not a regular file, is larger than ``limit`` or is not UTF-8 text.
    """
    file = Path(path)
    source = str(file)
    try:
        if file.is_dir():
            raise SpecError(["is a folder; expected a file"], source=source)
        with open(file, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise SpecError(
            [f"cannot read the file ({error.strerror or error})"], source=source
        ) from None
    if len(data) > limit:
        raise SpecError(
            [f"larger than {limit // 2**20} MiB; expected a text file (YAML, JSON or CSV)"],
            source=source,
        )
    if b"\x00" in data:
        raise SpecError(
            ["is a binary file; expected UTF-8 text (YAML, JSON or CSV)"], source=source
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecError(
            [f"byte {error.start} is not UTF-8; expected UTF-8 text (YAML, JSON or CSV)"],
            source=source,
        ) from None
