"""The step pages print and draw the model's own numbers; the small pictures add up; torch loads only on demand."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, run_app
from wording import told

from attention import core
from lessons import explain
from ui.content import source, words
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER, Settings
from ui.text import layer_head_name, layer_name, md, pct, quote
from ui.view import build_view

LONG = "The animal didn't cross the street because it was too tired."


def chart(at, title_start):
    """The plotly spec whose title starts with title_start."""
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        if spec["layout"]["title"]["text"].startswith(title_start):
            return spec
    raise AssertionError(f"no figure titled {title_start!r}")


def z_of(spec):
    z = spec["data"][0]["z"]
    if isinstance(z, dict):  # plotly's compact binary encoding
        import base64
        shape = [int(d) for d in str(z["shape"]).split(",")]
        return np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(shape)
    return np.array(z, dtype=np.float64)


def lead(name):
    """A text's own words before its first placeholder or branch: where the page says it, in any language."""
    return source(name).split("{")[0]


def text_of(at):
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "success", "info") for e in at.get(kind))


@pytest.mark.parametrize("special", [False, True])
def test_learned_numbers_are_the_reference_models_attention(reference, special):
    """Heatmap and read-out of step 3 (and the home page's heatmap) = PyTorch's attention, nothing renormalised."""
    layer, head, token = 1, 8, 10 if special else 9   # “it” in LONG, with and without [CLS] in front
    expected_full = reference.analyze(LONG).attentions[layer, head]
    is_special = np.array([t in ("[CLS]", "[SEP]") for t in reference.analyze(LONG).tokens])
    shown = np.arange(len(is_special)) if special else np.flatnonzero(~is_special)
    hidden = np.setdiff1d(np.arange(len(is_special)), shown)
    expected = explain.fold_hidden(expected_full[shown], shown, hidden)
    for page, title in (("app_pages/step3_softmax.py", words("step3.weights_title")),
                        ("app_pages/home.py", "Attention weights")):
        at = run_app(page, LONG, layer=layer, head=head, special=special, token=token)
        assert not at.exception, at.exception
        drawn = z_of(chart(at, title))
        assert drawn.shape == expected.shape
        np.testing.assert_allclose(drawn, expected, atol=1e-5)
    row = expected[token]
    best = int(row.argmax())
    text = text_of(run_app("app_pages/step3_softmax.py", LONG, layer=layer, head=head, special=special, token=token))
    # the read-out under the matrix names the row's largest share first
    said = words("step3.reading", token="“it”", shares="\0").split("\0")[0]  # the words before the shares
    assert f"{said}**{100 * row[best]:.0f}%**" in text
    if not special:
        assert md(explain.MARKER_COLUMN) in text  # the hidden share is named in the read-out, not dropped


def test_softmax_table_last_column_is_the_row_and_products_sum_to_scores(model):
    analysis = model.analyze(LONG)
    x = analysis.hidden_states[DEFAULT_LAYER].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(DEFAULT_LAYER, DEFAULT_HEAD)))
    for i in range(len(x)):
        products, scores = explain.query_meets_keys(steps.q[i], steps.k)
        np.testing.assert_allclose(scores, steps.raw[i], rtol=1e-10, atol=1e-10)
        table = explain.softmax_arithmetic(steps.scaled[i])
        np.testing.assert_allclose(table[:, 3], steps.weights[i], atol=1e-12)
        assert table[:, 1].max() == 0 and table[:, 2].max() == 1
    folded = explain.fold_hidden(steps.weights, np.arange(1, len(x) - 1), np.array([0, len(x) - 1]))
    np.testing.assert_allclose(folded.sum(1), 1, atol=1e-12)


def test_softmax_table_on_the_page_ends_with_the_model_row(reference):
    at = run_app("app_pages/step3_softmax.py", LONG, layer=1, head=8, token=9)
    table = chart(at, words("step3.table_title", token="it"))["data"][0]["cells"]["values"]
    last = np.array(table[-1], dtype=float)
    np.testing.assert_allclose(last, reference.analyze(LONG).attentions[1, 8][10], atol=1e-4)  # printed to 4 places


