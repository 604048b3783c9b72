"""The fair queue (serving/queue.py): one browser's many tabs or large inputs cannot starve another browser.

Before it, every run went first come first served: long texts behind one lock in their order of arrival (one
visitor's 13 queued runs all went before a classmate's one), a browser's 13 tabs ran 13 pages at once, and a
meaning set of short lines never counted as long (ten maximal sets: a student's paragraph waited 36-55 s)."""

import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from lessons import meaning as me
from serving import queue
from serving.memory import exact_tokens

SHORT = "The cat sat on the mat."
LONG = "The dog chased the cat because it was hungry, said the teacher. " * 47  # about 3,000 characters


@pytest.fixture
def lanes(monkeypatch):
    """Fresh lanes for page_turn, sized as the server's (a test's runs never meet another test's)."""
    fresh = (queue.FairTurns(float("inf"), queue.TAB_RUNS, queue.TAB_WAITING),
             queue.FairTurns(queue.CHEAP_SLOTS, queue.CHEAP_PER_BROWSER),
             queue.FairTurns(queue.COSTLY_SLOTS, 1, queue.COSTLY_WAITING))
    for name, turns in zip(("TABS", "CHEAP", "COSTLY"), fresh):
        monkeypatch.setattr(queue, name, turns)
    return fresh


class Runs:
    """Runs in threads, each held until released; records the order in which they started."""

    def __init__(self, start):
        self.start, self.started, self.threads = start, [], []
        self.release: dict[str, threading.Event] = {}
        self.places: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def add(self, name, *args):
        self.release[name], self.places[name] = threading.Event(), []

        def run():
            def waiting(*why_place):
                self.places[name].append(why_place[-1])
            with self.start(*args, waiting):
                with self._lock:
                    self.started.append(name)
                self.release[name].wait(30)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)

    def wait_started(self, count, timeout=10.0):
        deadline = time.monotonic() + timeout
        while len(self.started) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.started)

    def finish(self, name):
        count = len(self.started)
        self.release[name].set()
        return self.wait_started(count + 1, timeout=2.0)

    def close(self):
        for event in self.release.values():
            event.set()
        for thread in self.threads:
            thread.join(10)


def settle(seconds=0.15):
    time.sleep(seconds)


def test_another_browsers_run_starts_in_the_next_turn_not_after_all_13():
    """One place, 13 runs of browser A queued before browser B's one: B's is the next to start."""
    turns = queue.FairTurns(slots=1, per_browser=1)
    runs = Runs(lambda browser, tab, waiting: turns.turn(browser, tab, waiting, every=0.02))
    try:
        for tab in range(13):
            runs.add(f"A{tab}", "A", tab)
            settle(0.02)  # in this order of arrival
        runs.add("B", "B", 0)
        settle()
        assert runs.wait_started(1) == ["A0"]
        assert runs.places["B"] and runs.places["B"][-1] == 1  # told it is next
        assert runs.places["A12"][-1] == 13                     # and A's last tab that 12 go before it
        assert runs.finish("A0")[-1] == "B"
    finally:
        runs.close()


def test_round_robin_between_three_browsers():
    turns = queue.FairTurns(slots=1, per_browser=1)
    runs = Runs(lambda browser, tab, waiting: turns.turn(browser, tab, waiting, every=0.02))
    try:
        for name in ("A0", "A1", "A2", "B0", "B1", "C0"):
            runs.add(name, name[0], name)
            settle(0.03)
        runs.wait_started(1)
        for name in ("A0", "B0", "C0", "A1", "B1"):
            runs.finish(name)
        assert runs.started == ["A0", "B0", "C0", "A1", "B1", "A2"]
    finally:
        runs.close()


def test_thirteen_tabs_of_one_browser_take_two_turns_and_wait_with_their_place(lanes):
    """13 tabs of a browser with short sentences: TAB_RUNS of them in the lanes (one running), the others wait with
    their place in line; another browser's cheap run starts at once. (Before: all 13 ran at once.)"""
    cost = queue.run_cost([SHORT])
    runs = Runs(lambda browser, tab, waiting: queue.page_turn(browser, tab, cost, waiting, 0.02))
    try:
        for tab in range(13):
            runs.add(f"A{tab}", "A", tab)
        settle(0.3)
        assert len(runs.started) == queue.CHEAP_PER_BROWSER < queue.CHEAP_SLOTS
        assert lanes[0].running == queue.TAB_RUNS
        waiting = [name for name in runs.places if name not in runs.started]
        assert len(waiting) == 13 - queue.CHEAP_PER_BROWSER and all(runs.places[name] for name in waiting)
        # each its own place: the tab waiting in the cheap lane is next there; the others wait for their tab's turn
        assert sorted(runs.places[name][-1] for name in waiting) == [1, *range(1, 13 - queue.TAB_RUNS + 1)]
        runs.add("B", "B", 0)
        assert runs.wait_started(queue.CHEAP_PER_BROWSER + 1, timeout=1.0)[-1] == "B"
        assert not runs.places["B"]  # never told to wait
    finally:
        runs.close()


