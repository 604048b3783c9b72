"""“Play the four steps”: the walk-through's frames carry the step pages' numbers, it plays in the browser without
running the page's script, and the downloaded HTML plays offline."""

import base64
import html
import json
import math
import os
import re
import time
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from conftest import run_app

from attention import core
from lessons import explain
from lessons.walkthrough import KEYS_ONE_BY_ONE, walk_through
from devtools.browser import CHROMIUM, animated_chart, click_tick, show_walkthrough, wait_for_page
from ui.sections import walkthrough as W
from ui.sections import walkthrough_section as WS
from ui.sections import walkthrough_text as WT
from ui.sections import whys
from ui.content import PSEUDO, english_runs, source, words
from wording import without_icon
from ui.settings import Settings
from ui.text import pct, quote
from ui.view import build_view

LONG = "The animal didn't cross the street because it was too tired."
FORTY = " ".join(("the cat sat on the mat and the dog ran " * 4).split()[:40])  # 40 tokens


def view_of(model, sentence, layer=0, head=2, token=1, special=False, mode="learned", teaching=False, d_k=32):
    settings = Settings(sentence, mode, d_k, 0, layer, head, special, token, teaching, "")
    return build_view(settings, model, model.analyze(sentence))


def frame(walk, kind):
    return next(f for f in walk.frames if f.kind == kind)


@pytest.mark.parametrize("sentence, token", [("I am good.", 2), (LONG, 9)])  # “good”; “it”
@pytest.mark.parametrize("layer, head", [(0, 2), (1, 8)])
def test_the_frames_carry_the_step_pages_numbers(model, sentence, token, layer, head):
    view = view_of(model, sentence, layer, head, token)
    walk = W.walkthrough_of(view)
    row, i, n_shown = view.base_index, view.token, len(view.tokens)
    assert view.hidden.size == 2 and len(walk.groups) == n_shown + 1  # [CLS] + [SEP] as one column
    # Step 1: the products add up to the raw scores, the model's whole-sentence row; the shown ones are step 1's.
    np.testing.assert_allclose(walk.products.sum(axis=1), walk.raw, rtol=0, atol=1e-12)
    np.testing.assert_allclose(walk.raw, view.base.raw[row], rtol=1e-12, atol=1e-9)
    products, scores = explain.query_meets_keys(view.steps.q[i], view.steps.k)  # what step 1 draws
    raw_columns = walk.score_per_column(walk.raw, walk.scale)
    np.testing.assert_allclose(raw_columns[:n_shown], scores, atol=1e-9)
    # The shown keys' scores are step 1's drawn row (which gives [CLS] and [SEP] their own columns after them); the
    # folded column is the two as one key (e-values add up, scores do not: explain.combined_hidden).
    np.testing.assert_allclose(raw_columns[:n_shown], view.drawn_scores()[i][:n_shown], atol=1e-9)
    np.testing.assert_allclose(raw_columns, explain.combined_hidden(view.base.raw[row][None], view.shown, view.hidden,
                                                                    walk.scale)[0], atol=1e-9)
    # Step 2: the scaled row, as step 2 draws it, and the folded column the same way.
    scaled_columns = walk.score_per_column(walk.scaled)
    np.testing.assert_allclose(scaled_columns[:n_shown], view.drawn_scores(scaled=True)[i][:n_shown], atol=1e-9)
    np.testing.assert_allclose(scaled_columns, explain.combined_hidden(view.base.scaled[row][None], view.shown,
                                                                       view.hidden)[0], atol=1e-9)
    assert walk.scale == pytest.approx(math.sqrt(view.steps.d_k))
    # Step 3: the weights are the step pages' row and the model's own attention (hidden tokens folded).
    np.testing.assert_allclose(walk.column_weights, view.weights[i], atol=1e-12)
    model_row = explain.fold_hidden(view.analysis.attentions[layer, head][row][None], view.shown, view.hidden)[0]
    np.testing.assert_allclose(walk.column_weights, model_row, atol=1e-5)
    np.testing.assert_allclose(walk.weights, explain.softmax_arithmetic(view.base.scaled[row])[:, 3], atol=1e-12)
    assert walk.exps.sum() == pytest.approx(walk.exp_total) and walk.weights.sum() == pytest.approx(1.0)
    # Step 4: the output is step 4's row, its weighted values step 4's (folded) rows.
    np.testing.assert_allclose(walk.output, view.output[i], atol=1e-9)
    step4 = view.fold(explain.weighted_values(view.base.weights[row], view.base.v).T).T
    np.testing.assert_allclose(walk.column_contributions, step4, atol=1e-9)
    # The frames draw these numbers.
    keys = [f for f in walk.frames if f.kind == "key"]
    for key_frame in keys:
        (c,) = key_frame.columns
        np.testing.assert_allclose(key_frame.vector, products[c], atol=1e-9)
        assert key_frame.bars[c] == pytest.approx(scores[c])
    assert [int(np.isfinite(f.bars).sum()) for f in keys] == list(range(1, len(keys) + 1))  # the row grows
    np.testing.assert_allclose(frame(walk, "row").bars, raw_columns, equal_nan=True)
    np.testing.assert_allclose(frame(walk, "scaled").bars[:n_shown], view.steps.scaled[i], atol=1e-9)
    np.testing.assert_allclose(frame(walk, "scaled").before, raw_columns, equal_nan=True)
    np.testing.assert_allclose(frame(walk, "exp").bars / walk.exp_total, view.weights[i], atol=1e-12)
    np.testing.assert_allclose(frame(walk, "weights").bars, view.weights[i], atol=1e-12)
    step4_frames = [f for f in walk.frames if f.step == 4]
    np.testing.assert_allclose(step4_frames[-1].total, view.output[i], atol=1e-9)
    np.testing.assert_allclose(step4_frames[-2].total, view.output[i], atol=1e-9)  # the last share completes it
    # The captions print these numbers.
    lines = W.captions(walk, view.key_labels, view.base_labels, i)
    assert len(lines) == len(walk.frames)
    line_of = {f.kind: line for f, line in zip(walk.frames, lines)}  # the last frame of each kind
    first = keys[0].columns[0]
    assert f"score {scores[first]:.2f}".replace("-", "−") in lines[0]
    assert f"√{view.steps.d_k} = {math.sqrt(view.steps.d_k):.2f}" in line_of["scaled"]
    top = int(np.argmax(view.weights[i]))
    assert f"{100 * view.weights[i][top]:.0f}%" in line_of["weights"]
    row_line = line_of["row"]
    assert "[CLS]" in row_line and f"{walk.raw[0]:.2f}".replace("-", "−") in row_line  # the hidden scores named
    # The output splits as step 4 splits it: its own value, the other words, [CLS] and [SEP].
    words, own = whys.other_words_share(view)
    markers = 1.0 - words - own
    printed = line_of["output"]
    assert pct(own) in printed and pct(words) in printed, printed
    assert markers < 0.005 or pct(markers) in printed, printed


