"""One story, told by the numbers on screen (issue 29): every share and count the prose names is one the page
draws. Each page runs in-process on the default view, two more sentences and the one-hot previous-word head; the
drawn numbers are read from the figures' plotly specs, the prose from the page's text."""

import base64
import html
import json
import re

import numpy as np
import pytest
from conftest import run_app

from ui.text import pct

LONG = "The animal didn't cross the street because it was too tired."
RIVER = "I sat on the river bank and watched the water."
VIEWS = {
    "default": {},
    "the² in the pronoun sentence": {"sentence": LONG, "token": 6},   # the second "the"
    "bank": {"sentence": RIVER, "token": 5},
    "previous-word head": {"layer": 0, "head": 2},                       # every row one-hot
}
PAGES = ["app_pages/home.py", "app_pages/step1_scores.py", "app_pages/step2_scaling.py", "app_pages/step3_softmax.py",
         "app_pages/step4_output.py", "app_pages/whatif.py"]
# "**72%** on “am”", "5% from itself", "looks **48%** at “and”": a share the prose names, and its key.
SHARE = re.compile(r"\*{0,2}(\d+(?:\.\d)?%)\*{0,2} (?:on|from|at) (itself|“([^”]*)”)")


def decode(values):
    if isinstance(values, dict):  # plotly's compact binary encoding
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        return array.reshape([int(d) for d in str(values["shape"]).split(",")]) if "shape" in values else array
    return np.asarray(values)


def label(text) -> str:
    """An axis label or a quoted prose token, as the student reads it."""
    return html.unescape(str(text)).replace("\u200b", "").replace("\\", "")


class Figures(dict):
    """The page's figures by title; [prefix] gives the first whose title starts with it."""

    def __getitem__(self, prefix):
        return next(spec for title, spec in self.items() if title.startswith(prefix))


def figures_of(at):
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    return Figures((spec["layout"]["title"]["text"], spec) for spec in specs)


def heatmap(spec):
    trace = spec["data"][0]
    return (decode(trace["z"]).astype(float), [label(y) for y in trace["y"]],
            [label(x) for x in trace["x"]] if trace.get("x") is not None else None)


def text_of(at):
    return [str(e.value) for kind in ("markdown", "caption") for e in at.main.get(kind)]


def named_shares(texts):
    """(share as printed, key label or None for "itself", the sentence) for every share the prose names."""
    return [(m.group(1), None if m.group(2) == "itself" else label(m.group(3)), t) for t in texts
            for m in SHARE.finditer(t)]


def run(page, **view):
    settings = dict(view)
    at = run_app(page, settings.pop("sentence", None), **settings)
    assert not at.exception, at.exception
    return at


def selected(at):
    s = at.session_state["_settings"]
    return s.token


def check_shares_against_row(texts, row, keys, me):
    """Every share named is the drawn row's share of that key, printed as the page prints it."""
    claims = named_shares(texts)
    for printed, key, sentence in claims:
        j = me if key is None else keys.index(key)  # ValueError: a key the matrix does not have
        assert printed == pct(row[j]), (printed, key, pct(row[j]), sentence[:160])
    return claims


@pytest.mark.parametrize("name", list(VIEWS))
def test_the_home_and_step3_read_outs_are_the_drawn_row(name):
    for page, title in (("app_pages/home.py", "Attention weights"),
                        ("app_pages/step3_softmax.py", "Step 3 · attention weights")):
        at = run(page, **VIEWS[name])
        weights, rows, keys = heatmap(figures_of(at)[title])
        me = selected(at)
        np.testing.assert_allclose(weights.sum(1), 1, atol=1e-4)  # the model's rows, nothing renormalised
        texts = [t for t in text_of(at) if "focuses" in t or "puts" in t]
        assert check_shares_against_row(texts, weights[me], keys, me), texts
        # "…, and 3% on the other 2 keys": the rest is the drawn row's rest.
        for t in texts:
            named = {(None if k is None else keys.index(k)) for _, k, _ in named_shares([t])}
            named = {me if j is None else j for j in named}
            rest = re.search(r"and (\d+(?:\.\d)?%|nothing) on the (one|other \d+) (?:other )?keys?", t)
            assert rest or len(named) == len(keys), t  # every key is named, or the rest is counted
            if rest:
                count = 1 if rest.group(2) == "one" else int(rest.group(2).split()[1])
                assert count == len(keys) - len(named), t
                left = weights[me, [j for j in range(len(keys)) if j not in named]].sum()
                assert rest.group(1) == ("nothing" if left == 0 else pct(left)), t
        if page == "app_pages/step3_softmax.py":
            whys = "\n".join(text_of(at))
            count = re.search(r"The (\d+) rows drawn", whys)
            assert count and int(count.group(1)) == weights.shape[0]  # not the 6 rows the model has
            cells = re.search(r"draws (\d+) rows and (\d+) columns", whys)
            assert cells is None or (int(cells.group(1)), int(cells.group(2))) == weights.shape
            columns = re.search(r"the (\d+) drawn add up", whys)
            assert columns and int(columns.group(1)) == weights.shape[1]


