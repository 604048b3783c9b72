"""Chromium: a token chip on the start page reruns only the part that follows the token (a fragment, which also
draws the sidebar's token list), and every label naming the selected token agrees after each click: the chips, the
sidebar's list, the link, the figure titles and the prose. Typing a second and a third sentence derives the token
again. (How fast a click is stays in bench/run.py: "click a token chip on the start page".)"""

import os
import re
import time
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, show_walkthrough, type_sentence, wait_for_page
from ui.content import placeholders, words
from ui.figures.layout import NARROW_FIGURE_PX
from ui.labels import unique_labels
from ui.names import head_name, layer_head_name
from ui.text import quote

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

SENTENCE = "The cat saw the dog and the bird."  # "the" three times: the, the², the³
# The pages are in English here (no ?lang= in these links): each label and sentence is content/en's.
CHIPS = (f'[data-testid="stMain"] [role="radiogroup"][aria-label="{words("pickers.chips_label", language="en")}"]'
         ' [role="radio"]')
TOKEN_LIST = f'[data-testid="stSidebar"] input[aria-label="{words("sidebar.token_label", language="en")}"]'
TITLES_JS = "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(t => t.textContent)"
_TOKEN = "TOKENMARK"  # letters: quote() escapes the token as a page does, and keeps these as they are


def around_token(name, quoted=True, **values):
    """The words text `name` puts right before and after its token, as a visitor reads them: from the start of its
    sentence (or the last value or Markdown mark) to the next value or mark. quoted: the page passes quote(token)."""
    marks = {key: f"\x01{key}\x01" for key in placeholders(name) if key not in values}
    marks["token"] = quote(_TOKEN) if quoted else _TOKEN
    before, after = words(name, language="en", **{**marks, **values}).split(_TOKEN, 1)
    before = re.split(r"\x01\w+\x01|[*\[\]()#]|(?<=[.!?]) ", before)[-1]
    return before, re.split(r"\x01\w+\x01|[*\[\]()#]", after)[0]


def naming(name, quoted=True, **values):
    """A regex for where text `name` names the token, the token's label its group."""
    before, after = around_token(name, quoted, **values)
    return re.escape(before) + "(.+?)" + re.escape(after)


PROSE = around_token("start.where_each_word_looks", teaching=False)   # "The selected token, “", "”, puts "


def names_of_the_selected_token(page) -> dict[str, str]:
    """Every place on the start page that names the selected token, read as the visitor sees it."""
    chips = page.locator(CHIPS)
    checked = [chips.nth(k).inner_text().strip() for k in range(chips.count())
               if chips.nth(k).get_attribute("aria-checked") == "true"]
    main = page.locator('[data-testid="stMain"]').inner_text()
    prose = re.search(naming("start.where_each_word_looks", teaching=False), main)
    heading = re.search(naming("walkthrough.heading_section") + "\n", main + "\n")
    walk = [found[1] for t in page.evaluate(TITLES_JS)
            if (found := re.match(naming("walkthrough.figure_title", quoted=False), t))]
    show = re.search(naming("walkthrough.show_button"), main)  # the walk-through before it is asked for
    return {"chip": checked[0] if len(checked) == 1 else f"{len(checked)} chips checked",
            "sidebar": page.locator(TOKEN_LIST).input_value().split(": ", 1)[1],
            "prose": prose.group(1) if prose else "(missing)",
            "heading": heading.group(1) if heading else "(missing)",
            "walk-through": walk[0] if walk else
            show.group(1) if show else "(missing)"}


def click_chip(page, runs, index: int, label: str) -> None:
    """Click a chip and wait until the page names its token and the (fragment's) run is over."""
    since = time.perf_counter()
    page.locator(CHIPS).nth(index).click()
    page.wait_for_function("said => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(said)",
                           arg=label.join(PROSE), timeout=30_000)
    runs.wait_done(page, since)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=30_000)
    assert runs.runs_since(since) == 1, label