@pytest.mark.parametrize("mode, special", [("learned", True), ("identity", False), ("random", False)])
def test_shown_specials_and_toys_have_one_column_per_key(model, mode, special):
    view = view_of(model, "I am good.", token=1, special=special, mode=mode, d_k=8)
    walk = W.walkthrough_of(view)
    assert len(walk.groups) == len(view.key_labels) == len(view.tokens)
    np.testing.assert_allclose(walk.column_weights, view.weights[view.token], atol=1e-12)
    np.testing.assert_allclose(walk.output, view.output[view.token], atol=1e-9)
    assert all(np.isfinite(frame(walk, "row").bars))


def test_a_one_word_sentence_has_one_score_and_says_so(model):
    for mode in ("learned", "identity"):
        view = view_of(model, "Hello", token=0, mode=mode)
        walk = W.walkthrough_of(view)
        lines = W.captions(walk, view.key_labels, view.base_labels, 0)
        score = WT._num(walk.score_per_column(walk.raw, walk.scale)[0])
        assert lines[[f.kind for f in walk.frames].index("row")].startswith(words(  # the one-score story
            "walkthrough.caption_row_one", me=f"“{view.key_labels[0]}”", score=score))
        np.testing.assert_allclose(walk.column_weights, view.weights[0], atol=1e-12)
        go.Figure(json.loads(WS.build(view)[0].to_json(validate=False)))


