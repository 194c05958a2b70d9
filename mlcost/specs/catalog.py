"""Loading specs from YAML and looking them up by name.

The catalog is the folder ``specs/`` at the repository root (shipped inside the package as
``mlcost/_catalog`` when installed from a wheel): one YAML file per item. Users add their own
files with :meth:`Catalog.with_files` or load one with :func:`load_spec`.
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from mlcost.errors import (
    AmbiguousNameError,
    DefaultNameNote,
    SpecError,
    UnknownNameError,
    UnsourcedSpecNote,
)
from mlcost.io import read_input_text
from mlcost.specs import parsed
from mlcost.specs.base import Spec
from mlcost.specs.economics import Grid, Price
from mlcost.specs.formats import NumericFormat
from mlcost.specs.hardware import Accelerator, Cluster, Host, Link, Node, Storage
from mlcost.specs.hf import from_hf_config
from mlcost.specs.kinds import SPEC_TYPES, spec_from_dict
from mlcost.specs.models import ConvNetSpec, TransformerSpec
from mlcost.specs.software import Engine, Implementation, Kernel

#: What ``mlcost specs list GROUP`` lists: group -> the kinds in it (also the catalog folders).
GROUPS: dict[str, tuple[str, ...]] = {
    "accelerators": ("accelerator",),
    #: Profiles measured by ``mlcost bench`` and fitted by ``mlcost calibrate`` on real GPUs,
    #: shipped under their own names (raw results in ``benchmarks/data``).
    "measured": ("accelerator",),
    "links": ("link",),
    "storage": ("storage",),
    "hosts": ("host",),
    "systems": ("node", "cluster"),
    "models": ("transformer", "convnet"),
    "grids": ("grid",),
    "prices": ("price",),
    "formats": ("format",),
    "implementations": ("implementation",),
    "kernels": ("kernel",),
    "engines": ("engine",),
}

S = TypeVar("S", bound=Spec)
T = TypeVar("T")
#: How many settings :meth:`Catalog.derived` keeps per key (the latest ones).
_DERIVED_PER_KEY = 8


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


@functools.cache
def _strict_loader() -> type:
    """YAML's safe loader that refuses a key given twice in one mapping (plain YAML keeps the
    last value silently) and the non-finite floats ``.inf`` and ``.nan``; built on libyaml's
    parser where PyYAML has it (about 10x faster on the catalog), else PyYAML's pure-Python one
    (the construction, and its checks, are Python in both). PyYAML is imported here, on the
    first parse: a process that reads the catalog's kept specs (:mod:`mlcost.specs.parsed`)
    never needs it."""
    import yaml

    class StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    mark = key_node.start_mark
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} is given twice; expected each key once", mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_float(self, node: Any) -> float:
            value = super().construct_yaml_float(node)
            if value != value or value in (float("inf"), float("-inf")):
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"{node.value!r} is not a finite number; expected a finite number",
                    node.start_mark,
                )
            return value

    StrictLoader.add_constructor("tag:yaml.org,2002:float", StrictLoader.construct_yaml_float)
    return StrictLoader


def load_yaml_text(text: str, *, source: str | None = None) -> Any:
    """Parse YAML strictly (duplicate keys and ``.inf``/``.nan`` refused); every problem,
    syntax included, becomes a one-line :class:`SpecError` naming the line and column."""
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise SpecError([f"{where}not valid YAML ({problem})"], source=source) from None
    except RecursionError:
        raise SpecError(
            ["nested too deeply to be a spec; expected a mapping of fields"], source=source
        ) from None


def load_spec_text(text: str, *, source: str | None = None) -> Spec:
    """Parse YAML text into a spec; YAML problems become one-line :class:`SpecError`s."""
    return spec_from_dict(load_yaml_text(text, source=source), source=source)


def load_spec(path: str | Path) -> Spec:
    """Load one spec file (YAML) by path (bounded in size, UTF-8; see :func:`read_input_text`)."""
    return load_spec_text(read_input_text(path), source=str(path))


def default_catalog_dir() -> Path:
    """The built-in catalog: the wheel's ``mlcost/_catalog`` copy, else the repo's ``specs/``."""
    package_root = Path(__file__).resolve().parents[1]
    packaged = package_root / "_catalog"
    if packaged.is_dir():
        return packaged
    return package_root.parent / "specs"


def _read_files(
    files: Iterable[Path], *, require_sources: bool, group: str | None = None
) -> tuple[list[Spec], dict[str, str], list[str]]:
    """The specs of ``files``, the file each came from, and the problems found (a file that
    does not load, a number without a source with ``require_sources``, a spec filed under a
    ``group`` folder its kind does not belong to)."""
    specs, origins, problems = [], {}, []
    for file in files:
        try:
            spec = load_spec(file)
        except SpecError as error:
            problems.append(str(error))
            continue
        if require_sources and (missing := spec.unsourced_paths()):
            problems.append(f"{file}: numbers without a source: {', '.join(missing)}")
        if stray := [name for name in spec.default_for if name not in spec.defaults]:
            problems.append(
                f"{file}: default_for: {', '.join(map(repr, stray))} is not among aliases; "
                "expected aliases of this spec (add them to aliases)"
            )
        if group is not None and spec.KIND not in GROUPS[group]:
            problems.append(
                f"{file}: {_article(spec.KIND)} {spec.KIND} filed under {group}/; expected "
                f"{' or '.join(GROUPS[group])} there"
            )
        specs.append(spec)
        origins[spec.name.lower()] = str(file)
    return specs, origins, problems


class Catalog:
    """An immutable set of specs, looked up by name or alias, case-insensitively.

    A catalog read with ``lazy=True`` (:meth:`from_directory`; the built-in one) reads a group's
    folder (``models/``, ``accelerators/``, ...) when a lookup first needs that group, with the
    same checks as reading all at once: a command about one model reads a fifth of the files.
    What it holds never changes; only when it is read."""

    def __init__(
        self,
        specs: Iterable[Spec],
        origins: Mapping[str, str] | None = None,
        *,
        pending: Mapping[str, Iterable[Path]] | None = None,
        root: str | None = None,
        require_sources: bool = True,
        keep_parsed: Path | None = None,
    ) -> None:
        self._specs: dict[str, Spec] = {}
        self._aliases: dict[str, set[str]] = {}
        self._defaults: dict[str, str] = {}  # shared alias -> the key of its default entry
        self._origins = dict(origins or {})
        self._pending = {group: tuple(files) for group, files in (pending or {}).items()}
        self._failed: dict[str, SpecError] = {}
        self._root = root
        self._require_sources = require_sources
        self._keep_parsed = keep_parsed
        self._lock = threading.RLock()
        self._derived: dict[Hashable, list[tuple[Any, Any]]] = {}
        self._add(specs)

    def _add(self, specs: Iterable[Spec]) -> None:
        """Add ``specs`` (new dictionaries swapped in whole, so a lookup running meanwhile
        sees the catalog before or after, never half of it)."""
        found = dict(self._specs)
        aliases = {alias: set(keys) for alias, keys in self._aliases.items()}
        defaults = dict(self._defaults)
        problems = []
        for spec in specs:
            key = spec.name.lower()
            if key in found:
                problems.append(f"name {spec.name!r} is defined twice")
            found[key] = spec
            for alias in spec.aliases:
                aliases.setdefault(alias.lower(), set()).add(key)
            for alias in spec.defaults:
                if defaults.get(alias, key) != key:
                    problems.append(
                        f"default_for: {alias!r} is claimed by {defaults[alias]} and {key}; "
                        "expected one default per short name"
                    )
                defaults[alias] = key
        if problems:
            raise SpecError(problems, source=self._root)
        self._specs, self._aliases, self._defaults = found, aliases, defaults

    def _ensure(self, kinds: Iterable[str] | None = None) -> None:
        """Read the groups not read yet that hold any of ``kinds`` (all of them for None)."""
        if not self._pending and not self._failed:
            return
        wanted = None if kinds is None else set(kinds)
        with self._lock:
            for group in [*self._failed, *self._pending]:
                if wanted is None or wanted & set(GROUPS[group]):
                    self._read_group(group)

    def _read_group(self, group: str) -> None:
        if group in self._failed:  # the same error each time the group is needed
            raise self._failed[group]
        files = self._pending.pop(group, None)
        if files is None:  # read already (or being read: a reference back into it)
            return
        try:
            path = (
                parsed.cache_file(
                    self._keep_parsed, files, require_sources=self._require_sources, group=group
                )
                if self._keep_parsed is not None
                else None
            )
            kept = parsed.load(path)
            if kept is not None:
                specs, origins = kept
            else:
                specs, origins, problems = _read_files(
                    files, require_sources=self._require_sources, group=group
                )
                if problems:
                    raise SpecError(problems, source=self._root)
                parsed.save(path, specs, origins)
            self._add(specs)
            self._origins = {**self._origins, **origins}
            if dangling := self._dangling(specs):
                raise SpecError(dangling, source=self._root)
        except SpecError as error:
            self._failed[group] = error
            raise

    # ----- construction -----------------------------------------------------------------
    @classmethod
    def from_directory(
        cls,
        directory: str | Path,
        *,
        require_sources: bool = True,
        lazy: bool = False,
        keep_parsed: Path | None = None,
    ) -> Catalog:
        """Load every ``*.yaml`` below ``directory``. With ``require_sources`` (the built-in
        catalog), a number without a source is an error. With ``lazy``, where every file lies
        in a group's folder (``models/llama-2-7b.yaml``), each group is read on first need;
        with ``keep_parsed`` (a folder) too, each group's validated specs are kept there
        between processes (:mod:`mlcost.specs.parsed`; the built-in catalog's in the user's
        cache folder)."""
        root = Path(directory)
        if not root.is_dir():
            raise SpecError([f"catalog folder not found: {root}"])
        files = sorted(root.rglob("*.yaml"))
        groups: dict[str, list[Path]] = {}
        for file in files:
            parts = file.relative_to(root).parts
            groups.setdefault(parts[0] if len(parts) == 2 else "", []).append(file)
        if lazy and set(groups) <= set(GROUPS):
            return cls(
                (), pending=groups, root=str(root), require_sources=require_sources,
                keep_parsed=keep_parsed,
            )  # fmt: skip
        specs, origins, problems = _read_files(files, require_sources=require_sources)
        if problems:
            raise SpecError(problems, source=str(root))
        catalog = cls(specs, origins)
        if dangling := catalog.dangling_references():
            raise SpecError(dangling, source=str(root))
        return catalog

    def derived(self, key: Hashable, settings: Any, build: Callable[[], T]) -> T:
        """What ``build`` makes of this catalog's specs for ``key`` and ``settings`` (compared by
        equality, so an unhashable pydantic model may be one), built on first need and kept:
        a resolved object (:func:`mlcost.systems.system`) converts its specs' units once per
        catalog, not once per call. ``build`` must depend on nothing else."""
        with self._lock:
            kept = self._derived.setdefault(key, [])
            for known, value in kept:
                if known == settings:
                    return cast(T, value)
            value = build()
            kept.append((settings, value))
            del kept[:-_DERIVED_PER_KEY]
            return value

    def with_specs(self, *specs: Spec) -> Catalog:
        """A new catalog with ``specs`` added (replacing same-named entries)."""
        self._ensure()
        merged = {s.name.lower(): s for s in self._specs.values()}
        merged.update({s.name.lower(): s for s in specs})
        return Catalog(merged.values(), self._origins)

    def with_files(self, *paths: str | Path) -> Catalog:
        """A new catalog with the spec files (or folders of them) at ``paths`` added."""
        specs: list[Spec] = []
        for path in paths:
            p = Path(path)
            files = sorted(p.rglob("*.yaml")) if p.is_dir() else [p]
            specs += [load_spec(f) for f in files]
        return self.with_specs(*specs)

    # ----- lookup -----------------------------------------------------------------------
    def get(self, name: str, kinds: Iterable[str] | None = None) -> Spec:
        """The spec called ``name`` (canonical name or alias), optionally of the given kinds."""
        wanted = tuple(kinds) if kinds is not None else tuple(SPEC_TYPES)
        what = "/".join(wanted) if kinds is not None else "spec"
        key = name.strip().lower()
        self._ensure(wanted)
        spec = self._specs.get(key)
        if spec is not None and spec.KIND in wanted:
            return spec
        candidates = sorted(n for n in self._aliases.get(key, ()) if self._specs[n].KIND in wanted)
        if len(candidates) == 1:
            return self._specs[candidates[0]]
        default = self._defaults.get(key)
        if candidates and default in candidates:
            chosen = self._specs[default]
            others = [self._specs[n].name for n in candidates if n != default]
            warnings.warn(
                f"{name} → {chosen.name} ({chosen.display_name or chosen.name}); say "
                + (f"{', '.join(others[:-1])} or " if others[:-1] else "")
                + f"{others[-1]} for {'another' if others[:-1] else 'the other'}",
                DefaultNameNote,
                stacklevel=2,
            )
            return chosen
        if candidates:
            raise AmbiguousNameError(what, name, [self._specs[n].name for n in candidates])
        self._ensure()  # not found: the message names a spec of another kind, or the choices
        spec = self._specs.get(key)
        other = spec or next((self._specs[n] for n in self._aliases.get(key, ())), None)
        if other is not None:
            raise SpecError(
                [
                    f"{name!r} is {_article(other.KIND)} {other.KIND} ({other.name}), expected "
                    f"{_article(wanted[0])} {' or '.join(wanted)}"
                ]
            )
        known = [s.name for s in self._specs.values() if s.KIND in wanted]
        known += [
            a for a, ns in self._aliases.items() if any(self._specs[n].KIND in wanted for n in ns)
        ]
        raise UnknownNameError(what, name, known)

    def _typed(self, name: str, cls: type[S]) -> S:
        return cast(S, self.get(name, (cls.KIND,)))

    def accelerator(self, name: str) -> Accelerator:
        return self._typed(name, Accelerator)

    def link(self, name: str) -> Link:
        return self._typed(name, Link)

    def storage(self, name: str) -> Storage:
        return self._typed(name, Storage)

    def host(self, name: str) -> Host:
        return self._typed(name, Host)

    def node(self, name: str) -> Node:
        return self._typed(name, Node)

    def cluster(self, name: str) -> Cluster:
        return self._typed(name, Cluster)

    def grid(self, name: str) -> Grid:
        return self._typed(name, Grid)

    def price(self, name: str) -> Price:
        return self._typed(name, Price)

    def numeric_format(self, name: str) -> NumericFormat:
        return self._typed(name, NumericFormat)

    def implementation(self, name: str) -> Implementation:
        return self._typed(name, Implementation)

    def kernel(self, name: str) -> Kernel:
        return self._typed(name, Kernel)

    def engine(self, name: str) -> Engine:
        return self._typed(name, Engine)

    def model(self, name: str) -> TransformerSpec | ConvNetSpec:
        return cast("TransformerSpec | ConvNetSpec", self.get(name, ("transformer", "convnet")))

    def transformer(self, name: str) -> TransformerSpec:
        return self._typed(name, TransformerSpec)

    def resolve(self, name_or_path: str | Path, kinds: Iterable[str] | None = None) -> Spec:
        """A catalog name or alias, a spec YAML path, or (for models) a Hugging Face
        ``config.json`` path: the one resolver behind every ``model``/``gpu``/``system``
        argument, in Python and on the command line. (``os.path`` on the text: what
        ``Path(text).suffix`` and ``.is_file()`` answer here, at half the cost per lookup.)"""
        text = str(name_or_path)
        suffix = os.path.splitext(text)[1].lower() if "." in text else ""
        if suffix in (".yaml", ".yml") or (suffix != ".json" and os.path.isfile(text)):
            spec = load_spec(Path(text))
            unsourced = spec.unsourced_paths()
            if unsourced:  # the stated rule: UnsourcedSpecNote
                shown = ", ".join(unsourced[:6]) + (" ..." if len(unsourced) > 6 else "")
                warnings.warn(
                    f"{text}: {len(unsourced)} number(s) without a source ({shown}); used as "
                    "given ('mlcost specs validate' refuses it)",
                    UnsourcedSpecNote,
                    stacklevel=2,
                )
        elif suffix == ".json":
            spec = from_hf_config(Path(text))
        else:
            return self.get(text, kinds)
        wanted = tuple(kinds) if kinds is not None else tuple(SPEC_TYPES)
        if spec.KIND not in wanted:
            raise SpecError(
                [f"kind: got {spec.KIND!r}, expected {' or '.join(wanted)}"], source=text
            )
        return spec

    def element_bytes(self, compute_format: str) -> float:
        """Bytes per element of the operands of a compute format (``fp8`` -> 1, ``tf32`` -> 4,
        stored as FP32): the storage size of the catalog's numeric formats computing in it."""
        self._ensure(GROUPS["formats"])
        sizes = {
            s.storage_bits / 8
            for s in self._specs.values()
            if isinstance(s, NumericFormat) and s.compute_format == compute_format
        }
        if len(sizes) != 1:
            raise UnknownNameError(
                "compute format",
                compute_format,
                sorted(
                    {s.compute_format for s in self._specs.values() if isinstance(s, NumericFormat)}
                ),
            )
        return sizes.pop()

    def standard_node(self, accelerator: Accelerator | str) -> Node | None:
        """The catalog node sold with ``accelerator`` (or taking it, ``compatible_accelerators``):
        the system a plan assumes when given only a GPU. A calibrated profile maps to the node of
        the GPU it was measured on (``measured.based_on``)."""
        gpu = accelerator if isinstance(accelerator, Accelerator) else self.accelerator(accelerator)
        names = {gpu.name}
        if gpu.measured is not None and gpu.measured.based_on:
            names.add(gpu.measured.based_on)
        self._ensure(GROUPS["systems"])
        nodes = [s for s in self._specs.values() if isinstance(s, Node)]
        for node in sorted(nodes, key=lambda n: n.name):
            if node.accelerator in names:
                return node
        for node in sorted(nodes, key=lambda n: n.name):
            if names & set(node.compatible_accelerators):
                return node
        return None

    def prices_for(self, accelerator: str) -> list[Price]:
        """Cloud price entries for an accelerator, newest first."""
        name = self.accelerator(accelerator).name

        def newest_first() -> tuple[Price, ...]:
            self._ensure(GROUPS["prices"])
            found = [
                s for s in self._specs.values() if isinstance(s, Price) and s.accelerator == name
            ]
            return tuple(sorted(found, key=lambda p: p.date, reverse=True))

        return list(self.derived(("prices", name), None, newest_first))

    def items(self, group: str | None = None) -> list[Spec]:
        """All specs, or those of one group (``accelerators``, ``models``, ...), by name."""
        if group is None:
            kinds: tuple[str, ...] = tuple(SPEC_TYPES)
        else:
            key = group.strip().lower()
            if key not in GROUPS:
                raise UnknownNameError("group", group, GROUPS)
            kinds = GROUPS[key]
        self._ensure(kinds)
        specs = [s for s in self._specs.values() if s.KIND in kinds]
        if group is not None and any(
            other != key and set(kinds) & set(GROUPS[other]) for other in GROUPS
        ):
            # Two folders hold this kind (accelerators/ and measured/): the group lists its own
            # folder's specs (and those given in code, which have no folder).
            specs = [s for s in specs if self._folder(s.name) in (key, None)]
        return sorted(specs, key=lambda s: s.name)

    def _folder(self, name: str) -> str | None:
        """The catalog folder a spec was read from (None: given in code)."""
        origin = self._origins.get(name.lower())
        return None if origin is None else Path(origin).parent.name

    def names(self, group: str | None = None) -> list[str]:
        return [s.name for s in self.items(group)]

    def origin(self, name: str) -> str | None:
        """The file a spec was loaded from, if any."""
        self._ensure()
        return self._origins.get(name.lower())

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return isinstance(name, str) and name.lower() in self._specs

    def __len__(self) -> int:
        self._ensure()
        return len(self._specs)

    def dangling_references(self) -> list[str]:
        """Problems with names that nodes, clusters and prices refer to."""
        self._ensure()
        return self._dangling(self._specs.values())

    def _dangling(self, specs: Iterable[Spec]) -> list[str]:
        problems = []
        for spec in specs:
            refs = getattr(spec, "references_to", None)
            if refs is None:
                continue
            for kind, target in refs():
                try:
                    self.get(target, (kind,))
                except (UnknownNameError, AmbiguousNameError) as error:
                    problems.append(f"{spec.name}: {error}")
        return problems


