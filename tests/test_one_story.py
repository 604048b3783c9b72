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

from attention import core

from ui.text import pct
from ui.content import words
from wording import lead, told

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
SHARE = re.compile(r"\*{0,2}(<1%|\d+(?:\.\d)?%)\*{0,2} (?:on|from|at) (itself|“([^”]*)”)")


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
                        ("app_pages/step3_softmax.py", words("step3.weights_title"))):
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
            rest = re.search(r"and (<1%|\d+(?:\.\d)?%|nothing) on the (one|other \d+) (?:other )?keys?", t)
            assert rest or len(named) == len(keys), t  # every key is named, or the rest is counted
            if rest:
                count = 1 if rest.group(2) == "one" else int(rest.group(2).split()[1])
                assert count == len(keys) - len(named), t
                left = weights[me, [j for j in range(len(keys)) if j not in named]].sum()
                assert rest.group(1) == ("nothing" if left == 0 else pct(left)), t
        if page == "app_pages/step3_softmax.py":
            whys = "\n".join(text_of(at))
            [count] = [m for equal in (True, False) for m in [told("whys.rows_answer", equal=equal).search(whys)] if m]
            assert int(count.group("rows")) == weights.shape[0]  # not the 6 rows the model has
            [cells] = [m for drawn, folded in ((True, False), (False, False), (False, True))
                       for m in [told("whys.row_by_row_answer", all_drawn=drawn, folded=folded).search(whys)] if m]
            assert int(cells.group("columns")) == weights.shape[1]
            assert "rows" not in cells.groupdict() or int(cells.group("rows")) == weights.shape[0]


@pytest.mark.parametrize("name", list(VIEWS))
def test_step1_and_step2_show_what_step3_counts(name):
    at3 = run("app_pages/step3_softmax.py", **VIEWS[name])
    weights, _, weight_keys = heatmap(figures_of(at3)[words("step3.weights_title")])
    at = run("app_pages/step1_scores.py", **VIEWS[name])
    me = selected(at)
    scores, rows, keys = heatmap(figures_of(at)[words("step1.scores_title")])
    # The same columns as step 3, except that raw scores do not add up: step 3's one column of the hidden markers'
    # weights added is, in the scores, one column per marker ([CLS] and [SEP], in the sentence's order).
    specials = [t for t in ("[CLS]", "[SEP]") if t not in rows]
    assert keys == (weight_keys[:-1] + specials if specials else weight_keys)
    assert rows == [r for r in weight_keys[:len(rows)]]
    one_query = figures_of(at)[f"q({rows[me]}) × each key"]["data"][1]
    every_key = decode(one_query["x"]).astype(float)
    meets = told("step1.meets_text").search("\n".join(text_of(at)))
    best = meets and re.search(r"\(\*\*(-?\d+\.\d\d)\*\*\)", meets.group("best"))
    assert best and float(best.group(1)) == pytest.approx(every_key.max(), abs=0.006)
    # Every key's score is drawn: the row's largest is the largest the page names.
    assert scores[me].max() == pytest.approx(every_key.max(), abs=1e-3)
    assert len(every_key) == len(rows) + 2  # every key the model compares with: [CLS] and [SEP] as rows

    at = run("app_pages/step2_scaling.py", **VIEWS[name])
    bars = figures_of(at)
    [title] = [t for t in dict.keys(bars) if t in {words("step2.bars_title", token=token) for token in weight_keys}]
    traces = {trace["name"]: decode(trace["y"]).astype(float) for trace in bars[title]["data"]}
    bar_keys = [label(x) for x in bars[title]["data"][0]["x"]]
    assert bar_keys == weight_keys
    text = "\n".join(text_of(at))
    said = told("step2.bars_text").search(text)
    assert said, text
    for which, series in (("top_unscaled", words("step2.bar_unscaled")), ("top_scaled", words("step2.bar_scaled"))):
        row = traces[series]
        assert said.group(which) == pct(row.max())
        assert bar_keys.index(label(said.group(f"{which}_key")).strip("“”")) == row.argmax()
    picked = label(said.group("picked")).strip("“”")
    assert title == words("step2.bars_title", token=picked)
    if picked != rows[me]:  # the selected row did not change with scaling: the page says it picked another
        note = told("step2.picked_note").search(text)
        assert note and label(note.group("picked")) == f"“{picked}”"
    assert told("step2.entropy_text", changed=True).search(text) or told("step2.entropy_text", changed=False).search(
        text), text


