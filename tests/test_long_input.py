"""Long inputs take turns by the model's work, its tokens, not by characters: 599 characters of Chinese are as many
tokens as the model reads at most, yet they used to run beside every other long text (30 visitors: 682 MB).
(The costly lane's fairness between visitors: tests/test_fair_queue.py.)"""

import threading

import pytest

from serving import queue
from serving.memory import LONG_INPUT_TOKENS, input_tokens

CHINESE = ("狗追猫因为它饿了老师说" * 60)[:599]  # shorter than the 600 characters that used to count as long
ENGLISH = "The dog chased the cat because it was hungry, said the teacher. " * 47  # about 3,000 characters
ORDINARY = "The animal didn't cross the street because it was too tired."


def test_the_count_is_the_models_own(model):
    """The model's own count; for a text with fewer characters than a long input's tokens, a bound above it."""
    for text in (CHINESE, ENGLISH, "😀 " * 200, "x " * (LONG_INPUT_TOKENS // 2)):
        assert input_tokens(text) == model.read_part(text)[1], text[:20]
    assert model.read_part(ORDINARY)[1] <= input_tokens(ORDINARY) < LONG_INPUT_TOKENS
    assert input_tokens(CHINESE) >= model.max_length > LONG_INPUT_TOKENS > input_tokens(ORDINARY)


def _enters_while_a_long_text_runs(text: str) -> bool:
    """Whether a run on `text` starts while another visitor's long text holds the turn (waits at most 1 s)."""
    holding, release, entered = threading.Event(), threading.Event(), threading.Event()

    def long_run():
        with queue.page_turn("another visitor", "tab", queue.run_cost([ENGLISH])):
            holding.set()
            release.wait(30)

    def run(texts):
        with queue.page_turn("a visitor", "tab", queue.run_cost(texts)):
            entered.set()

    first = threading.Thread(target=long_run, daemon=True)
    first.start()
    assert holding.wait(30)
    second = threading.Thread(target=run, args=((ORDINARY, text),), daemon=True)
    second.start()
    started = entered.wait(1.0)
    release.set()
    first.join(30)
    second.join(30)
    assert entered.is_set()  # and once the long run ends, it runs
    return started


@pytest.mark.parametrize("text, waits", [(CHINESE, True), (ENGLISH, True), (ORDINARY, False), ("", False)])
def test_a_short_text_of_many_tokens_takes_its_turn_like_a_long_text(model, text, waits):
    assert len(CHINESE) < 600 <= len(ENGLISH)
    assert (input_tokens(text) >= LONG_INPUT_TOKENS) == waits
    assert _enters_while_a_long_text_runs(text) is not waits
