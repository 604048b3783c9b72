"""Results that come out the same on every start, kept on disk so a restarted server does not compute them again.

The Training lab's runs, the pronoun page's built-in test set and the meaning page's built-in word sets are
deterministic: the same code, model files and numpy give the same numbers. Computing them takes about 2
CPU-seconds after every start, and the first visitor's pages were drawn 10-20 % slower beside that work
(measured in bench/run.py's Chromium journey). So each result is also written here, and read back on the next start instead of computed.
(What a visitor types is never written here: serving/shared.py keeps only the built-in sets.)

An entry is found only by a fingerprint of everything that could change its numbers: the source of attention/,
of lessons/ (what the pages measure) and of the modules that call them with the pages' settings, the model's files (any rewrite of a file changes its
change time) and backend, the versions of numpy, its BLAS library and the other libraries a pass uses. Change
any of them and the entry is not read; an entry nobody reads for 30 days is removed. Entries are .npz files
read without pickle, so a file can at worst hold wrong numbers, never run code; the folder must be a directory
of this user's that nobody else may write to, or nothing is kept. Only files named like an entry are removed.

Where: $ATTENTION_CACHE_DIR, else $XDG_CACHE_HOME/attention-explainer, else ~/.cache/attention-explainer.
ATTENTION_CACHE_DIR=off keeps nothing on disk. Any failure (a read-only home, a full disk, a damaged file)
only means the result is computed, as without this module.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import logging
import os
import re
import stat
import tempfile
import time
import types
import typing
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lessons import meaning, pronoun, training

_LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "ATTENTION_CACHE_DIR"
# Per kind. A Training lab main run is up to 1.6 MB (its d_k = 512 weights), a comparison run a few kB. Every
# Training lab setting of one model is 108 entries (42 main runs, 22 comparison runs per task).
MAX_ENTRIES = 128
UNUSED_DAYS = 30           # an entry nobody read for this long leaves (another code version's, another model's)
# Nothing else in the folder is ever removed.
ENTRY_NAME = re.compile(r"(training|pronoun|meaning)-[0-9a-f]{20}-[0-9a-f]{24}\.npz")
# The code whose change can change a stored number: the numpy core, the lessons that measure with it (the training
# loop, the pronoun scoring, the meaning measurement) and the modules that choose their settings, read when this
# module is imported (the code this process runs, not what a later edit put on disk). All of lessons/, not a list
# of its files: when training moved from attention/ to lessons/, a list kept naming the old place.
# lessons/data/ too: the sentence sets a head is chosen and checked on are data, and a result depends on them.
CODE_FILES = (*sorted((_ROOT / "attention").glob("*.py")), *sorted((_ROOT / "lessons").glob("*.py")),
              *sorted((_ROOT / "lessons" / "data").glob("*")), _ROOT / "serving" / "shared.py", Path(__file__))
# The libraries a number can depend on besides numpy (the tokenizer's splits; the PyTorch backend).
LIBRARIES = ("tokenizers", "torch", "transformers", "sentence-transformers", "safetensors")
# Only these classes are rebuilt from a file.
STORABLE = {cls.__name__: cls for cls in (training.TrainingRun, training.HeadParams, pronoun.Scoreboard,
                                          meaning.Measurement, meaning.Missing)}
# What a file may be before it is read: the largest entry is a main run at d_k = 512 (1.6 MB of weights), and an
# .npz is a zip whose members may expand far beyond the file (a 1.17 MB entry with an extra member expanded to
# 1.2 GB): both the file and the sum of its members' sizes are bounded, and so is the number of members.
MAX_ENTRY_BYTES = 8 * 2**20
MAX_EXPANDED_BYTES = 16 * 2**20
MAX_MEMBERS = 64


def cache_folder() -> Path | None:
    """The folder entries live in, made if need be; None when nothing may be kept (see the module's text)."""
    setting = os.environ.get(CACHE_ENV)
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "none"):
        return None
    if setting:
        folder = Path(setting).expanduser()
    else:
        folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attention-explainer"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    # Files here are trusted to hold the model's numbers: only this user may have written them.
    private = info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if not (stat.S_ISDIR(info.st_mode) and private and os.access(folder, os.W_OK | os.X_OK)):
        _LOGGER.warning("not keeping results in %s: it must be a folder of this user that only this user may "
                        "write to (or set %s)", folder, CACHE_ENV)
        return None
    return folder


