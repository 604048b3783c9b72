"""Turns for the pages' runs, fair between browsers: one visitor's many tabs or large inputs cannot starve a class.

Streamlit runs every tab's page in its own thread, all at once, first come first served. On a 2-core server a
visitor with 13 tabs then had 13 runs beside an ordinary visitor's one (10 such visitors: the ordinary visitor's
p95 17.6-20 s), and ten maximal meaning sets, one at a time behind a single first-come-first-served lock, kept a
student's paragraph waiting 36-55 s. Here every run takes three turns, each fair between browsers:

- its tab's turn (TABS): at most TAB_RUNS runs of one browser at once, whatever the number of its tabs;
- its lane's turn: a cheap run (cost below COSTLY_COST, a short sentence) in the cheap lane (CHEAP: CHEAP_SLOTS runs
  at once, one of a browser), which never waits behind a costly run; a costly one (a long text, a typed meaning
  set) in the costly lane (COSTLY: one at a time, each run holding tens to hundreds of MB), with at most
  COSTLY_WAITING runs of a browser waiting.

Whenever a place frees, it goes to the waiting browser that has had the least work lately (fair queuing by cost,
FairTurns), its oldest waiting run: with equal costs round-robin between browsers, so one browser's 13 queued runs
let another's start next, not after all 13, and a paragraph waits for one meaning set, not ten. A tab's rerun
replaces its own waiting run and keeps its place. Nothing here knows Streamlit: ui/turns.py names the browser (its
cookie) and the tab (its session), measures the run and shows the place in line.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from .memory import LONG_INPUT_TOKENS, exact_tokens, page_running, release_free_memory

# The model reads at most this many tokens of a text (all-MiniLM-L6-v2): a longer text costs what 256 tokens cost.
MODEL_TOKENS = 256
# The meaning page's model passes per sentence: the sentence, the same with every head knocked out, and twelve
# single-head runs of one layer at about 1/6 of a pass each (lessons/meaning.py measure's own progress count).
MEANING_PASSES = 4
# Cost is in token-passes: a text's tokens times the model passes run on it. One pass over a 122-token text took
# 86 ms of model work (a 25-token sentence 36 ms, 252 tokens 433 ms; the meaning page's default set of 10 sentences,
# 1.4 s). A cheap run is below one pass of LONG_INPUT_TOKENS (128) tokens: any sidebar sentence shorter than that,
# the built-in examples, a set already measured; its page run took ~0.3 s alone (docs/deploying.md, bench/fairness.py).
COSTLY_COST = LONG_INPUT_TOKENS
TAB_RUNS = 2          # one browser's runs at once (its other tabs wait with a notice)
TAB_WAITING = 32      # one browser's runs waiting for a tab's turn; beyond, a run does not join (LineFull)
CHEAP_SLOTS = 2       # two cores (a run's time grows with the runs beside it: a third only adds waiting)
CHEAP_PER_BROWSER = 1  # so that one browser never holds the whole cheap lane
COSTLY_SLOTS = 1      # one long run at a time: each holds tens (a 256-token page) to hundreds (a meaning set) of MB
REMEMBERED_BROWSERS = 4096  # browsers whose work is remembered (a forgotten one starts afresh)
COSTLY_WAITING = 2    # one browser's costly runs waiting; with TAB_RUNS that is never exceeded by a browser's tabs


def run_cost(sentences: Iterable[str | None] = (), meaning_sentences: Iterable[str | None] = ()) -> int:
    """A run's work in token-passes: each sentence's tokens (at most the model's 256) times its model passes."""
    def tokens(texts):
        return sum(min(exact_tokens(text), MODEL_TOKENS) for text in texts if text)

    return tokens(sentences) + MEANING_PASSES * tokens(meaning_sentences)


def is_costly(cost: int) -> bool:
    return cost >= COSTLY_COST


class Superseded(Exception):
    """A newer run of the same tab took this waiting run's place."""


class LineFull(Exception):
    """The browser already has its bound of runs waiting in this line."""


@dataclass(eq=False)
class Ticket:
    browser: Hashable
    tab: Hashable
    arrival: int
    cost: float = 1.0
    running: bool = False
    superseded: bool = False
    gone: bool = False
    # Set when it starts or is superseded: only its own thread wakes (a hundred waiting tabs woken at every change
    # would take the interpreter's lock from the runs that work).
    decided: threading.Event = field(default_factory=threading.Event)


@dataclass
class _Browser:
    waiting: list[Ticket] = field(default_factory=list)   # by arrival
    running: int = 0
    finish: float = 0.0    # the virtual time its last started run ends: the work it has had, in cost


class FairTurns:
    """At most `slots` runs at once and `per_browser` of one browser; a freed place goes to the waiting browser that
    has had the least work lately, each browser's runs in their order of arrival.

    Fair queuing by cost: in virtual time a browser's next run starts where its last run's cost ended or at the
    virtual time now (the start of the run last admitted), whichever is later, and ends its cost later; the
    earliest end goes first. With equal costs that is round-robin; a paragraph (a twentieth of a meaning set's
    cost) waits for the run going on, not for a round of sets, and ten of a browser's paragraphs still leave a set
    its turn (the browser's own ends add up)."""

    def __init__(self, slots: float, per_browser: int, waiting_per_browser: int | None = None):
        self.slots, self.per_browser, self.waiting_per_browser = slots, per_browser, waiting_per_browser
        self._lock = threading.Lock()
        self._browsers: dict[Hashable, _Browser] = {}
        self._running = 0
        self._arrivals, self._virtual = itertools.count(), 0.0
        # Each browser's finish, kept after it leaves the line: a tab that returns at once is not new.
        self._served: OrderedDict[Hashable, float] = OrderedDict()
        self._gave_up: dict[tuple[Hashable, Hashable], int] = {}   # a waiting run's place, until its tab comes back

    def join(self, browser: Hashable, tab: Hashable, cost: float = 1.0) -> Ticket:
        """Queue a run (and start it if a place is free). A waiting run of the same tab is replaced, its place kept."""
        with self._lock:
            entry = self._browsers.get(browser)
            if entry is None:
                entry = self._browsers[browser] = _Browser(finish=self._served.get(browser, 0.0))
            older = next((t for t in entry.waiting if t.tab == tab), None)
            if older is None and self.waiting_per_browser is not None and (
                    len(entry.waiting) >= self.waiting_per_browser):
                self._forget_if_idle(browser)
                raise LineFull(browser)
            kept = self._gave_up.pop((browser, tab), None)   # its own run, stopped by this rerun a moment ago
            arrival = older.arrival if older else kept if kept is not None else next(self._arrivals)
            ticket = Ticket(browser, tab, arrival, max(float(cost), 1.0))
            if older is not None:
                older.superseded = True
                older.decided.set()
                entry.waiting[entry.waiting.index(older)] = ticket
            else:  # in order of arrival (a kept place goes back where it was)
                entry.waiting.insert(bisect.bisect([t.arrival for t in entry.waiting], arrival), ticket)
            self._admit()
            return ticket

    def place(self, ticket: Ticket) -> int:
        """0 while running; else 1 + the runs that start before it if no other arrives."""
        with self._lock:
            if ticket.running:
                return 0
            entry = self._browsers.get(ticket.browser)
            if entry is None or ticket not in entry.waiting:
                return 0
            if self.slots == float("inf"):   # only the browser's own bound holds it: its own earlier runs go first
                return 1 + entry.waiting.index(ticket)
            virtual = self._virtual
            finish = {b: e.finish for b, e in self._browsers.items()}
            queues = {b: list(e.waiting) for b, e in self._browsers.items() if e.waiting}
            for place in itertools.count(1):   # the admissions to come, as _admit would make them
                browser = min(queues, key=lambda b: (max(virtual, finish[b]) + queues[b][0].cost,
                                                     queues[b][0].arrival))
                nxt = queues[browser].pop(0)
                if nxt is ticket:
                    return place
                virtual = max(virtual, finish[browser])
                finish[browser] = virtual + nxt.cost
                if not queues[browser]:
                    del queues[browser]

    def wait(self, ticket: Ticket, timeout: float | None = None) -> bool:
        """Block until the run's turn (True) or the timeout (False); Superseded if a newer run of its tab came."""
        ticket.decided.wait(timeout)
        with self._lock:
            if ticket.superseded:
                raise Superseded(ticket.tab)
            return ticket.running

    def leave(self, ticket: Ticket) -> None:
        """The run is done, or gave up waiting: its place goes to the next browser in the round."""
        with self._lock:
            if ticket.gone:
                return
            ticket.gone = True
            entry = self._browsers.get(ticket.browser)
            if ticket.running:
                ticket.running = False
                self._running -= 1
                entry.running -= 1
            elif entry is not None and ticket in entry.waiting:
                entry.waiting.remove(ticket)
                if not ticket.superseded:  # a rerun stops a waiting run first, then joins: it keeps the place
                    self._gave_up[(ticket.browser, ticket.tab)] = ticket.arrival
                    if len(self._gave_up) > REMEMBERED_BROWSERS:
                        self._gave_up.pop(next(iter(self._gave_up)))
            self._forget_if_idle(ticket.browser)
            self._admit()

    @contextlib.contextmanager
    def turn(self, browser: Hashable, tab: Hashable, while_waiting: Callable[[int], None] | None = None,
             every: float = 0.5, cost: float = 1.0):
        """Hold a turn around a run; while_waiting(place) is called every `every` seconds until it starts (a page
        shows the place; whatever it raises, a rerun's stop included, leaves the line)."""
        ticket = self.join(browser, tab, cost)
        try:
            while not self.wait(ticket, timeout=0 if while_waiting else None):
                while_waiting(self.place(ticket) or 1)
                self.wait(ticket, timeout=every)
            yield ticket
        finally:
            self.leave(ticket)

    def _order(self) -> list[Hashable]:
        """The waiting browsers that may start a run now, in the order they would start."""
        ready = [(max(self._virtual, entry.finish) + entry.waiting[0].cost, entry.waiting[0].arrival, browser)
                 for browser, entry in self._browsers.items() if entry.waiting and entry.running < self.per_browser]
        return [browser for *_, browser in sorted(ready, key=lambda r: (r[0], r[1]))]

    def _admit(self) -> None:
        while self._running < self.slots:
            order = self._order()
            if not order:
                return
            browser = order[0]
            entry = self._browsers[browser]
            ticket = entry.waiting.pop(0)
            self._virtual = max(self._virtual, entry.finish)
            entry.finish = self._virtual + ticket.cost
            ticket.running, entry.running = True, entry.running + 1
            ticket.decided.set()
            self._running += 1
            self._served[browser] = entry.finish
            self._served.move_to_end(browser)
            if len(self._served) > REMEMBERED_BROWSERS:
                self._served.popitem(last=False)

    def _forget_if_idle(self, browser: Hashable) -> None:
        """A browser with nothing running or waiting leaves the table (a server meets thousands); when it last
        started a run stays in _served, the last REMEMBERED_BROWSERS of them."""
        entry = self._browsers.get(browser)
        if entry is not None and not entry.waiting and not entry.running:
            del self._browsers[browser]

    @property
    def running(self) -> int:
        with self._lock:
            return self._running

    def waiting(self, browser: Hashable | None = None) -> int:
        with self._lock:
            entries = self._browsers.values() if browser is None else [self._browsers.get(browser, _Browser())]
            return sum(len(entry.waiting) for entry in entries)


TABS = FairTurns(float("inf"), TAB_RUNS, TAB_WAITING)
CHEAP = FairTurns(CHEAP_SLOTS, CHEAP_PER_BROWSER)
COSTLY = FairTurns(COSTLY_SLOTS, 1, COSTLY_WAITING)


@contextlib.contextmanager
def page_turn(browser: Hashable, tab: Hashable, cost: int, while_waiting: Callable[[str, int], None] | None = None,
              every: float = 0.5):
    """Around a page run (app.py through ui/turns.py): its tab's turn, then its lane's; while_waiting(why, place)
    with why "tabs", "cheap" or "costly". After a costly run its freed memory goes back to the system."""
    def notify(why):
        return None if while_waiting is None else (lambda place: while_waiting(why, place))

    lane, why = (COSTLY, "costly") if is_costly(cost) else (CHEAP, "cheap")
    with (TABS.turn(browser, tab, notify("tabs"), every), lane.turn(browser, tab, notify(why), every, cost),
          page_running()):
        try:
            yield
        finally:
            if lane is COSTLY:
                release_free_memory()