def test_softmax_subtracts_the_largest_before_e_as_step_3_does():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal(16) * 8, rng.standard_normal((5, 16)) * 8, rng.standard_normal((5, 16))
    walk = walk_through(q, k, v, query=1)
    assert walk.scaled.max() > 12 and walk.shift == pytest.approx(walk.scaled.max())
    np.testing.assert_allclose(walk.weights, core.softmax(walk.scaled[None])[0], atol=1e-12)
    assert walk.exps.max() == pytest.approx(1.0)
    labels = list("abcde")
    lines = W.captions(walk, labels, labels, 1)
    exp_line = lines[[f.kind for f in walk.frames].index("exp")]
    assert WT._num(walk.shift) in exp_line and WT._sum(walk.exp_total) in exp_line  # the largest, then the sum
    small = walk_through(q / 8, k / 8, v, query=1)  # small scores too: one way, step 3's table's
    assert small.shift == pytest.approx(small.scaled.max()) and small.exps.max() == pytest.approx(1.0)
    np.testing.assert_allclose(small.exps, explain.softmax_arithmetic(small.scaled)[:, 2], atol=1e-12)


def test_long_rows_keep_the_animation_short(model):
    view = view_of(model, FORTY, token=3)
    walk = W.walkthrough_of(view)
    assert len(view.tokens) == 40 and len(walk.frames) <= 20
    rest = frame(walk, "rest")
    assert len(rest.columns) == 40 - 5 and all(np.isfinite(rest.bars[:40]))
    short = W.walkthrough_of(view_of(model, " ".join(FORTY.split()[:KEYS_ONE_BY_ONE]), token=0))
    assert not [f for f in short.frames if f.kind == "rest"]  # short rows go key by key to the end


def decoded(values):
    if isinstance(values, dict):  # plotly's compact binary encoding
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).astype(np.float64)
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


@pytest.mark.parametrize("teaching", [False, True])
@pytest.mark.parametrize("sentence", ["I am good.", FORTY])
def test_the_figure_is_a_valid_animation_with_every_frame(model, teaching, sentence):
    view = view_of(model, sentence, token=1, teaching=teaching)
    fig, lines, filename = WS.build(view)
    spec = json.loads(fig.to_json(validate=False))
    go.Figure(spec)  # plotly's full validation, frames included
    walk = W.walkthrough_of(view)
    assert len(spec["frames"]) == len(walk.frames) == len(lines)
    assert len(spec["layout"]["sliders"][0]["steps"]) == len(walk.frames)
    assert [b["label"] for b in spec["layout"]["updatemenus"][0]["buttons"]] == [words("walkthrough.play"),
                                                                                words("walkthrough.pause")]
    for number, (drawn, data) in enumerate(zip(spec["frames"], walk.frames), 1):
        np.testing.assert_allclose(decoded(drawn["data"][3]["y"]), data.bars, rtol=1e-6, equal_nan=True)
        assert drawn["data"][3]["type"] == "bar"
        heading = drawn["layout"]["annotations"][0]["text"]  # the frame's step, named, and its place in the whole
        assert words(f"walkthrough.step_name_{data.step}") in heading and f"({number}/{len(walk.frames)})" in heading
    assert spec["layout"]["xaxis2"]["tickfont"]["size"] == (18 if teaching else 12)
    assert spec["layout"]["xaxis2"]["autotickangles"] == [0, 90]  # crowded labels turn upright and thin out
    assert spec["layout"]["height"] <= 720
    assert filename.startswith("walkthrough_") and filename.endswith("L1H3-t1")  # the code's layer 0, head 2


def test_the_html_file_holds_plotly_and_waits_for_play(model):
    page = WS.animation_html(view_of(model, "I am good.", token=2)).decode()
    assert "<script src=" not in page  # plotly.js is inside: nothing to fetch
    assert len(page) > 3_000_000 and "Plotly.addFrames" in page
    plot_script = page.split("Plotly.addFrames", 1)[1].split("</script>", 1)[0]
    assert "Plotly.animate" not in plot_script  # auto_play=False: it waits for Play
    assert 'id="save-png"' in page and 'id="save-svg"' in page  # the buttons that save every frame
    title = words("walkthrough.file_title", token="good", sentence="I am good.")
    assert f"<title>{html.escape(title, quote=False)}</title>" in page