@pytest.mark.parametrize("name", list(VIEWS))
def test_step4_shares_are_the_drawn_weights(name):
    at3 = run("app_pages/step3_softmax.py", **VIEWS[name])
    weights, _, keys = heatmap(figures_of(at3)[words("step3.weights_title")])
    at = run("app_pages/step4_output.py", **VIEWS[name])
    me = selected(at)
    _, sum_rows, _ = heatmap(figures_of(at)[words("step4.sum_title", token=keys[me])])
    for share, key in zip(weights[me], keys):  # the figure's rows name the same shares: "72% × v(am)"
        assert f"{pct(share)} × v({key})" in sum_rows  # rounded as the sentences round it
    texts = [t for t in text_of(at) if told("step4.sum_text").fullmatch(t) or t.startswith(lead("step4.changed"))]
    assert check_shares_against_row(texts[:1], weights[me], keys, me)
    changed = label(texts[1])
    # The weights the heatmap draws: its own, the other words' together, [CLS] and [SEP]'s (learned mode).
    others = weights[me, :len(keys) - 1].sum() - weights[me, me]
    assert pct(weights[me, me]) in changed and (others < 0.005 or pct(others) in changed), changed
    if weights[me, -1] >= 0.005:
        assert pct(weights[me, -1]) in changed, changed
    # No claim about a task the page has not measured.
    from ui.content import source

    said_after_branches = source("whys.context_answer").rsplit("%}", 1)[1].strip()  # "…has not measured…"
    assert "as the dog" not in "\n".join(text_of(at)) and said_after_branches in "\n".join(text_of(at))


@pytest.mark.parametrize("name", list(VIEWS))
def test_whatif_reads_out_the_outlined_row(model, name):
    from lessons.whatif import effect, variants

    at = run("app_pages/whatif.py", **VIEWS[name])
    specs = figures_of(at)
    normal = specs[words("whatif.figure_weights", variant=words("whatif.variant_normal"))]
    # the default variant is "no √d_k scaling"
    variant = specs[words("whatif.figure_weights", variant=words("whatif.variant_no_scaling"))]
    text = label("\n".join(text_of(at)))
    w_normal, rows, _ = heatmap(normal)
    w_variant, _, _ = heatmap(variant)
    j = int(normal["layout"]["shapes"][0]["y0"] + 0.5)  # the outlined row is the one read out, with its numbers
    assert label(words("whatif.row_note", token=f"“{rows[j]}”", normal=pct(w_normal[j].max()),
                       here=pct(w_variant[j].max()))) in text
    # The mean entropies with and without scaling, over every token the model sees: the table's numbers.
    analysis = model.analyze(VIEWS[name].get("sentence", "I am good."))
    layer, head = VIEWS[name].get("layer", 1), VIEWS[name].get("head", 8)
    q, k, v = core.learned_projection(analysis.hidden_states[layer].astype(np.float64), model.head_weights(layer, head))
    runs = variants(q, k, v)
    before, after = effect(runs["normal"], runs["normal"]), effect(runs["no_scaling"], runs["normal"])
    assert f"{after.entropy:.2f} bits" in text and f"{before.entropy:.2f}" in text