@functools.lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The built-in catalog (immutable; each group's folder read once, on first need)."""
    return Catalog.from_directory(
        default_catalog_dir(), lazy=True, keep_parsed=parsed.default_folder()
    )


def as_model(
    model: Spec | str | Path, catalog: Catalog | None = None
) -> TransformerSpec | ConvNetSpec:
    """A model spec as given, or resolved from a catalog name or a spec/``config.json`` path."""
    spec = (
        model
        if isinstance(model, Spec)
        else (catalog if catalog is not None else default_catalog()).resolve(
            model, ("transformer", "convnet")
        )
    )
    if not isinstance(spec, (TransformerSpec, ConvNetSpec)):
        raise SpecError([f"model: {spec.name!r} is a {spec.KIND}, expected a model"])
    return spec


def as_accelerator(gpu: Spec | str | Path, catalog: Catalog | None = None) -> Accelerator:
    """An accelerator spec as given, or resolved from a catalog name or a spec path (a profile
    written by ``mlcost calibrate`` included)."""
    spec = (
        gpu
        if isinstance(gpu, Spec)
        else (catalog if catalog is not None else default_catalog()).resolve(gpu, ("accelerator",))
    )
    if not isinstance(spec, Accelerator):
        raise SpecError([f"gpu: {spec.name!r} is a {spec.KIND}, expected an accelerator"])
    return spec