def code_digest(code_files=CODE_FILES) -> str:
    digest = hashlib.sha256()
    for path in code_files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


_CODE_DIGEST = code_digest()


def _library_versions() -> str:
    from importlib import metadata

    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=none")
    return ",".join(versions)


@functools.lru_cache(maxsize=8)
def fingerprint(model_path: str, code: str = _CODE_DIGEST) -> str:
    """A digest of the code, the model's files, numpy, its BLAS and the other libraries: the part of every
    entry's name that must match. A model file's size, modification and change times stand for its contents
    (any rewrite changes its change time; hashing 90 MB would cost the start ~0.15 s)."""
    digest = hashlib.sha256(code.encode())
    model_files = sorted(p for p in Path(model_path).rglob("*") if p.is_file())
    for path in model_files:
        info = path.stat()
        digest.update(f"{path.relative_to(model_path)}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}\0"
                      .encode())
    digest.update(np.__version__.encode() + _library_versions().encode())
    try:
        from threadpoolctl import threadpool_info

        digest.update(repr(sorted((pool.get("internal_api"), pool.get("version"), pool.get("architecture"))
                                  for pool in threadpool_info() if pool.get("user_api") == "blas")).encode())
    except ImportError:  # without it, BLAS builds are told apart by numpy's version alone
        pass
    return digest.hexdigest()[:20]


def _entry_name(kind: str, key: tuple, stamp: str) -> str:
    return f"{kind}-{stamp}-{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}.npz"


def _list_kind(item: list) -> str:
    """How a list field is stored: numbers as a float array (the Training lab's losses), whole numbers as an int
    array, words as a unicode array (never pickled), dataclasses of STORABLE one by one."""
    if item and all(isinstance(x, str) for x in item):
        return "str"
    if item and all(isinstance(x, int) and not isinstance(x, bool) for x in item):
        return "int"
    if item and all(dataclasses.is_dataclass(x) for x in item):
        return "nested"
    return "float"


def to_arrays(value: Any, prefix: str = "") -> tuple[dict[str, np.ndarray], dict]:
    """A dataclass of STORABLE as named arrays plus a description of the rest (scalars, which fields were
    lists, and of what, or {int: array} dicts, nested dataclasses), which from_arrays turns back into an equal
    value."""
    arrays, layout = {}, {"class": type(value).__name__, "scalars": {}, "lists": {}, "dicts": {}, "nested": {}}
    if layout["class"] not in STORABLE:
        raise TypeError(f"cannot store a {layout['class']}")
    for field in dataclasses.fields(value):
        item, name = getattr(value, field.name), prefix + field.name
        if item is None or isinstance(item, (str, int, float, bool)):
            layout["scalars"][field.name] = item
        elif isinstance(item, np.ndarray):
            arrays[name] = item
        elif isinstance(item, list):
            kind = _list_kind(item)
            if kind == "nested":
                layouts = []
                for index, element in enumerate(item):
                    element_arrays, element_layout = to_arrays(element, f"{name}.{index}.")
                    arrays.update(element_arrays)
                    layouts.append(element_layout)
                layout["lists"][field.name] = layouts
            else:
                arrays[name] = np.array(item, dtype={"str": str, "int": np.int64, "float": float}[kind])
                layout["lists"][field.name] = kind
        elif isinstance(item, dict):
            layout["dicts"][field.name] = sorted(item)
            arrays.update({f"{name}.{key}": array for key, array in item.items()})
        else:
            nested_arrays, layout["nested"][field.name] = to_arrays(item, name + ".")
            arrays.update(nested_arrays)
    return arrays, layout


def from_arrays(arrays, layout: dict, prefix: str = "") -> Any:
    values = dict(layout["scalars"])
    for name, kind in layout["lists"].items():
        if isinstance(kind, list):
            values[name] = [from_arrays(arrays, element, f"{prefix}{name}.{index}.")
                            for index, element in enumerate(kind)]
        else:
            values[name] = arrays[prefix + name].tolist()  # as stored: load() then checks each against its field
    for name, keys in layout["dicts"].items():
        values[name] = {key: arrays[f"{prefix}{name}.{key}"] for key in keys}
    for name, nested in layout["nested"].items():
        values[name] = from_arrays(arrays, nested, f"{prefix}{name}.")
    cls = STORABLE[layout["class"]]
    for field in dataclasses.fields(cls):
        if field.name not in values and prefix + field.name in arrays:
            values[field.name] = arrays[prefix + field.name]
    return cls(**values)