def animated_specs(at) -> list[dict]:
    return [spec for spec in (json.loads(chart.proto.spec) for chart in at.get("plotly_chart")) if spec.get("frames")]


def test_the_start_page_plays_the_four_steps_once_asked_and_the_step_pages_link_to_it():
    at = run_app("app_pages/home.py", "I am good.", token=2)
    assert not at.exception, at.exception
    assert any(words("walkthrough.heading_section", token="“good”") == str(h.value) for h in at.get("header"))
    # Drawn once asked for (a chip click then redraws two figures, not three), its downloads there before.
    assert animated_specs(at) == []
    assert words("walkthrough.download_html", teaching=False) in [
        button.proto.label for button in at.get("download_button")]
    at.button(key="walkthrough-show").click().run()
    animated = animated_specs(at)
    assert len(animated) == 1 and "“good”" in animated[0]["layout"]["title"]["text"]
    # Asked for once, it follows the token.
    at.selectbox(key="token").set_value(1).run()
    animated = animated_specs(at)
    assert len(animated) == 1 and "“am”" in animated[0]["layout"]["title"]["text"], animated[0]["layout"]["title"]
    for page in ("app_pages/step1_scores.py", "app_pages/step4_output.py"):
        step = run_app(page, "I am good.")
        assert not step.exception
        links = [link.proto.label for link in step.get("page_link")]
        assert words("tour.play_steps", language="en") in links, links


# --- in Chromium ------------------------------------------------------------------------------------------------

browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                  reason="Debian's Chromium is not installed (apt-get install -y chromium)")

HEADING_JS = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.querySelector('.slider-container'));
  return plot ? plot.querySelector('.annotation-text').textContent : null;
}"""


def en(text, /, **values):
    """A text as the browser tests' pages say it: in English (no ?lang= in their links)."""
    return words(text, language="en", **values)


def selected_token_said(token):
    """The start page's words naming the selected token, from the start of their sentence to the token, as the
    browser shows them (quoted as the page quotes a token, without Markdown's escapes: “.”, not “\\.”)."""
    return source("start.where_each_word_looks").split("{{ token }}")[0].rsplit(". ", 1)[-1] + quote("X").replace(
        "X", token)


TITLE_START = source("walkthrough.figure_title").split("{")[0]  # the walk-through's figure title, before the token


def play_and_wait_for_frame(page, number, timeout_ms=30_000):
    page.wait_for_function(f"() => ({HEADING_JS})() && ({HEADING_JS})().includes('({number}/')",
                           timeout=timeout_ms)


@pytest.fixture(scope="module")
def server(browser):
    from devtools.browser import streamlit_server

    with streamlit_server() as (url, _process, _seconds):
        yield url