def test_a_cheap_run_never_waits_behind_costly_ones(lanes):
    """The costly lane full (one running, others waiting from ten browsers): a short sentence starts at once."""
    runs = Runs(lambda browser, tab, cost, waiting: queue.page_turn(browser, tab, cost, waiting, 0.02))
    try:
        for visitor in range(10):
            runs.add(f"costly{visitor}", f"V{visitor}", 0, queue.run_cost([LONG]))
        assert len(runs.wait_started(1)) == 1
        settle()
        assert queue.COSTLY.waiting() == 9
        runs.add("cheap", "ordinary", 0, queue.run_cost([SHORT]))
        assert "cheap" in runs.wait_started(2, timeout=1.0)
        assert not runs.places["cheap"]
    finally:
        runs.close()


def test_an_ordinary_visitors_long_text_goes_before_a_hostile_visitors_queued_ones(lanes):
    """Ten meaning sets of one visitor (ten tabs) queued: another visitor's long paragraph is the next costly run."""
    group = "\n".join(f"The bank {k} by the river held a lot of water that spring." for k in range(8))
    meaning_cost = queue.run_cost(meaning_sentences=["bank", *me.split_lines(group), *me.split_lines(group)])
    runs = Runs(lambda browser, tab, cost, waiting: queue.page_turn(browser, tab, cost, waiting, 0.02))
    try:
        for tab in range(10):
            runs.add(f"set{tab}", "hostile", tab, meaning_cost)
        runs.wait_started(1)
        settle()
        runs.add("paragraph", "student", 0, queue.run_cost([LONG]))
        settle()
        assert runs.places["paragraph"][-1] == 1
        assert runs.finish(runs.started[0])[-1] == "paragraph"
    finally:
        runs.close()


def test_a_browsers_waiting_runs_are_bounded_and_a_tabs_rerun_replaces_its_own():
    turns = queue.FairTurns(slots=1, per_browser=1, waiting_per_browser=2)
    running = turns.join("A", "tab0")
    first, second = turns.join("A", "tab1"), turns.join("A", "tab2")
    assert running.running and turns.waiting("A") == 2
    with pytest.raises(queue.LineFull):
        turns.join("A", "tab3")
    other = turns.join("B", "tab0")            # the bound is per browser
    rerun = turns.join("A", "tab1")            # the same tab again: replaces its waiting run, keeps its place
    assert turns.waiting("A") == 2 and first.superseded
    with pytest.raises(queue.Superseded):
        turns.wait(first, timeout=0)
    assert turns.place(other) == 1 and turns.place(rerun) == 2 and turns.place(second) == 3
    turns.leave(running)
    assert other.running and not rerun.running
    turns.leave(other)
    assert rerun.running                       # tab1's rerun before tab2: it kept tab1's place


def test_one_browsers_tabs_hold_at_most_their_share_of_either_lane(lanes):
    """13 tabs sending long texts: one costly run at a time of this browser and at most one more waiting."""
    _, _, costly = lanes
    cost = queue.run_cost([LONG])
    runs = Runs(lambda browser, tab, waiting: queue.page_turn(browser, tab, cost, waiting, 0.02))
    try:
        for tab in range(13):
            runs.add(f"A{tab}", "A", tab)
        settle(0.3)
        assert costly.running == 1 and costly.waiting("A") == queue.TAB_RUNS - 1
        assert lanes[0].waiting("A") == 13 - queue.TAB_RUNS
    finally:
        runs.close()


def test_the_cost_counts_every_sentence_of_a_meaning_set(model):
    """Each line of a full set is short, yet the set is many model passes: it is costly (it used to run at once
    beside every other set, +200 MB each). One short sentence, or the word alone, is cheap."""
    lines = [f"The bank {k} by the river was full of water after the long rain of that cold spring." for k in range(16)]
    assert all(exact_tokens(line) < queue.COSTLY_COST for line in lines)
    assert all(not queue.is_costly(queue.run_cost([line])) for line in lines)
    cost = queue.run_cost(meaning_sentences=["bank", *lines])
    assert cost == queue.MEANING_PASSES * sum(model.read_part(text)[1] for text in ["bank", *lines])
    assert queue.is_costly(cost) and not queue.is_costly(queue.run_cost([SHORT]))
    assert queue.run_cost(["字" * 3000]) == queue.MODEL_TOKENS  # the model reads at most 256 tokens


def _cost_app():
    import streamlit as st

    from ui.turns import page_cost

    cost = page_cost(st.query_params.get("page", ""), st.query_params.get("sentence"), st.session_state.get("model"))
    st.text(str(cost))