# Numbers that may honestly be NaN or infinite in a stored value; every other number must be finite. A mean over
# an empty group is NaN; a run that diverged (its loss became infinite) may hold anything after that step.
# A diverged run stopped at its first non-finite loss: what was measured at the start and every loss before the
# last stays finite (diverged = true once let a file's NaN losses past this check).
_EMPTY_GROUP_MEANS = {"start_row_grad_saturated", "start_row_grad_other"}
_AFTER_DIVERGING = {"losses", "snapshots", "params", "final_loss", "final_on_target", "final_accuracy",
                    "final_saturated", "heldout_loss"}
MAY_BE_NONFINITE: dict[str, Callable[[Any], set[str]]] = {
    "TrainingRun": lambda run: _EMPTY_GROUP_MEANS | (_AFTER_DIVERGING if run.diverged is True else set()),
}
MUST_HOLD: dict[str, Callable[[Any], bool]] = {
    "TrainingRun": lambda run: run.diverged is not True or (
        len(run.losses) > 0 and bool(np.isfinite(np.asarray(run.losses[:-1], dtype=float)).all())
        and not np.isfinite(float(run.losses[-1]))),
}


def _all_finite(item: Any) -> bool:
    if isinstance(item, dict):
        return all(_all_finite(v) for v in item.values())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return is_valid(item)
    if isinstance(item, (float, np.floating, np.ndarray, list)):
        array = np.asarray(item)
        return not np.issubdtype(array.dtype, np.number) or bool(np.isfinite(array).all())
    return True


