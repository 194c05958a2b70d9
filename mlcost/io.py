"""Reading and writing files safely: one rule for every input and every output.

**Inputs** (:func:`read_input_bytes`, :func:`read_input_text`): the path is looked at before it is
opened (``os.stat``) and must be a regular file no larger than a cap, so a folder, a FIFO, a
device (``/dev/zero``), a socket or a huge file is refused with one line and never blocks or fills
memory; text must be UTF-8.

**Outputs** (:func:`write_output`, checked ahead by :func:`check_output`), the rule README's error
section states:

1. an existing file is never replaced unless the caller says so (``force``; ``--force`` on the
   command line);
2. an input is never an output, even with ``force`` (the files the caller names as ``inputs``);
3. checking and writing are one step: the data goes to a new temporary file in the target's folder
   (created exclusively, ``O_CREAT | O_EXCL``), which is then hard-linked to the target name:
   ``link`` fails if the name exists, so of two writers racing for one name exactly one wins and
   the other is refused, and a reader never sees half a file. With ``force`` the temporary file
   is renamed over the target (``rename`` is atomic). On a file system without hard links the
   target name is claimed with ``O_CREAT | O_EXCL`` first and the temporary file renamed onto it;
4. no folder is created: the target's folder must exist (a folder the user names as an output,
   such as ``mlcost plan --plot FOLDER``, is created only if its parent exists, and only that one
   level: :func:`make_output_folder`);
5. the file's extension matches what is written (``suffixes``), or the write is refused.

A written file gets the permissions a plain ``open(path, "w")`` would give (``0o666`` less the
umask), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from mlcost.errors import MlcostError, SpecError

#: The largest input text file read (spec YAML, config.json, results.csv): 64 MiB. The biggest
#: real inputs (a bench results.csv of the full preset) are a few MB.
MAX_INPUT_BYTES = 64 * 2**20

#: Bytes the temporary file of an atomic write adds to the target's name: a leading dot, a dot,
#: and ``mkstemp``'s 8 random characters (``.NAME.XXXXXXXX``), so a target's name may be at most
#: the file system's limit less these.
TEMPORARY_NAME_EXTRA_BYTES = 10


#: The extensions of a spec or profile file (what YAML outputs must end in).
YAML = (".yaml", ".yml")


class OutputError(MlcostError):
    """An output path that the output rule (module docstring) refuses."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _shown(path: Path | str) -> str:
    """A path as an error line shows it: whole, unless it is very long (a 20,000-character
    name echoed back helps no one)."""
    text = str(path)
    return text if len(text) <= 300 else f"{text[:200]}...{text[-60:]}"


def _exists(path: Path) -> bool:
    """Whether ``path`` exists (False where it cannot even be looked up: a name too long)."""
    try:
        return path.exists()
    except OSError:
        return False