@browser_only
def test_playing_and_the_slider_run_in_the_browser_and_the_html_plays_offline(browser, server, tmp_path, model):
    from bench.run import ScriptRuns
    from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER

    # The default view's frame count, from the model: the page below opens the default layer and head.
    frames = len(W.walkthrough_of(view_of(model, "I am good.", DEFAULT_LAYER, DEFAULT_HEAD, token=2)).frames)

    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    runs = ScriptRuns(page)
    page.goto(f"{server}/?sentence=I+am+good.&token=2")
    wait_for_page(page)
    show_walkthrough(page)
    chart, rail, ticks = animated_chart(page)
    assert f"(1/{frames})" in page.evaluate(HEADING_JS)
    since = time.perf_counter()
    chart.get_by_text(en("walkthrough.play")).click()
    play_and_wait_for_frame(page, 3)  # the frames move on by themselves
    chart.get_by_text(en("walkthrough.pause")).click()
    paused = page.evaluate(HEADING_JS)
    page.wait_for_timeout(3000)
    assert page.evaluate(HEADING_JS) == paused  # paused stays
    click_tick(page, rail, ticks, ticks.count() - 1)
    play_and_wait_for_frame(page, frames)
    last = en("walkthrough.heading", step=4, name=html.escape(en("walkthrough.step_name_4")), number=frames,
              n_frames=frames)
    assert page.evaluate(HEADING_JS).split() == html.unescape(re.sub("<[^>]+>", "", last)).split()
    click_tick(page, rail, ticks, 0)
    play_and_wait_for_frame(page, 1)
    page.wait_for_timeout(500)
    assert runs.runs_since(since) == 0  # playing and the slider ran no script
    # The download is made on click, without a rerun, and plays with the network off.
    with page.expect_download(timeout=60_000) as info:
        page.get_by_text(without_icon(en("walkthrough.download_html", teaching=False))).click()
    download = info.value
    assert download.suggested_filename == f"walkthrough_i-am-good_L{DEFAULT_LAYER + 1}H{DEFAULT_HEAD + 1}-t2.html"
    page.wait_for_timeout(500)
    assert runs.runs_since(since) == 0
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    # A token chip reruns only what follows the token (one fragment run); the next pages keep that token.
    since = time.perf_counter()
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"] button').filter(
        has_text=re.compile("^am$")).click()
    page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                           ".some(t => t.textContent === title)",
                           arg=en("walkthrough.figure_title", token="am"), timeout=30_000)
    runs.wait_done(page, since)
    assert runs.runs_since(since) == 1 and "token=1" in page.url
    assert selected_token_said("am") in page.locator('[data-testid="stMain"]').inner_text()
    page.locator('.st-key-page_menu a', has_text=en("menu.page_step3_softmax")).first.click()
    page.locator("h2", has_text=en("step3.reading_header", token=quote("am"))).wait_for(timeout=60_000)
    # Back on the start page: after a chip, a choice in the sidebar's list still wins.
    page.locator('.st-key-page_menu a', has_text=en("menu.page_home")).first.click()
    wait_for_page(page)
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"] button').filter(
        has_text=re.compile("^good$")).click()
    page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                           ".some(t => t.textContent === title)",
                           arg=en("walkthrough.figure_title", token="good"), timeout=30_000)
    wait_for_page(page)
    page.locator('[data-testid="stSidebar"] .st-key-token [data-testid="stSelectbox"] input').click()
    page.keyboard.press("ArrowDown")  # opens the list
    page.locator('[data-testid="stSelectboxVirtualDropdown"] [role="option"]', has_text="4: .").click()
    page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                           ".some(t => t.textContent === title)",
                           arg=en("walkthrough.figure_title", token="."), timeout=30_000)
    assert selected_token_said(".") in page.locator('[data-testid="stMain"]').inner_text()
    context.close()

    offline = browser.new_context(offline=True, viewport={"width": 1280, "height": 720})
    requested = []
    offline.route("**/*", lambda route: (requested.append(route.request.url), route.continue_()
                                         if route.request.url.startswith("file:") else route.abort()))
    page = offline.new_page()
    page.goto(saved.as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    assert [url for url in requested if not url.startswith("file:")] == []
    assert f"(1/{frames})" in page.evaluate(HEADING_JS)
    page.get_by_text(en("walkthrough.play")).click()
    play_and_wait_for_frame(page, 3)
    page.get_by_text(en("walkthrough.pause")).click()
    # For slides: every frame as its own SVG file, named after the view and the frame.
    files = []
    page.on("download", lambda download: files.append(download))
    page.locator("#save-svg").click()
    page.wait_for_function("n => document.querySelector('.js-plotly-plot .annotation-text').textContent"
                           ".includes('(' + n + '/')", arg=frames, timeout=30_000)
    for _ in range(60):  # the last downloads arrive after the last frame is shown
        if len(files) >= frames:
            break
        page.wait_for_timeout(250)
    assert [f.suggested_filename for f in files] == [
        f"walkthrough_i-am-good_L{DEFAULT_LAYER + 1}H{DEFAULT_HEAD + 1}-t2_frame{n:02d}.svg" for n in range(1, frames + 1)]
    last = Path(files[-1].path()).read_text()
    assert last.lstrip().startswith("<svg") and "Step 4 of 4" in last
    offline.close()


@browser_only
@pytest.mark.parametrize("sentence", ["I am good.", FORTY])
def test_every_frame_reads_without_clipping_or_overlap(browser, server, sentence):
    """Every frame of the walk-through, on screen and on a 1280 × 720 slide, at 4 and 40 tokens: no word clipped
    or overlapping another (devtools/layout.py), and the slide's figure fits."""
    import urllib.parse

    from devtools.layout import figure_texts, layout_problems

    problems = []
    for teaching in (False, True):
        context = browser.new_context(viewport={"width": 1280, "height": 720} if teaching else
                                      {"width": 1400, "height": 1000})
        page = context.new_page()
        query = urllib.parse.urlencode({"sentence": sentence, "token": "2", "teach": str(teaching).lower()})
        page.goto(f"{server}/?{query}")
        wait_for_page(page)
        show_walkthrough(page)
        chart, rail, ticks = animated_chart(page)
        box = chart.bounding_box()
        if teaching:
            assert box["height"] <= 720 and box["width"] <= 1280
        for number in range(ticks.count()):
            click_tick(page, rail, ticks, number)
            play_and_wait_for_frame(page, number + 1)
            page.wait_for_timeout(150)
            texts = [figure for figure in figure_texts(page) if figure["title"].startswith(TITLE_START)]
            assert len(texts) == 1 and len(texts[0]["texts"]) > 10  # the walk-through's words were measured
            problems += [f"{'teaching' if teaching else 'normal'}, frame {number + 1}: {problem}"
                         for problem in layout_problems(texts)]
        context.close()
    assert not problems, "\n".join(problems[:20])


def test_the_panels_name_the_key_and_escape_a_typed_token_once():
    """Step 1's vector panel names whose key it multiplies, and a token typed as markup shows as typed: escaped
    once (“&lt;b&gt;”), never twice (“&amp;lt;”) and never drawn as bold."""
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal(8), rng.standard_normal((3, 8)), rng.standard_normal((3, 8))
    labels = ["<b>x</b>", "a&b", "c"]
    fig = W.walkthrough_figure(walk_through(q, k, v, query=0), labels, labels, 0, "title")
    titles = [frame["layout"]["xaxis"]["title"]["text"] for frame in fig.to_dict()["frames"]]
    keyed = [t for t in titles if t.startswith("q(")]
    assert keyed[1].startswith("q(&lt;b&gt;x&lt;/b&gt;) × k(a&amp;b)"), keyed
    assert not any("&amp;lt;" in t or "&amp;amp;" in t or "<b>" in t for t in titles), titles


def test_the_html_file_is_built_outside_the_page_run_without_streamlit_warnings(model, caplog):
    """The download's function runs outside the script's thread (on click): it must not ask Streamlit for the
    browser's headers, which logged ~45 "missing ScriptRunContext" warnings per download."""
    import logging
    import threading

    from ui.view import view_again

    view = view_of(model, "I am good.", token=2)
    files = []
    caplog.set_level(logging.WARNING)
    worker = threading.Thread(target=lambda: files.append(WS.animation_html(view_again(view.settings))))
    worker.start()
    worker.join()
    assert files and b"Plotly.addFrames" in files[0]
    assert not [r for r in caplog.records if "ScriptRunContext" in r.getMessage()]


def test_the_walkthrough_and_its_file_speak_the_language_they_were_asked_in(model):
    """Every word of the animation (captions, headings, boards, axis and hover texts, buttons) comes from content/:
    in the pseudo-language none is left in English; and the offline file, made after the page's run, keeps the
    language bound when its button was made."""
    from pseudo_check import PLOTLY_TEXT_KEYS, _strings, data_strings

    for sentence, token in (("I am good.", 2), (LONG, 9)):
        view = view_of(model, sentence, token=token)
        fig, lines, _ = WS.build(view, PSEUDO)
        spec = json.loads(fig.to_json(validate=False))
        texts = lines + [text.replace("<br>", " ") for text in _strings(spec, PLOTLY_TEXT_KEYS | {"label"})]
        data = data_strings(sentence, view.base_labels) + (view.label,)  # the view's name: made with the view
        found = [(run, text[:80]) for text in texts for run in english_runs(text, data)]
        assert not found, found
        assert all(line.startswith("⟦") for line in lines) and len(lines) == len(spec["frames"])
    page = WS.animation_html(view_of(model, "I am good.", token=2), PSEUDO).decode()
    assert "<title>⟦" in page