def test_every_label_names_the_clicked_chip_and_a_new_sentence_resets_it(server, browser, model):
    from bench.run import ScriptRuns

    labels = unique_labels([t for t in model.tokenize(SENTENCE) if t not in model.special_tokens])
    assert labels[:4] == ["the", "cat", "saw", "the²"] and "the³" in labels
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    runs = ScriptRuns(page)
    page.goto(f"{server}/?" + urllib.parse.urlencode({"sentence": SENTENCE}))
    wait_for_page(page)
    assert set(names_of_the_selected_token(page).values()) == {"the"}
    for index in [*range(1, len(labels)), 0]:  # every chip, then back to the first
        click_chip(page, runs, index, labels[index])
        names = names_of_the_selected_token(page)
        assert set(names.values()) == {labels[index]}, (index, names)
        assert (f"token={index}" in page.url) == (index > 0), page.url
    # The walk-through, once asked for, is redrawn by every chip click too.
    show_walkthrough(page)
    for index in (3, 6, 0):  # the², the³, the
        click_chip(page, runs, index, labels[index])
        page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                               ".some(t => t.textContent === title)",
                               arg=words("walkthrough.figure_title", language="en", token=labels[index]),
                               timeout=30_000)
        names = names_of_the_selected_token(page)
        assert set(names.values()) == {labels[index]}, (index, names)
    # The sidebar's list, redrawn by the same fragment, still selects: the page follows it.
    page.locator(TOKEN_LIST).click()
    page.keyboard.press("ArrowDown")
    page.locator('[data-testid="stSelectboxVirtualDropdown"] [role="option"]', has_text="4: the²").click()
    page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                           ".some(t => t.textContent === title)",
                           arg=words("walkthrough.figure_title", language="en", token="the²"), timeout=30_000)
    wait_for_page(page)
    assert set(names_of_the_selected_token(page).values()) == {"the²"}
    # State follows input: a second and a third sentence each start on their first token, everywhere.
    for sentence, first in (("A dog saw a dog.", "a"), ("I am good.", "i")):
        type_sentence(page, sentence, "good" if sentence == "I am good." else "dog²")
        assert set(names_of_the_selected_token(page).values()) == {first}, sentence
        assert "token=" not in page.url
    page.locator(CHIPS).nth(2).click()  # "good"
    page.wait_for_function("title => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
                           ".some(t => t.textContent === title)",
                           arg=words("walkthrough.figure_title", language="en", token="good"), timeout=30_000)
    wait_for_page(page)
    assert set(names_of_the_selected_token(page).values()) == {"good"}
    page.close()


