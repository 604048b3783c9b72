"""Results that come out the same on every start, kept on disk so a restarted server does not compute them again.

The Training lab's runs and the pronoun page's built-in test set are deterministic: the same code, model files
and numpy give the same numbers. Computing them takes about 2 CPU-seconds after every start, and the first
visitor's pages were drawn 10-20 % slower beside that work (bench/run.py --floor). So each result is also
written here, and read back on the next start instead of computed.

An entry is found only by a fingerprint of everything that could change its numbers: the source of attention/
and of the modules that call it with the pages' settings, the model's files (any rewrite of a file changes its
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
import json
import logging
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lessons import pronoun, training

_LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "ATTENTION_CACHE_DIR"
# Per kind. A Training lab main run is up to 1.6 MB (its d_k = 512 weights), a comparison run a few kB. Every
# Training lab setting of one model is 108 entries (42 main runs, 22 comparison runs per task).
MAX_ENTRIES = 128
UNUSED_DAYS = 30           # an entry nobody read for this long leaves (another code version's, another model's)
# Nothing else in the folder is ever removed.
ENTRY_NAME = re.compile(r"(training|pronoun)-[0-9a-f]{20}-[0-9a-f]{24}\.npz")
# The code whose change can change a stored number: the numpy core and the modules that choose its settings,
# read when this module is imported (the code this process runs, not what a later edit put on disk).
CODE_FILES = (*sorted((_ROOT / "attention").glob("*.py")), _ROOT / "serving" / "shared.py", Path(__file__))
# The libraries a number can depend on besides numpy (the tokenizer's splits; the PyTorch backend).
LIBRARIES = ("tokenizers", "torch", "transformers", "sentence-transformers", "safetensors")
# Only these classes are rebuilt from a file.
STORABLE = {cls.__name__: cls for cls in (training.TrainingRun, training.HeadParams, pronoun.Scoreboard)}


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


def to_arrays(value: Any, prefix: str = "") -> tuple[dict[str, np.ndarray], dict]:
    """A dataclass of STORABLE as named arrays plus a description of the rest (scalars, which fields were
    lists or {int: array} dicts, nested dataclasses), which from_arrays turns back into an equal value."""
    arrays, layout = {}, {"class": type(value).__name__, "scalars": {}, "lists": [], "dicts": {}, "nested": {}}
    if layout["class"] not in STORABLE:
        raise TypeError(f"cannot store a {layout['class']}")
    for field in dataclasses.fields(value):
        item, name = getattr(value, field.name), prefix + field.name
        if item is None or isinstance(item, (str, int, float, bool)):
            layout["scalars"][field.name] = item
        elif isinstance(item, np.ndarray):
            arrays[name] = item
        elif isinstance(item, list):
            arrays[name] = np.array(item, dtype=float)
            layout["lists"].append(field.name)
        elif isinstance(item, dict):
            layout["dicts"][field.name] = sorted(item)
            arrays.update({f"{name}.{key}": array for key, array in item.items()})
        else:
            nested_arrays, layout["nested"][field.name] = to_arrays(item, name + ".")
            arrays.update(nested_arrays)
    return arrays, layout


def from_arrays(arrays, layout: dict, prefix: str = "") -> Any:
    values = dict(layout["scalars"])
    for name in layout["lists"]:
        values[name] = arrays[prefix + name].tolist()
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
MAY_BE_NONFINITE: dict[str, Callable[[Any], set[str]]] = {
    "TrainingRun": lambda run: ({f.name for f in dataclasses.fields(run)} if run.diverged
                                else {"start_row_grad_saturated", "start_row_grad_other"}),
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
    return all(_all_finite(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in allowed)


def load(kind: str, key: tuple, stamp: str) -> Any | None:
    """The stored value for key, or None (none stored, no folder, or a file that does not read back)."""
    folder = cache_folder()
    if folder is None:
        return None
    path = folder / _entry_name(kind, key, stamp)
    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(str(stored["__meta__"]))
            if meta["key"] != repr(key) or meta["stamp"] != stamp:
                return None
            value = from_arrays({name: stored[name] for name in stored.files if name != "__meta__"},
                                meta["layout"])
        if not is_valid(value):
            _LOGGER.warning("%s holds a number that must be finite and is not; computing it instead", path)
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
    value = load(kind, key, stamp)
    if value is None:
        value = compute()
        save(kind, key, stamp, value)
    return value