def test_the_meaning_pages_cost_counts_its_sets_until_they_are_measured(model):
    """On the meaning page a typed set is costly; once measured (the built-in sets by the warm-up) it is read back,
    so it is cheap; on another page the same session's sets do not count."""
    from serving import shared

    default = me.BUILT_IN[me.DEFAULT_WORD]
    app = AppTest.from_function(_cost_app)
    app.session_state["model"] = model
    app.query_params.update(page="meaning", sentence=SHORT, word=default.word,
                            meaning_a="\n".join(default.meaning_a), meaning_b="\n".join(default.meaning_b))
    key = shared.meaning_key(model, default.word, list(default.meaning_a), list(default.meaning_b))
    shared.MEANING_RESULTS._entries.pop(key, None)
    app.run()
    unmeasured = int(app.text[0].value)
    assert queue.is_costly(unmeasured)
    shared.meaning_measurement(model, default.word, list(default.meaning_a), list(default.meaning_b))
    app.run()
    assert int(app.text[0].value) == queue.run_cost([SHORT]) < unmeasured
    app.query_params["page"] = "step1_scores"
    shared.MEANING_RESULTS._entries.pop(key, None)
    app.run()
    assert int(app.text[0].value) == queue.run_cost([SHORT])


def test_a_browser_is_its_cookie_not_its_tab():
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    from ui.turns import BROWSER_COOKIE, browser_id

    token = b"0123456789abcdef"
    one, two = (generate_xsrf_token_string(token, 1700000000) for _ in range(2))
    assert one != two  # Streamlit masks the same token differently each time it sets the cookie
    assert browser_id({BROWSER_COOKIE: one}, "tab1") == browser_id({BROWSER_COOKIE: two}, "tab2")
    other = browser_id({BROWSER_COOKIE: generate_xsrf_token_string(b"fedcba9876543210", 1700000000)}, "tab1")
    assert other != browser_id({BROWSER_COOKIE: one}, "tab1")
    assert browser_id({}, "tab1") != browser_id({}, "tab2")  # no cookie: each tab its own


def test_the_visitors_sentences_leave_once_the_server_is_idle(lanes):
    """A class's hundreds of sentences filled the 100 MB sentence cache and kept it after the class: the server
    settled that far above its fresh idle. Unread since the server went idle, they leave."""
    import numpy as np

    from serving import memory
    from serving.sentences import SENTENCE_CACHE

    assert SENTENCE_CACHE.empties_when_server_idle
    now = [0.0]
    cache = memory.ByteBudgetCache(100 * 2**20, clock=lambda: now[0], empties_when_server_idle=True)
    for k in range(10):
        cache.get_or_compute(("sentence", k), lambda: np.zeros(10_000))   # small: forget_idle keeps them
    now[0] = memory.SERVER_IDLE_SECONDS - 1
    cache.get_or_compute(("sentence", 0), lambda: pytest.fail("cached"))
    now[0] = memory.SERVER_IDLE_SECONDS + 1
    assert cache.forget_idle() == 0
    assert cache.forget_unread(memory.SERVER_IDLE_SECONDS) == 9 * 80_000 and len(cache) == 1
    with queue.page_turn("a visitor", "tab", queue.run_cost([SHORT])):
        assert memory.server_idle_seconds() == 0     # a page running: not idle
    assert 0 <= memory.server_idle_seconds() < 1


def test_a_tab_whose_waiting_run_was_stopped_by_its_rerun_keeps_its_place():
    """Streamlit stops a waiting run when its tab reruns (the visitor typed again), then the new run joins: it goes
    back to its place, not to the end of the line."""
    turns = queue.FairTurns(slots=1, per_browser=1)
    turns.join("A", "busy")
    first = turns.join("B", "typing")
    turns.join("C", "tab")
    assert turns.place(first) == 1
    turns.leave(first)                   # stopped by the rerun
    again = turns.join("B", "typing")
    assert turns.place(again) == 1


def test_a_paragraph_waits_for_one_meaning_set_not_for_a_round_of_them():
    """Five visitors keep the costly lane full with meaning sets (twenty times a paragraph's cost): a student who
    pastes paragraphs again and again waits for the set going on each time, not for one set of every visitor
    (ten sets in line before the student's paragraph waited 36-55 s)."""
    meaning_set, paragraph = 3800, 180
    turns = queue.FairTurns(slots=1, per_browser=1)
    sets = [turns.join(f"H{v}", f"tab{k}", meaning_set) for k in range(2) for v in range(5)]
    for again in range(4):
        running = next(t for t in sets if t.running)
        mine = turns.join("student", "tab", paragraph)
        assert turns.place(mine) == 1
        turns.leave(running)
        assert mine.running
        turns.leave(mine)
        sets.append(turns.join(running.browser, f"again{again}", meaning_set))  # the visitors keep sending sets