def test_the_one_hot_head_says_so_instead_of_teaching_a_change_that_is_not_there():
    text = label("\n".join(text_of(run("app_pages/step2_scaling.py", **VIEWS["previous-word head"]))))
    stays = told("step2.entropy_text", changed=False).search(text)
    from ui.readouts import NEXT_WORD_PRESET
    from ui.settings import preset_name

    # no row changes: the page says so, with the largest change it measured, and points to a head where one does
    none = told("readouts.no_contrast", preset=preset_name(NEXT_WORD_PRESET)).search(text)
    assert none and none.group("change") == "0.00" and stays and stays.group("after") == "0.00"
    text = label("\n".join(text_of(run("app_pages/whatif.py", **VIEWS["previous-word head"]))))
    from ui.content import words  # every row one-hot: the branch that says the entropy stays, and why

    assert words("whatif.explain_no_scaling", lower=False, peaked=True, before="0.00", after="0.00",
                 mean_of=words("whatif.mean_of", n=6)) in text


def test_compare_names_only_shares_its_heatmaps_draw():
    at = run("app_pages/compare.py")
    word = at.session_state["compare_word"]
    texts = [t for t in text_of(at) if told("compare.looks", word=f"“{word}”").fullmatch(t)]
    specs = figures_of(at)
    assert len(texts) == 2
    for which, text in zip(("compare.figure_first", "compare.figure_second"), texts):
        weights, rows, keys = heatmap(specs[words(which)])
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
    verdict = next(line for line in text.split("\n") if line.startswith(lead("pronoun.verdict_head").strip()))
    # how it was measured: one click under the verdict, in its box
    [box] = [e for e in at.expander if e.label == words("pronoun.verdict_how_label")]
    measured = " ".join(str(m.value) for m in box.markdown)
    table = at.get("table")[-1].value  # the head chosen in advance, the two fixed rules, guessing
    who = words("pronoun_testset.column_who")
    [chosen] = [row for _, row in table.iterrows() if told("pronoun_testset.who_chosen").fullmatch(row[who])]
    for count in (chosen[words("pronoun_testset.column_easy")], chosen[words("pronoun_testset.column_pairs")]):
        assert f"**{count}**" in measured, (count, measured)
    # Named as people count ("layer 4, head 2"): the grid's cell is one less on each side.
    layer, head = (int(n) - 1 for n in re.findall(r"\d+", told("pronoun_testset.who_chosen").fullmatch(
        chosen[who]).group("head")))
    weights = figures_of(at)["Weight “it”→dog"]
    grid = decode(weights["data"][0]["z"]).astype(float)
    said = told("pronoun.verdict_here", a="“dog”", pronoun="“it”").search(verdict)
    assert said and int(said.group("weight_a").rstrip("%")) == round(100 * grid[layer, head]), (said, grid[layer, head])
    shares = decode(figures_of(at)["Share of “it”→dog vs food"]["data"][0]["z"]).astype(float)
    looking = ~np.isnan(shares)
    counted = told("pronoun.numbers_say", line_of="n_looking", looking="some", a="“dog”").search(text)
    assert counted and int(counted.group("n_looking")) == looking.sum()
    assert int(counted.group("n_looking_a")) == (shares[looking] > 0.5).sum()


@pytest.mark.parametrize("name", list(VIEWS))
def test_step3_says_when_a_rows_printed_cells_do_not_add_up_to_one(name):
    """"Every row adds up to 1" beside cells that read 0.99: the page names the row whose two-decimal cells are
    furthest from 1.00 and what they add up to, and says nothing when every printed row reads 1.00 or the cells
    print no numbers (14 tokens)."""
    at = run("app_pages/step3_softmax.py", **VIEWS[name])
    spec = figures_of(at)[words("step3.weights_title")]
    weights, rows, _keys = heatmap(spec)
    printed = np.round(weights, 2).sum(1)
    said = told("step3.weights_text", rounded=True).search("\n".join(text_of(at)))
    drawn = spec["data"][0].get("texttemplate") == "%{z:.2f}"  # cells too small for numbers print none
    if not drawn or np.all(np.abs(printed - 1) < 0.005):
        assert said is None, said.group(0)
        return
    worst = int(np.argmax(np.abs(printed - 1)))
    assert said, (name, printed)
    assert float(said.group("printed_sum")) == pytest.approx(printed[worst])
    assert label(said.group("row_token")) == f"“{rows[worst]}”"