def test_a_slides_layer_and_head_row_redraws_the_sidebar_too(server, browser):
    """The compact layer/head row sits inside the start page's fragment; a click there reruns the whole page, so
    the sidebar's layer and head, the link and every title name the same head."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/?" + urllib.parse.urlencode({"sentence": SENTENCE, "teach": "true"}))
    wait_for_page(page)
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"] button').filter(
        has_text=re.compile("^8$")).first.click()  # the head row's "8" (the layer row stops at 6): the code's head 7
    chosen = r"\s*".join(map(re.escape, layer_head_name(1, 7).split())) + r"(?!\d)"  # "layer 2, head 8"
    page.wait_for_function("chosen => [...document.querySelectorAll('.js-plotly-plot')]"
                           ".some(p => new RegExp(chosen).test(p.textContent))", arg=chosen, timeout=30_000)
    wait_for_page(page)
    sidebar = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]')
    assert [sidebar.nth(i).locator("input").input_value() for i in range(2)] == ["2", "8"]
    assert "head=7" in page.url
    assert head_name(8) not in " ".join(page.evaluate(TITLES_JS))  # the default head (the code's 8) is gone
    page.close()


STEP3_NAMES = {"heading": naming("step3.reading_header") + "\n", "table": naming("step3.table_title", quoted=False)}


def test_a_chip_on_a_step_page_reruns_only_what_follows_the_token(server, browser, model):
    """Step 3 draws its token part as a fragment too: one run per chip, and its chips, the sidebar's list, its
    heading and the softmax table's title name the same token after each click; a new sentence starts over."""
    from bench.run import ScriptRuns

    labels = unique_labels([t for t in model.tokenize(SENTENCE) if t not in model.special_tokens])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    runs = ScriptRuns(page)
    page.goto(f"{server}/step3_softmax?" + urllib.parse.urlencode({"sentence": SENTENCE}))
    wait_for_page(page)

    def names() -> dict[str, str]:
        chips = page.locator(CHIPS)
        checked = [chips.nth(k).inner_text().strip() for k in range(chips.count())
                   if chips.nth(k).get_attribute("aria-checked") == "true"]
        text = page.locator('[data-testid="stMain"]').inner_text() + "\n" + " ".join(page.evaluate(TITLES_JS))
        found = {name: re.search(pattern, text) for name, pattern in STEP3_NAMES.items()}
        return {"chip": checked[0] if len(checked) == 1 else f"{len(checked)} chips checked",
                "sidebar": page.locator(TOKEN_LIST).input_value().split(": ", 1)[1],
                **{name: match.group(1) if match else "(missing)" for name, match in found.items()}}

    assert set(names().values()) == {"the"}
    for index in (3, 1, 6):  # the², cat, the³
        since = time.perf_counter()
        page.locator(CHIPS).nth(index).click()
        page.wait_for_function("said => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(said)",
                               arg=labels[index].join(around_token("step3.reading_header")), timeout=30_000)
        runs.wait_done(page, since)
        page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=30_000)
        assert runs.runs_since(since) == 1
        assert set(names().values()) == {labels[index]}, (index, names())
        assert f"token={index}" in page.url
    type_sentence(page, "A dog saw a dog.", "dog²")
    assert set(names().values()) == {"a"}
    page.close()


COUNT_RELAYOUTS_JS = """() => { window.__relayouts = 0; const relayout = window.Plotly.relayout;
  window.Plotly.relayout = function (...args) { window.__relayouts += 1; return relayout.apply(this, args); }; }"""
PLACED_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.layout.meta && p.layout.meta.narrow)
  .map(p => ({applied: p.layout.meta.applied || 'wide', wide: p.clientWidth >= NARROW_PX}))"""


def test_a_figure_in_a_narrow_place_is_drawn_narrow_at_once(server, browser, model):
    """At a laptop's width the start page's lines figure sits in a column narrower than NARROW_FIGURE_PX: it is
    drawn with its narrow layout by the draw itself, so a chip click draws it once, not once and then again."""
    from bench.run import ScriptRuns

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    runs = ScriptRuns(page)  # listens from the first message
    page.goto(f"{server}/?" + urllib.parse.urlencode({"sentence": SENTENCE}))
    wait_for_page(page)
    placed_js = PLACED_JS.replace("NARROW_PX", str(NARROW_FIGURE_PX))
    placed = page.evaluate(placed_js)
    assert {"applied": "narrow", "wide": False} in placed, placed  # the lines figure beside the heatmap
    assert all(p["applied"] == ("wide" if p["wide"] else "narrow") for p in placed), placed
    page.evaluate(COUNT_RELAYOUTS_JS)
    labels = unique_labels([t for t in model.tokenize(SENTENCE) if t not in model.special_tokens])
    click_chip(page, runs, 1, labels[1])
    page.wait_for_timeout(300)  # a relayout would follow the draw by a frame
    assert page.evaluate("() => window.__relayouts") == 0
    assert page.evaluate(placed_js) == placed
    # Widened, the lines figure's place passes NARROW_FIGURE_PX and it takes its wide layout again.
    page.set_viewport_size({"width": 2400, "height": 1000})
    page.wait_for_function(f"() => ({placed_js})().every(p => p.applied === (p.wide ? 'wide' : 'narrow'))",
                           timeout=10_000)
    assert any(p["wide"] for p in page.evaluate(placed_js))
    page.close()