@pytest.mark.parametrize("name", list(VIEWS))
def test_step1_and_step2_show_what_step3_counts(name):
    at3 = run("app_pages/step3_softmax.py", **VIEWS[name])
    weights, _, weight_keys = heatmap(figures_of(at3)["Step 3 · attention weights"])
    at = run("app_pages/step1_scores.py", **VIEWS[name])
    me = selected(at)
    scores, rows, keys = heatmap(figures_of(at)["Step 1 · raw scores"])
    assert keys == weight_keys  # the same columns as step 3, the hidden markers as one key too
    assert rows == [r for r in weight_keys[:len(rows)]]
    one_query = figures_of(at)[f"q({rows[me]}) × each key"]["data"][1]
    every_key = decode(one_query["x"]).astype(float)
    best = re.search(r"The biggest sum is with .*?\(\*\*(-?\d+\.\d\d)\*\*\)", "\n".join(text_of(at)))
    assert best and float(best.group(1)) == pytest.approx(every_key.max(), abs=0.006)
    # The largest score is drawn too (the markers' one column is at least the larger of their two scores).
    assert scores[me].max() >= every_key.max() - 1e-3
    assert len(every_key) == len(rows) + 2  # every key the model compares with: [CLS] and [SEP] as rows

    at = run("app_pages/step2_scaling.py", **VIEWS[name])
    bars = figures_of(at)
    [title] = [t for t in dict.keys(bars) if t.startswith("Row of")]
    traces = {trace["name"]: decode(trace["y"]).astype(float) for trace in bars[title]["data"]}
    bar_keys = [label(x) for x in bars[title]["data"][0]["x"]]
    assert bar_keys == weight_keys
    text = "\n".join(text_of(at))
    unscaled = re.search(r"Without scaling, softmax puts \*\*(\S+)\*\* on “([^”]*)”", text)
    scaled = re.search(r"with scaling, the largest weight is \*\*(\S+)\*\* on “([^”]*)”", text)
    for found, series in ((unscaled, "softmax without scaling"), (scaled, "softmax with scaling")):
        row = traces[series]
        assert found and found.group(1) == pct(row.max()) and bar_keys.index(label(found.group(2))) == row.argmax()
    picked = title[len("Row of “"):title.index("”")]
    if picked != rows[me]:  # the selected row did not change with scaling: the page says it picked another
        assert f"the row where scaling changes most, that of “{picked}”" in label(text)
    entropies = re.search(r"(?:goes from (\d+\.\d\d) to (\d+\.\d\d)|stays at (\d+\.\d\d)) bits", text)
    assert entropies, text


@pytest.mark.parametrize("name", list(VIEWS))
def test_step4_shares_are_the_drawn_weights(name):
    at3 = run("app_pages/step3_softmax.py", **VIEWS[name])
    weights, _, keys = heatmap(figures_of(at3)["Step 3 · attention weights"])
    at = run("app_pages/step4_output.py", **VIEWS[name])
    me = selected(at)
    _, sum_rows, _ = heatmap(figures_of(at)["Output of “" + keys[me] + "” as a weighted sum"])
    for share, key in zip(weights[me], keys):  # the figure's rows name the same shares: "72% × v(am)"
        assert f"{pct(share)} × v({key})" in sum_rows  # rounded as the sentences round it
    texts = [t for t in text_of(at) if t.startswith("Each row below") or t.startswith("**What changed:**")]
    assert check_shares_against_row(texts[:1], weights[me], keys, me)
    changed = label(texts[1])
    # The weights the heatmap draws: its own, the other words' together, [CLS] and [SEP]'s (learned mode).
    words = weights[me, :len(keys) - 1].sum() - weights[me, me]
    assert pct(weights[me, me]) in changed and (words < 0.005 or pct(words) in changed), changed
    if weights[me, -1] >= 0.005:
        assert pct(weights[me, -1]) in changed, changed
    # No claim about a task the page has not measured.
    assert "as the dog" not in "\n".join(text_of(at)) and "has not measured" in "\n".join(text_of(at))