def _name_limit(folder: Path) -> int:
    """The longest file name ``folder``'s file system allows, in bytes (255 where it does not
    say)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.expanduser().resolve() == b.expanduser().resolve()


def check_output(
    path: str | Path,
    *,
    option: str = "path",
    suffixes: Iterable[str] = (),
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    folder: bool = False,
) -> Path:
    """Refuse, before any work, an output ``path`` that the output rule (module docstring)
    forbids; ``option`` names it in the one-line error (``--csv``, ``out``). With ``folder``,
    ``path`` is a folder to write files into: it may exist (as a folder), or be created by
    :func:`make_output_folder` when its parent exists. Returns the path."""
    target = Path(path).expanduser()
    shown = _shown(path)
    if not str(path).strip():
        raise OutputError(f"{option}: got an empty path; expected a file name")
    chain = (target, *target.parents)
    existing = next((p for p in chain if _exists(p)), Path("."))
    limit = _name_limit(existing if existing.is_dir() else existing.parent)
    longest = max(len(os.fsencode(p.name)) for p in chain)
    if longest > limit:
        raise OutputError(
            f"{option}: {shown}: a name of {longest} bytes; expected at most {limit} bytes per "
            "name on this file system; choose a shorter name"
        )
    name = len(os.fsencode(target.name))
    if not folder and name > limit - TEMPORARY_NAME_EXTRA_BYTES:
        raise OutputError(
            f"{option}: {shown}: a file name of {name} bytes; expected at most "
            f"{limit - TEMPORARY_NAME_EXTRA_BYTES} (this file system's {limit}, less the "
            "temporary name of the atomic write); choose a shorter name"
        )
    parent = target.parent
    if not parent.is_dir():
        what = "is a file" if _exists(parent) else "does not exist"
        raise OutputError(
            f"{option}: {_shown(parent)} {what}; expected an existing folder (mlcost creates "
            "no folders); create it first"
        )
    if folder:
        if _exists(target) and not target.is_dir():
            raise OutputError(f"{option}: {shown} is a file; expected a folder")
        return target
    if target.is_dir():
        raise OutputError(f"{option}: {shown} is a folder; expected a file path")
    wanted = tuple(s.lower() for s in suffixes)
    if wanted and target.suffix.lower() not in wanted:
        raise OutputError(
            f"{option}: {shown} ends in {target.suffix or 'no extension'!r}; expected "
            f"{' or '.join(wanted)} (what is written); name the file accordingly"
        )
    if _exists(target) or target.is_symlink():
        for given in inputs:
            if _exists(Path(given)) and _same_file(Path(given), target):
                raise OutputError(
                    f"{option}: {shown} is also an input of this command; expected a new file "
                    "(an input is never overwritten, even with --force); choose another name"
                )
        if not target.is_file():
            raise OutputError(
                f"{option}: {shown} exists and is not a regular file; expected a new file path"
            )
        if not force:
            raise OutputError(
                f"{option}: {shown} exists; expected a new file; choose another name, or "
                "--force (Python: force=True) to replace it"
            )
    return target


def make_output_folder(path: str | Path, *, option: str = "path") -> Path:
    """The output folder ``path`` (see :func:`check_output` with ``folder``), created if missing
    (one level: its parent must exist)."""
    target = check_output(path, option=option, folder=True)
    try:
        target.mkdir(exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{option}: {_shown(path)} is a file; expected a folder") from None
    return target


def write_output(
    path: str | Path,
    data: bytes | str,
    *,
    option: str = "path",
    suffixes: Iterable[str] = (),
    force: bool = False,
    inputs: Iterable[str | Path] = (),
) -> Path:
    """Write ``data`` (``str`` as UTF-8) to the new file ``path`` under the output rule (module
    docstring): checked (:func:`check_output`), then written to a temporary file and linked to
    its name in one step that fails if the name was taken meanwhile. Returns the path."""
    inputs = tuple(inputs)
    target = check_output(path, option=option, suffixes=suffixes, force=force, inputs=inputs)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        if force:
            # Checked again here: the input could have been linked to the name meanwhile.
            check_output(target, option=option, force=True, inputs=inputs)
            os.replace(temporary, target)
        else:
            _link_new(temporary, target, option)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return target


def _link_new(temporary: str, target: Path, option: str) -> None:
    """Give ``temporary``'s content the new name ``target``, failing if it exists."""
    taken = OutputError(
        f"{option}: {_shown(target)} was created by someone else while mlcost worked; expected "
        "a new file; choose another name, or --force to replace it"
    )
    try:
        os.link(temporary, target)
        return
    except FileExistsError:
        raise taken from None
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
    try:  # no hard links here: claim the name exclusively, then move the content onto it
        os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise taken from None
    os.replace(temporary, target)


def write_text_atomically(path: str | Path, text: str) -> None:
    """:func:`write_bytes_atomically` of ``text`` as UTF-8."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` atomically (temporary file in the same folder,
    then rename): for files mlcost manages itself (a bench results folder it resumes, the
    project's generated docs and data), never for a user's output (:func:`write_output`)."""
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


def read_input_bytes(path: str | Path, *, limit: int = MAX_INPUT_BYTES, what: str = "") -> bytes:
    """The bytes of a user's input file, at most ``limit``: looked at before it is opened, so
    a folder, FIFO, device or socket, or a file larger than ``limit``, is refused (one-line
    :class:`mlcost.errors.SpecError` naming the file) and never blocks."""
    file = Path(path)
    source = str(file)
    expected = what or "a file"
    try:
        info = os.stat(file)
    except OSError as error:
        raise SpecError(
            [f"cannot read the file ({error.strerror or error})"], source=source
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise SpecError([f"is a folder; expected {expected}"], source=source)
    if not stat.S_ISREG(info.st_mode):
        raise SpecError(
            [f"is not a regular file (a FIFO, device or socket); expected {expected}"],
            source=source,
        )
    if info.st_size > limit:
        raise SpecError(
            [f"is {info.st_size / 2**20:.0f} MiB, larger than {limit // 2**20} MiB; expected "
             f"{expected} of at most that size"],
            source=source,
        )  # fmt: skip
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):  # replaced since the stat
                raise SpecError(["is not a regular file; expected a file"], source=source)
            data = stream.read(limit + 1)
    except OSError as error:
        raise SpecError(
            [f"cannot read the file ({error.strerror or error})"], source=source
        ) from None
    if len(data) > limit:  # grew since the stat
        raise SpecError(
            [f"larger than {limit // 2**20} MiB; expected {expected} of at most that size"],
            source=source,
        )
    return data


def read_input_text(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a user's input file, at most ``limit`` bytes.

    Raises :class:`mlcost.errors.SpecError` (one line naming the file) for a file that cannot be
    read, is not a regular file, is larger than ``limit`` or is not UTF-8 text.
    """
    expected = "a text file (YAML, JSON or CSV)"
    data = read_input_bytes(path, limit=limit, what=expected)
    source = str(path)
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
