"""Attention by hand (issue 54): the arithmetic is the model's, the examples tell the stories they are named for, the
page hands over to the real model, and in Chromium the drawing shows numpy's numbers while a drag, the keyboard and
the divisor run no script."""

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import run_app

from attention import core
from bench import by_hand as drive
from devtools.browser import CHROMIUM
from lessons import by_hand
from ui.names import layer_head_name

PAGE = "app_pages/by_hand.py"
PRESET = {p.key: p for p in by_hand.PRESETS}


@pytest.mark.parametrize("divisor", [0.5, by_hand.SQRT_D_K, 3.0])
def test_the_four_steps_by_hand_are_the_models_four_steps(divisor):
    """attention/core.py's run_steps (what the app runs for the real model), on the same numbers: with √d_k as the
    divisor it is the model's scaling; any other divisor is the what-if lab's temperature on top of it."""
    for preset in by_hand.PRESETS:
        q = np.array([preset.query])
        steps = core.run_steps(q, by_hand.KEYS, by_hand.VALUES, temperature=divisor / by_hand.SQRT_D_K)
        mine = by_hand.attend(preset.query, divisor=divisor)
        np.testing.assert_allclose(mine.scores, steps.raw[0], atol=1e-12)
        np.testing.assert_allclose(mine.weights, steps.weights[0], atol=1e-12)
        np.testing.assert_allclose(mine.output, steps.output[0], atol=1e-12)


def test_each_example_shows_what_its_name_says():
    tie = by_hand.attend(PRESET["tie"].query)
    dog, cat = by_hand.WORDS.index("dog"), by_hand.WORDS.index("cat")
    assert abs(tie.weights[dog] - tie.weights[cat]) < 1e-9 and by_hand.shape_of(tie.weights) == "tie"
    animal = by_hand.attend(PRESET["animal"].query)
    animals = [by_hand.WORDS.index(w) for w in ("dog", "cat")]
    assert animal.weights[animals].sum() > 0.8  # the animals get most of the attention
    far = by_hand.attend(PRESET["far"].query)
    assert far.scores.max() < 0 and abs(far.weights.sum() - 1) < 1e-12
    near = PRESET["near"]
    nearest = int(np.argmin(np.linalg.norm(by_hand.KEYS - near.query, axis=1)))
    assert int(np.argmax(by_hand.attend(near.query).weights)) == nearest
    assert by_hand.shape_of(by_hand.attend(near.query).weights) == "leads"


def test_a_smaller_divisor_sharpens_the_weights_and_a_larger_flattens_them():
    query = PRESET["animal"].query
    tops = [by_hand.attend(query, divisor=d).weights.max() for d in (0.5, by_hand.SQRT_D_K, 4.0)]
    assert tops[0] > tops[1] > tops[2] > 1 / len(by_hand.WORDS)


def test_the_drawings_words_come_in_the_pages_language_with_the_slots_it_fills():
    """The component's words are data from content/ (none in its JavaScript): in the pseudo-language none is left
    in English, every text the JavaScript uses is sent, and a live text keeps the {slots} the drawing fills in."""
    import json
    import re

    from ui.content import PSEUDO, english_runs
    from ui.widgets.by_hand_component import _HERE, drawing_text

    english, marked = drawing_text("en"), drawing_text(PSEUDO)
    data = (*by_hand.WORDS, by_hand.QUERY_WORD)
    assert not english_runs(json.dumps(marked, ensure_ascii=False), data)
    script = (_HERE / "by_hand_component.js").read_text()
    def slots(text):
        return set(re.findall(r"\{(\w+)\}", text))

    for key, text in english.items():
        if key != "presets":  # each preset's name and title go with its numbers (p.name, p.title)
            assert re.search(rf"\b(t|text)\.{key}\b", script), f"the drawing never shows {key}"
        if isinstance(text, str):
            assert slots(text) == slots(marked[key]), key
    assert slots(english["storyTie"]) == {"a", "b", "share_a", "share_b"}
    assert slots(english["storyNumbers"]) == {"x", "y", "list", "ox", "oy"}
    assert slots(english["barsRuleNumbers"]) == {"a", "qx", "qy", "kx", "ky", "score"}


def test_each_examples_story_is_the_one_its_weights_call_for():
    from ui.sections.by_hand import _preset_story

    for preset in by_hand.PRESETS:
        n = by_hand.attend(preset.query)
        story, top = _preset_story(n), int(np.argmax(n.weights))
        if by_hand.shape_of(n.weights) != "even":  # a tie or a leader is named with its weight
            assert f"“{by_hand.WORDS[top]}”" in story and f"{100 * n.weights[top]:.0f}%" in story, story


@pytest.mark.parametrize("teaching", [False, True])
def test_page_hands_over_to_the_model_and_states_its_weight(model, teaching):
    """The page runs in both modes and says which word the model's head gives the query word the most weight, with
    that weight, computed here from the model."""
    at = run_app(PAGE, teach=teaching)
    assert not at.exception, at.exception
    analysis = model.analyze(by_hand.SENTENCE)
    layer, head = at.session_state["_settings"].layer, at.session_state["_settings"].head
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    query = analysis.tokens.index(by_hand.QUERY_WORD)
    shown = [i for i in range(analysis.n_tokens) if not analysis.is_special[i]]
    row = list(steps.weights[query][shown]) + [steps.weights[query][analysis.is_special].sum()]
    best = int(np.argmax(row))
    text = " ".join(m.value for m in at.markdown)
    assert f"{100 * row[best]:.0f}%" in text
    if best < len(shown):
        assert f"“{analysis.tokens[shown[best]]}”" in text
    assert layer_head_name(layer, head, model.n_layers) in text
    assert f"{steps.q.shape[1]} numbers" in " ".join(h.value for h in at.header)  # the hand-over's d_k, measured