def is_valid(value: Any) -> bool:
    """Every number of a stored value finite, except where its class allows otherwise (MAY_BE_NONFINITE): a file
    read back well-formed may still hold NaN ("The loss starts at nan"), which must be computed again instead."""
    allowed = MAY_BE_NONFINITE.get(type(value).__name__, lambda _: set())(value)
    if not MUST_HOLD.get(type(value).__name__, lambda _: True)(value):
        return False
    return all(_all_finite(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in allowed)


def _type_fits(item: Any, hint: Any) -> bool:
    """Whether a field's value is what its class declares (str, int, float, bool, list of floats, dict, a numeric
    array, a nested STORABLE, or None where allowed)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return any(_type_fits(item, option) for option in typing.get_args(hint))
    if hint is type(None):
        return item is None
    if hint is bool:
        return isinstance(item, bool)
    if hint is int:
        return isinstance(item, int) and not isinstance(item, bool)
    if hint is float:
        return isinstance(item, float)
    if hint is str:
        return isinstance(item, str)
    if hint is list:
        return isinstance(item, list) and all(isinstance(x, float) for x in item)
    if typing.get_origin(hint) is list:  # list[str], list[int], list[Missing]
        (element,) = typing.get_args(hint)
        return isinstance(item, list) and all(_type_fits(x, element) for x in item)
    if hint is dict:
        return isinstance(item, dict)
    if hint is np.ndarray:
        return isinstance(item, np.ndarray) and (np.issubdtype(item.dtype, np.number) or item.dtype == bool)
    return isinstance(hint, type) and isinstance(item, hint)


def _fields_fit(value: Any) -> bool:
    hints = typing.get_type_hints(type(value))

    def nested_fit(item: Any) -> bool:
        if isinstance(item, list):
            return all(nested_fit(x) for x in item)
        return not dataclasses.is_dataclass(item) or _fields_fit(item)

    return all(_type_fits(getattr(value, f.name), hints[f.name]) and nested_fit(getattr(value, f.name))
               for f in dataclasses.fields(value))


def _matrix(item: Any, rows: int | None = None, columns: int | None = None) -> bool:
    return (isinstance(item, np.ndarray) and item.ndim == 2 and np.issubdtype(item.dtype, np.floating)
            and rows in (None, item.shape[0]) and columns in (None, item.shape[1]))


def _run_fits(run: training.TrainingRun, model) -> bool:
    """A Training lab run's shapes: a loss per step (fewer only if it diverged), square snapshots of one size at
    steps it took, the watched sentence's ids of that size, weights of its d_k."""
    n = {m.shape[0] for m in run.snapshots.values() if isinstance(m, np.ndarray)}
    params = run.params
    return (run.d_k > 0 and run.steps >= 0 and 1 <= len(run.losses) <= run.steps + 1
            and (run.diverged or len(run.losses) == run.steps + 1)
            and all(isinstance(step, int) and 0 <= step < len(run.losses) and _matrix(m) and m.shape[0] == m.shape[1]
                    for step, m in run.snapshots.items()) and len(n) <= 1
            and (run.shown_ids is None or (run.shown_ids.ndim == 1 and np.issubdtype(run.shown_ids.dtype, np.integer)
                                           and (not n or run.shown_ids.shape[0] in n)))
            and (params is None or (_matrix(params.w_q, model.d_model, run.d_k) and
                                    _matrix(params.w_k, model.d_model, run.d_k) and _matrix(params.w_v, model.d_model))))


def _scoreboard_fits(board: pronoun.Scoreboard, model) -> bool:
    """The pronoun test set's counts: one per layer and head, each within the number of sentences or pairs."""
    shape = (model.n_layers, model.n_heads)
    return (all(isinstance(a, np.ndarray) and a.shape == shape and np.issubdtype(a.dtype, np.integer)
                for a in (board.head_correct, board.head_pairs))
            and 0 <= board.head_correct.min() and board.head_correct.max() <= board.n_sentences
            and 0 <= board.head_pairs.min() and board.head_pairs.max() <= board.n_pairs
            and all(0 <= count <= board.n_sentences for count in (board.nearest_correct, board.subject_correct)))


def _measurement_fits(measured: meaning.Measurement, model) -> bool:
    """A meaning measurement's shapes: one entry per measured sentence in every per-sentence field, an m x m
    similarity and a number for every layer (the embeddings and each of the model's layers), a head's cost for each
    head when the word's meanings separate, shares between 0 and 1."""
    m, layers = len(measured.sentences), model.n_layers + 1

    def per_layer(item: Any, *shape: int) -> bool:
        return isinstance(item, np.ndarray) and item.shape == (layers, *shape) and np.issubdtype(item.dtype, np.floating)

    def heads(item: Any) -> bool:
        return (item is None) == (measured.growth_layer is None) and (
            item is None or (isinstance(item, np.ndarray) and item.shape == (model.n_heads,)))

    return (m >= 2 and measured.meaning.shape == (m,) and set(np.unique(measured.meaning)) <= {0, 1}
            and len(measured.numbers) == len(measured.first_token) == m
            and all(per_layer(a, m, m) for a in (measured.similarity, measured.similarity_knocked_out))
            and all(per_layer(a) for a in (measured.separation, measured.separation_knocked_out,
                                           measured.accuracy, measured.accuracy_knocked_out))
            and all(0.0 <= a.min() and a.max() <= 1.0 for a in (measured.accuracy, measured.accuracy_knocked_out))
            and 0.0 <= measured.chance <= 1.0
            and (measured.growth_layer is None or 1 <= measured.growth_layer < layers)
            and heads(measured.head_costs) and heads(measured.head_separation)
            and all(missing.group in (0, 1) for missing in measured.missing))


# The class each kind stores, and its shapes (for the model the entry was computed with).
KINDS: dict[str, tuple[type, Callable[[Any, Any], bool]]] = {
    "training": (training.TrainingRun, _run_fits),
    "pronoun": (pronoun.Scoreboard, _scoreboard_fits),
    "meaning": (meaning.Measurement, _measurement_fits),
}


def fits(kind: str, value: Any, model) -> bool:
    """Every field of the type its class declares and of the shape the kind needs: a file written by hand may hold
    anything well-formed (a float where an array belongs, a matrix of the wrong size), which drew silently wrong
    pictures or crashed a page."""
    cls, shapes = KINDS[kind]
    return type(value) is cls and _fields_fit(value) and is_valid(value) and bool(shapes(value, model))


def _read_entry(path: Path) -> dict[str, np.ndarray]:
    """An entry's arrays, read only from a regular file of a bounded size whose members expand to a bounded size:
    never a symlink (O_NOFOLLOW), never a pipe or device (opened without blocking, then refused: a named pipe in an
    entry's place once hung every page that read it), never more than MAX_ENTRY_BYTES read."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_ENTRY_BYTES:
            raise ValueError(f"{info.st_size} bytes, more than an entry may have")
        with os.fdopen(handle, "rb", closefd=False) as file:
            data = file.read(MAX_ENTRY_BYTES + 1)
    finally:
        os.close(handle)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError("grew past the bound while read")
    arrays = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS or sum(m.file_size for m in members) > MAX_EXPANDED_BYTES:
            raise ValueError("its members expand past the bound")
        for member in members:
            if not member.filename.endswith(".npy"):
                raise ValueError(f"a member that is not an array: {member.filename!r}")
            with archive.open(member) as stream:
                version = np.lib.format.read_magic(stream)
                shape, _, dtype = (np.lib.format.read_array_header_1_0(stream) if version == (1, 0)
                                   else np.lib.format.read_array_header_2_0(stream))
                # the header's shape, not only the zip's size field, decides what numpy allocates
                if dtype.hasobject or int(np.prod(shape, dtype=np.int64)) * dtype.itemsize > member.file_size:
                    raise ValueError(f"{member.filename!r} claims more than it holds")
            with archive.open(member) as stream:
                arrays[member.filename[:-4]] = np.lib.format.read_array(stream, allow_pickle=False)
    return arrays


def load(kind: str, key: tuple, stamp: str, model=None) -> Any | None:
    """The stored value for key, or None (none stored, no folder, or a file that is not a regular file of a bounded
    size, does not read back, or holds a field of the wrong type or shape for model)."""
    folder = cache_folder()
    if folder is None:
        return None
    path = folder / _entry_name(kind, key, stamp)
    try:
        stored = _read_entry(path)
        meta = json.loads(str(stored.pop("__meta__")))
        if meta["key"] != repr(key) or meta["stamp"] != stamp:
            return None
        value = from_arrays(stored, meta["layout"])
        if not is_valid(value):
            _LOGGER.warning("%s holds a number that must be finite and is not; computing it instead", path)
            return None
        if model is not None and not fits(kind, value, model):
            _LOGGER.warning("%s holds a field of the wrong type or shape; computing it instead", path)
            return None
        os.utime(path)  # its modification time is its last use: the least recently used leave first
        return value
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file: compute instead (and overwrite it)
        _LOGGER.warning("could not read %s; computing it instead", path, exc_info=True)
        return None


def _last_used(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:  # another server removed it meanwhile
        return 0


def _tidy(folder: Path, kind: str) -> None:
    """Remove the entries nobody read for UNUSED_DAYS, the least recently used of this kind beyond MAX_ENTRIES,
    and half-written files a killed process left (entries of other code versions or models stay while used)."""
    now = time.time_ns()
    for path in folder.glob(".writing-*.npz"):
        if _last_used(path) < now - 3600 * 10**9:
            path.unlink(missing_ok=True)
    last_used = {p: _last_used(p) for p in folder.iterdir() if ENTRY_NAME.fullmatch(p.name)}
    this_kind = sorted((p for p in last_used if p.name.startswith(f"{kind}-")), key=last_used.get)
    surplus = set(this_kind[:max(len(this_kind) - MAX_ENTRIES, 0)])
    for path, used in last_used.items():
        if path in surplus or used < now - UNUSED_DAYS * 86400 * 10**9:
            path.unlink(missing_ok=True)


def save(kind: str, key: tuple, stamp: str, value: Any) -> None:
    """Store value for key (written to a temporary file, then renamed: a reader never sees half a file), then
    tidy the folder (_tidy)."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        arrays, layout = to_arrays(value)
        meta = json.dumps({"key": repr(key), "stamp": stamp, "layout": layout})
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-", suffix=".npz")
        try:
            with os.fdopen(handle, "wb") as file:
                np.savez(file, __meta__=np.array(meta), **arrays)
            os.replace(temporary, folder / _entry_name(kind, key, stamp))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _tidy(folder, kind)
    except Exception:  # keeping a copy is optional; the value itself is fine
        _LOGGER.warning("could not keep a result in %s", folder, exc_info=True)


def stored(kind: str, key: tuple, model, compute: Callable[[], Any]) -> Any:
    """compute(), or its value from an earlier start with the same code, model files, backend and numpy (model:
    the attention.model.AttentionModel the value was computed with)."""
    key, stamp = (*key, model.backend), fingerprint(model.path)
    value = load(kind, key, stamp, model)
    if value is None:
        value = compute()
        save(kind, key, stamp, value)
    return value
