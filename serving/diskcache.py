"""Results that come out the same on every start, kept on disk by joblib.Memory so a restarted server reads them.

The Training lab's runs, the pronoun page's built-in test set and the meaning page's built-in word sets are
deterministic: the same code, model files and numpy give the same numbers. Computing them is the warm-up's work
after every start, about 11 CPU-seconds; read from disk, about 0.6. The warm-up runs at the lowest priority, yet
on a busy machine the first page took 30-65 % longer while it computed (`python bench/cold_start.py`,
docs/benchmarks.md), so its results are kept. (What a visitor types is never written here: serving/shared.py
passes only the built-in sets.)

joblib finds an entry by its arguments and the source of the one function it wraps; a number also depends on
attention/, lessons/, the model's files and the libraries, so their fingerprint is one of the arguments. Change any
of them and the entry is not read. joblib writes each entry whole before it is visible, and reads a damaged one as
missing (it warns and computes).

joblib stores a result with pickle, and reading a pickle can run code: the folder must be a directory of this
user's that nobody else may write to (the same trust as this user's own Python files), or nothing is kept.

Where: $ATTENTION_CACHE_DIR, else $XDG_CACHE_HOME/attention-explainer, else ~/.cache/attention-explainer.
ATTENTION_CACHE_DIR=off keeps nothing on disk. Any failure (a read-only home, a full disk) only means the result is
computed, as without this module.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

_LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "ATTENTION_CACHE_DIR"
# Every Training lab setting of one model is ~30 MB at most (its main runs keep d_k = 512 weights, 1.6 MB each).
MAX_BYTES = 64 * 2**20
UNUSED_DAYS = 30
# The code whose change can change a stored number: the numpy core, every lesson that measures with it (and the
# sentence sets in lessons/data/) and the module that chooses their settings, read when this module is imported
# (the code this process runs, not what a later edit put on disk).
CODE_FILES = (*sorted((_ROOT / "attention").glob("*.py")), *sorted((_ROOT / "lessons").glob("*.py")),
              *sorted((_ROOT / "lessons" / "data").glob("*")), _ROOT / "serving" / "shared.py")
# The libraries a number can depend on besides numpy (the tokenizer's splits; the PyTorch backend).
LIBRARIES = ("tokenizers", "torch", "transformers", "sentence-transformers", "safetensors")


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
    # A pickle read from here can run code: only this user may have written it.
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


@functools.lru_cache(maxsize=8)
def fingerprint(model_path: str, code: str = _CODE_DIGEST) -> str:
    """A digest of the code, the model's files, numpy, its BLAS and the other libraries. A model file's size,
    modification and change times stand for its contents (any rewrite changes its change time; hashing 90 MB
    would cost the start ~0.15 s)."""
    from importlib import metadata

    digest = hashlib.sha256(code.encode())
    for path in sorted(p for p in Path(model_path).rglob("*") if p.is_file()):
        info = path.stat()
        digest.update(f"{path.relative_to(model_path)}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}\0"
                      .encode())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)},".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none,".encode())
    digest.update(np.__version__.encode())
    try:
        from threadpoolctl import threadpool_info

        digest.update(repr(sorted((pool.get("internal_api"), pool.get("version"), pool.get("architecture"))
                                  for pool in threadpool_info() if pool.get("user_api") == "blas")).encode())
    except ImportError:  # without it, BLAS builds are told apart by numpy's version alone
        pass
    return digest.hexdigest()[:20]


def _result(kind: str, key: tuple, stamp: str, compute: Callable[[], Any]) -> Any:
    """What joblib keeps: found by kind, key and stamp (compute is left out of the hash)."""
    return compute()


@functools.lru_cache(maxsize=4)
def _memory(folder: str):
    import joblib  # here, not at the top: a server that computes nothing itself never imports it

    return joblib.Memory(folder, verbose=0)


def stored(kind: str, key: tuple, model, compute: Callable[[], Any]) -> Any:
    """compute(), or its value from an earlier start with the same code, model files, backend and libraries
    (model: the attention.model.AttentionModel the value is computed with)."""
    folder = cache_folder()
    if folder is None:
        return compute()
    memory = _memory(str(folder))
    computed = []

    def compute_once():
        computed.append(True)
        return compute()

    try:
        value = memory.cache(_result, ignore=["compute"])(kind, (*key, model.backend), fingerprint(model.path),
                                                          compute_once)
    except Exception:
        if computed:  # compute's own error (a word set that cannot be measured): the caller's to see
            raise
        _LOGGER.warning("could not use the results kept in %s; computing instead", folder, exc_info=True)
        return compute()
    if computed:  # a new entry: the least recently read leave beyond the bounds
        try:
            memory.reduce_size(bytes_limit=MAX_BYTES, age_limit=datetime.timedelta(days=UNUSED_DAYS))
        except Exception:
            _LOGGER.warning("could not tidy %s", folder, exc_info=True)
    return value