def test_the_hand_over_button_opens_step_one_on_the_sentence_with_the_query_word_chosen(model):
    at = run_app(PAGE)
    at.button(key="by_hand_open_step1").click().run()
    assert not at.exception, at.exception
    assert at.session_state["sentence"] == by_hand.SENTENCE
    analysis = model.analyze(by_hand.SENTENCE)
    tokens = [t for t, special in zip(analysis.tokens, analysis.is_special) if not special]
    assert tokens[at.session_state["token"]] == by_hand.QUERY_WORD


# --- in Chromium -------------------------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                    reason="Debian's Chromium is not installed")


def assert_shows_numpy(shown: dict) -> by_hand.Numbers:
    """The drawing's numbers (full values and the rounded text a student reads) are numpy's at its query."""
    n = drive.numpy_numbers(shown)
    for kind, expected in (("scores", n.scores), ("scaled", n.scaled), ("weights", n.weights)):
        np.testing.assert_allclose([c["value"] for c in shown[kind]], expected, atol=1e-9, err_msg=kind)
    np.testing.assert_allclose(shown["output"], n.output, atol=1e-9)
    # The rounded text a student reads is within half its last digit of numpy's (a tie like 0.725 may round
    # either way, in JavaScript as in Python).
    for kind, expected, scale, half in (("scores", n.scores, 1, 0.005), ("scaled", n.scaled, 1, 0.005),
                                        ("weights", n.weights, 100, 0.5)):
        read = [float(c["text"].replace("−", "-").rstrip("%")) for c in shown[kind]]
        assert np.all(np.abs(np.array(read) - scale * expected) <= half + 1e-9), (kind, read, expected)
    return n


@pytest.fixture(scope="module")
def tab(browser, server):
    page = browser.new_page(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    sent = drive.SentFrames(page)
    drive.open_page(page, server)
    yield page, sent
    page.close()


@needs_chromium
def test_every_example_shows_numpys_numbers(tab):
    page, _ = tab
    for i, preset in enumerate(by_hand.PRESETS):
        page.locator(f'.bh button[data-preset="{i}"]').click()
        shown = drive.displayed(page)
        assert shown["q"] == list(preset.query)
        assert_shows_numpy(shown)


@needs_chromium
def test_the_score_rule_under_the_bars_works_the_top_words_score_out_of_its_numbers(tab):
    """Under the bars, how a score is made: the top word's query·key, pair by pair, with numpy's numbers."""
    import re

    page, _ = tab
    for i, preset in enumerate(by_hand.PRESETS):
        page.locator(f'.bh button[data-preset="{i}"]').click()
        n = assert_shows_numpy(drive.displayed(page))
        top = int(np.argmax(n.weights))
        line = next(t for t in page.locator(".bh svg text").all_text_contents() if " × " in t and " = " in t)
        numbers = [float(x) for x in re.findall(r"-?\d+\.\d+", line.replace("−", "-"))]
        qx, kx, qy, ky, score = numbers
        assert f"“{by_hand.WORDS[top]}”" in line
        assert (qx, qy) == pytest.approx(preset.query, abs=0.005)
        assert (kx, ky) == pytest.approx(by_hand.KEYS[top], abs=0.005)
        assert score == pytest.approx(n.scores[top], abs=0.005)
        assert qx * kx + qy * ky == pytest.approx(score, abs=0.02)  # the sum a student can redo from the line


@needs_chromium
def test_a_drag_changes_the_weights_to_numpys_and_sends_nothing(tab):
    page, sent = tab
    page.locator('.bh button[data-preset="0"]').click()
    before, frames = drive.displayed(page), len(sent.frames)
    drive.drag_query(page, (-1.0, 1.5), steps=20)
    after = drive.displayed(page)
    assert np.allclose(after["q"], (-1.0, 1.5), atol=by_hand.GRID)
    n = assert_shows_numpy(after)
    assert [c["value"] for c in after["weights"]] != [c["value"] for c in before["weights"]]
    assert len(sent.frames) == frames, "the drag sent something to the server (a script run)"
    top = by_hand.WORDS[int(np.argmax(n.weights))]
    assert f"“{top}”" in after["live"]  # the spoken summary names the word with the most weight


@needs_chromium
def test_the_arrow_keys_move_the_query_and_the_divisor_reshapes_the_weights(tab):
    page, sent = tab
    page.locator('.bh button[data-preset="1"]').click()
    start, frames = drive.displayed(page)["q"], len(sent.frames)
    handle = page.locator(".bh-handle")
    handle.focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown"):
        handle.press(key)
    moved = drive.displayed(page)
    assert np.allclose(moved["q"], (start[0] + 4 * by_hand.GRID, start[1] - 2 * by_hand.GRID))
    assert_shows_numpy(moved)
    page.locator(".bh-divisor").fill("0.5")
    sharp = drive.displayed(page)
    assert sharp["divisor"] == 0.5
    assert max(c["value"] for c in sharp["weights"]) > max(c["value"] for c in moved["weights"])
    assert_shows_numpy(sharp)
    assert len(sent.frames) == frames


@needs_chromium
def test_the_drawing_downloads_as_svg_and_png(tab):
    page, _ = tab
    with page.expect_download() as svg:
        page.locator(".bh-svg-dl").click()
    text = Path(svg.value.path()).read_text()
    assert text.startswith("<svg") and all(word in text for word in by_hand.WORDS)
    with page.expect_download() as png:
        page.locator(".bh-png-dl").click()
    assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.value.suggested_filename.endswith(".png")