def test_toy_modes_say_so_and_teaching_mode_hides_badge_and_downloads(model):
    badge = words("parity.same", language="en", head_name=layer_head_name(DEFAULT_LAYER, DEFAULT_HEAD, model.n_layers))
    toy = run_app("app_pages/step3_softmax.py", mode="identity")
    assert told("parity.toy").search(text_of(toy)) and badge not in text_of(toy)
    slide = run_app("app_pages/step3_softmax.py", teach=True)
    assert not slide.get("download_button") and badge not in text_of(slide)
    assert not slide.get("arrow_data_frame")
    normal = run_app("app_pages/step3_softmax.py")
    assert badge in [s.value for s in normal.success]   # the default head's weights are the model's (≤ 1e-5)


def test_pytorch_button_reports_the_measured_difference(reference, monkeypatch):
    monkeypatch.setenv("ATTENTION_PYTORCH", "on")  # the server's operator allows PyTorch (off by default)
    at = run_app("app_pages/step3_softmax.py", LONG, layer=1, head=8)
    at.button(key="pytorch-check").click().run()
    assert not at.exception, at.exception
    [report] = [found for s in at.success if (found := told("parity.check_result").match(s.value))]
    assert report["head_name"] == layer_head_name(1, 8, reference.n_layers)
    assert re.findall(r"\d+", report["head_name"]) == [str(1 + 1), str(8 + 1)]  # people count from 1
    assert float(report["gap_exp"]) < 1e-5 and report["gap_plain"] == words("text.tiny", language="en")