@pytest.mark.parametrize("name", list(VIEWS))
def test_whatif_reads_out_the_outlined_row(name):
    at = run("app_pages/whatif.py", **VIEWS[name])
    specs = figures_of(at)
    normal = next(spec for title, spec in specs.items() if title.startswith("Weights") and "normal" in title)
    variant = next(spec for title, spec in specs.items() if title.startswith("Weights") and "normal" not in title)
    text = label("\n".join(text_of(at)))
    found = re.search(r"For “([^”]*)”: the largest weight is (\S+) normally and (\S+) here", text)
    assert found, text
    w_normal, rows, _ = heatmap(normal)
    w_variant, _, _ = heatmap(variant)
    j = rows.index(found.group(1))
    assert normal["layout"]["shapes"][0]["y0"] == j - 0.5  # the outlined row is the one read out
    assert (found.group(2), found.group(3)) == (pct(w_normal[j].max()), pct(w_variant[j].max()))
    entropy = re.search(r"mean entropy (?:goes from (\S+) to (\S+)|stays at (\S+)) bits", text)
    assert entropy  # the default variant is "no √d_k scaling": it says what happened, or that nothing did


def test_the_one_hot_head_says_so_instead_of_teaching_a_change_that_is_not_there():
    text = label("\n".join(text_of(run("app_pages/step2_scaling.py", **VIEWS["previous-word head"]))))
    assert "scaling barely changes any row of your sentence" in text and "stays at 0.00 bits" in text
    text = label("\n".join(text_of(run("app_pages/whatif.py", **VIEWS["previous-word head"]))))
    assert "yet the mean entropy stays at 0.00 bits" in text


def test_compare_names_only_shares_its_heatmaps_draw():
    at = run("app_pages/compare.py")
    word = at.session_state["compare_word"]
    texts = [t for t in text_of(at) if t.startswith(f"Here “{word}” looks")]
    specs = figures_of(at)
    assert len(texts) == 2
    for which, text in zip(("First", "Second"), texts):
        weights, rows, keys = heatmap(specs[f"{which} sentence · attention weights"])
        me = rows.index(word)
        claims = named_shares([text])
        assert claims
        for printed, key, _ in claims:
            columns = [me] if key is None else [j for j, k in enumerate(keys) if k == key]
            assert any(printed == pct(weights[me, j]) for j in columns), (printed, key, text)


def test_the_pronoun_verdict_is_the_numbers_under_it():
    """The verdict's counts are the test-set table's (the head chosen in advance, on the held-out sentences), its
    shares on this sentence are the weight grid's cell for that head, and the count of heads that look at the two
    words is the preference grid's."""
    at = run("app_pages/pronoun.py")
    text = "\n".join(text_of(at))
    verdict = next(line for line in text.split("\n") if line.startswith("**Verdict:"))
    table = at.get("table")[-1].value  # the head chosen in advance, the two fixed rules, guessing
    chosen = table[table["who"].str.startswith("the head chosen in advance")].iloc[0]
    for count in (chosen["easy-cue sentences right"], chosen["pairs fully right"]):
        assert f"**{count}**" in verdict, (count, verdict)
    # Named as people count ("layer 4, head 2"): the grid's cell is one less on each side.
    layer, head = (int(n) - 1 for n in re.search(r"layer (\d+), head (\d+)", chosen["who"]).groups())
    weights = figures_of(at)["Weight “it”→dog"]
    grid = decode(weights["data"][0]["z"]).astype(float)
    said = re.search(r"On this sentence it gives “dog” (\d+)%", verdict)
    assert said and int(said.group(1)) == round(100 * grid[layer, head]), (said, grid[layer, head])
    shares = decode(figures_of(at)["Share of “it”→dog vs food"]["data"][0]["z"]).astype(float)
    looking = ~np.isnan(shares)
    counted = re.search(r"Of the (\d+) heads that do look at the two words, (\d+) prefer “dog”", text)
    assert counted and int(counted.group(1)) == looking.sum() and int(counted.group(2)) == (shares[looking] > 0.5).sum()


@pytest.mark.parametrize("name", list(VIEWS))
def test_step3_says_when_a_rows_printed_cells_do_not_add_up_to_one(name):
    """"Every row adds up to 1" beside cells that read 0.99: the page names the row whose two-decimal cells are
    furthest from 1.00 and what they add up to, and says nothing when every printed row reads 1.00 or the cells
    print no numbers (14 tokens)."""
    at = run("app_pages/step3_softmax.py", **VIEWS[name])
    spec = figures_of(at)["Step 3 · attention weights"]
    weights, rows, _keys = heatmap(spec)
    printed = np.round(weights, 2).sum(1)
    said = re.search(r"can add up to (\d\.\d\d) \(the row of “([^”]*)”\)", "\n".join(text_of(at)))
    drawn = spec["data"][0].get("texttemplate") == "%{z:.2f}"  # cells too small for numbers print none
    if not drawn or np.all(np.abs(printed - 1) < 0.005):
        assert said is None, said.group(0)
        return
    worst = int(np.argmax(np.abs(printed - 1)))
    assert said, (name, printed)
    assert float(said.group(1)) == pytest.approx(printed[worst]) and label(said.group(2)) == rows[worst]