def test_the_app_does_not_import_torch_before_the_button():
    """A fresh interpreter (this test process may have torch already): run the app and two step pages."""
    script = (
        "import sys; sys.path.insert(0, 'tests'); from conftest import run_app\n"
        "for page in ('app_pages/home.py', 'app_pages/step3_softmax.py', 'app_pages/compare.py'):\n"
        "    at = run_app(page); assert not at.exception, at.exception\n"
        "print('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_compare_page_follows_the_shared_word_as_the_sentences_change(model):
    at = run_app("app_pages/compare.py")
    assert not at.exception, at.exception
    assert at.session_state["compare_word"] == "bank"
    ranked = [found for m in at.markdown if (found := told("compare.most_different").match(m.value))]
    assert [(r["n_heads"], r["word"]) for r in ranked] == [(str(model.n_layers * model.n_heads), quote("bank"))]
    at.text_input(key="compare_a").input("The cat sat on the mat.").run()
    at.text_input(key="compare_b").input("A cat ran.").run()
    assert not at.exception, at.exception
    assert at.session_state["compare_word"] == "cat"   # "bank" is gone: the choice follows the input
    at.text_input(key="compare_b").input("A dog ran").run()
    assert not at.exception and words("compare.no_shared", language="en") in [i.value for i in at.info]


def test_one_words_output_from_every_head_is_the_four_steps_run_head_by_head(model):
    """The compare page ranks 72 heads by one vectorised computation; it must be the step chain's numbers."""
    first = model.analyze("I sat on the river bank and watched the water.")
    second = model.analyze("I opened an account at the bank downtown.")
    positions = first.tokens.index("bank"), second.tokens.index("bank")

    def word_output(analysis, position, layer, head):
        x = analysis.hidden_states[layer].astype(np.float64)
        return core.run_steps(*core.learned_projection(x, model.head_weights(layer, head))).output[position]

    chain = np.array([[word_output(first, positions[0], layer, head) for head in range(model.n_heads)]
                      for layer in range(model.n_layers)])
    for layer in (0, 3, 5):
        np.testing.assert_allclose(
            explain.token_output_by_head(first.hidden_states[layer].astype(np.float64), model.layer_weights(layer),
                                         model.n_heads, positions[0]), chain[layer], rtol=0, atol=1e-12)
    other = np.array([[word_output(second, positions[1], layer, head) for head in range(model.n_heads)]
                      for layer in range(model.n_layers)])
    cosines = (chain * other).sum(-1) / (np.linalg.norm(chain, axis=-1) * np.linalg.norm(other, axis=-1))
    grid = explain.head_output_similarity(
        [first.hidden_states[layer].astype(np.float64) for layer in range(model.n_layers)],
        [second.hidden_states[layer].astype(np.float64) for layer in range(model.n_layers)],
        [model.layer_weights(layer) for layer in range(model.n_layers)], model.n_heads, *positions)
    assert grid.shape == (model.n_layers, model.n_heads)
    np.testing.assert_allclose(grid, cosines, rtol=0, atol=1e-10)  # the page adds 1e-12 to the norms
    assert grid.argmin() == cosines.argmin() and cosines.min() < 0.5  # some head does change "bank"


def test_step4_says_the_self_share_once_and_counts_weight_and_length_apart(model):
    at = run_app("app_pages/step4_output.py", LONG, layer=1, head=8, token=9)
    [line] = [m.value for m in at.markdown if m.value.startswith(lead("step4.changed"))]
    # A weight is not a share of the output vector (issue 51): the page gives the other words' weight and, apart,
    # their part counted as weight × the value's length, computed here from the model.
    analysis = model.analyze(LONG)
    me = int(np.flatnonzero(~analysis.is_special)[9])
    steps = core.run_steps(*core.learned_projection(analysis.hidden_states[1].astype(np.float64),
                                                    model.head_weights(1, 8)))
    others = ~analysis.is_special
    others[me] = False
    weight = steps.weights[me][others].sum()
    lengths = steps.weights[me] * np.linalg.norm(steps.v, axis=1)
    by_length = lengths[others].sum() / lengths.sum()
    assert by_length - weight > 0.1  # "it": 77% of the weight, 94% by length (the markers' values are short)
    assert pct(weight) in line and pct(by_length) in line
    # the likeness (cosine similarity) is a technical extra, once, in its "More detail" box (issue 41)
    output = steps.output[me]
    cosine = steps.v @ output / (np.linalg.norm(steps.v, axis=1) * np.linalg.norm(output) + 1e-12)
    closest = int(np.argmax(cosine))
    likeness = (words("step4.likeness_own", own=f"{cosine[me]:.2f}") if closest == me else
                words("step4.likeness_other", closest_token=f"“{analysis.tokens[closest]}”",
                      closest=f"{cosine[closest]:.2f}", own=f"{cosine[me]:.2f}"))
    [box] = [e for e in at.expander if str(e.label) == words("step_page.more_detail",
                                                              what=words("step4.detail_likeness", token="“it”"))]
    assert [str(m.value) for m in box.markdown] == [likeness] and likeness not in line


def test_every_step_page_has_previous_and_next():
    for page in ("app_pages/step1_scores.py", "app_pages/step2_scaling.py", "app_pages/step3_softmax.py",
                 "app_pages/step4_output.py"):
        at = run_app(page)
        labels = [link.label for link in at.get("page_link")]
        assert any(label.startswith("← Previous") for label in labels), page
        assert any(label.startswith("Next") for label in labels), page


def test_token_chips_under_the_title_select_the_sidebar_token():
    at = run_app("app_pages/step3_softmax.py", "The cat sat on the mat.")
    [chips] = at.get("button_group")
    assert chips.value == 0
    chips.set_value(2).run()
    assert not at.exception and at.session_state["token"] == 2
    # A slide keeps the chips, and a compact layer/head row that sets the sidebar's layer and head.
    slide = run_app("app_pages/step3_softmax.py", "The cat sat on the mat.", teach=True)
    layers, heads, tokens = slide.get("button_group")
    assert [layers.key, heads.key, tokens.key] == ["layer_compact", "head_compact", "token_chips"]
    heads.set_value(7).run()  # (that the figure follows is checked in Chromium: tests/test_screens.py)
    assert not slide.exception and slide.session_state["head"] == 7


@pytest.mark.parametrize("mode, layer", [("identity", 0), ("random", 0), ("learned", 0), ("learned", 3)])
def test_q_k_v_are_made_from_the_vectors_the_page_names(model, mode, layer):
    """The toys start from the embedding layer's output, before any attention (issue 51: they ran on the last
    layer's output); learned mode from the vectors entering the chosen layer, and step 1 names that layer."""
    analysis = model.analyze(LONG)
    view = build_view(Settings(LONG, mode, 32, 0, layer, 1, False, 0, False, ""), model, analysis)
    words = ~analysis.is_special
    np.testing.assert_array_equal(view.x, analysis.hidden_states[layer if mode == "learned" else 0][words])
    if mode != "learned":  # the embedding layer: word + position + token type, normalised, no attention yet
        from lessons.training import embed_tokens
        ids = np.array(model.vocabulary_ids(analysis.tokens))
        embedded = embed_tokens(model.embedding_tables(), ids, np.zeros_like(ids))
        np.testing.assert_allclose(view.x, embedded[words], atol=1e-4)
        assert np.abs(view.x - analysis.hidden_states[-1][words]).max() > 1  # not the last layer's output
    at = run_app("app_pages/step1_scores.py", LONG, mode=mode, layer=layer, head=1)
    assert not at.exception, at.exception
    text = text_of(at)
    named = [layer_name(other, model.n_layers) in text for other in range(model.n_layers)]
    # A layer is named as where X comes from only in learned mode, and then only the chosen one.
    assert named == [mode == "learned" and other == layer for other in range(model.n_layers)]


@pytest.mark.parametrize("first, second", [(None, None), ("The cat sat on the mat.", "The cat ran.")])
def test_compare_gives_position_alone_as_the_control_for_a_changed_vector(model, first, second):
    """Below 1 is not "the context changed it": position is in every vector before any attention (issue 51). The
    page prints, beside the head's cosine, the cosine of the word's two embedding-layer vectors, which differ by
    nothing but position: below 1 at different positions, 1 at the same."""
    at = run_app("app_pages/compare.py")
    if first:
        at.text_input(key="compare_a").input(first).run()
        at.text_input(key="compare_b").input(second).run()
    assert not at.exception, at.exception
    word = at.session_state["compare_word"]
    texts = [at.text_input(key=key).value for key in ("compare_a", "compare_b")]
    analyses = [model.analyze(text) for text in texts]
    places = [analysis.tokens.index(word) for analysis in analyses]
    a, b = (analysis.hidden_states[0][place] for analysis, place in zip(analyses, places))
    before = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert (before < 0.995) == (places[0] != places[1])
    said = told("compare.output", place_a=places[0], place_b=places[1], teaching=False)
    [paragraph] = [found for m in at.markdown if (found := said.match(m.value))]
    assert paragraph["before"] == f"{before:.2f}" and paragraph["word"] == quote(word), paragraph.group()


def test_the_glossarys_embedding_is_word_and_position_before_any_attention(model):
    """What the toys start from, as the glossary defines it: the same word at the same position has the same
    embedding whatever the sentence; at another position it does not, so the definition names position."""
    from ui.sections.glossary import entry

    first, second, moved = (model.analyze(s) for s in ("The cat sat.", "The cat ran away.", "A big cat sat."))
    cat = [a.hidden_states[0][a.tokens.index("cat")] for a in (first, second, moved)]
    np.testing.assert_allclose(cat[0], cat[1], atol=1e-6)  # other words, same position: nothing changes
    assert np.abs(cat[0] - cat[2]).max() > 0.1            # another position: the embedding changes
    _name, explanation = entry("embedding", language="en")
    assert "position" in explanation and "attention" in explanation


def test_step2_says_the_spread_its_line_chart_draws():
    """The sentence under the spread chart reads its last points (the longest vectors measured), as drawn."""
    import base64

    def values(array):  # plotly's compact binary encoding, or a plain list
        return (np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]) if isinstance(array, dict)
                else np.asarray(array)).astype(float)

    at = run_app("app_pages/step2_scaling.py")
    assert not at.exception, at.exception
    spec = chart(at, words("step2.spread_title", samples=f"{explain.SPREAD_SAMPLES:,}"))
    raw, scaled = (values(trace["y"]) for trace in spec["data"])
    d_k = int(values(spec["data"][0]["x"])[-1])
    assert words("step2.spread_result", d_k=d_k, raw=f"{raw[-1]:.1f}", root=f"{np.sqrt(d_k):.1f}",
                 scaled=f"{scaled[-1]:.2f}") in text_of(at)
    assert scaled[-1] == pytest.approx(1, abs=0.1) and raw[-1] == pytest.approx(np.sqrt(d_k), rel=0.1)
