"""Issue 55 (5): one marker column. With [CLS] and [SEP] hidden, every page and offline file draws them as ONE
column of WEIGHTS with one label (explain.MARKER_COLUMN): the two weights added (rows still add up to 1). Raw scores
do not add up, so the score matrices of steps 1 and 2 give each marker's key its own column, after the words': softmax
of a drawn score row, the two markers' weights then added, is step 3's drawn row. The walk-through's folded score is
the one whose e-value is their e-values added. And softmax's arithmetic is shown one way: step 3 and the walk-through
print the same sum.
Every expected number is computed here from the model (the `model` fixture), never from the page's code."""

import base64
import html
import json
import re

import numpy as np
import pytest
from conftest import run_app

from attention import core
from lessons.explain import MARKER_COLUMN
from ui.sections import head_flip as HF
from ui.labels import unique_labels
from ui.sections import walkthrough_section as WS
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER, Settings
from ui.view import build_view
from ui.content import words
from wording import told

LONG = "The animal didn't cross the street because it was too tired."
LAYER, HEAD, TOKEN = 1, 8, 9  # TOKEN: “it”, counted among the words


def decode(values) -> np.ndarray:
    if isinstance(values, dict):  # plotly's compact binary encoding
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        return array.reshape([int(d) for d in str(values["shape"]).split(",")]) if "shape" in values else array
    return np.asarray(values, dtype=np.float64)


def label(text) -> str:
    return html.unescape(str(text)).replace("\u200b", "")


def specs_of(at) -> list[dict]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def title(spec) -> str:
    return spec["layout"].get("title", {}).get("text", "")


def keyed_traces(spec):
    """(z, x labels) of every heatmap or bar trace whose x axis names tokens."""
    for trace in spec["data"]:
        x = trace.get("x")
        if isinstance(x, list) and x and isinstance(x[0], str) and trace.get("z") is not None:
            yield decode(trace["z"]).astype(np.float64), [label(t) for t in x]


class Model:
    """The model's own numbers for LONG at one layer and head, over the whole sentence."""

    def __init__(self, model, layer=LAYER, head=HEAD):
        self.analysis = analysis = model.analyze(LONG)
        x = analysis.hidden_states[layer].astype(np.float64)
        self.steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
        self.words = np.flatnonzero(~analysis.is_special)
        self.markers = np.flatnonzero(analysis.is_special)
        self.attentions = analysis.attentions

    def marker_weights(self, weights):  # [n, n] -> [n_words]: the words' rows, [CLS] and [SEP] added
        return np.asarray(weights)[self.words][:, self.markers].sum(axis=1)


@pytest.fixture(scope="module")
def truth(model):
    return Model(model)


def page(path, **session):
    at = run_app(path, LONG, layer=LAYER, head=HEAD, token=TOKEN, **session)
    assert not at.exception, at.exception
    return at


def only_marker_column(keys):
    """Each hidden marker is in one column, the last, and never in a column of its own."""
    assert keys[-1] == MARKER_COLUMN and keys.count(MARKER_COLUMN) == 1, keys
    assert "[CLS]" not in keys and "[SEP]" not in keys, keys


def rows_of(truth, spec) -> list[int]:
    """The drawn rows, as indices among the words (a slide's focus view draws a window of them)."""
    words = [label(t) for t in np.array(unique_labels(truth.analysis.tokens))[truth.words]]
    return [words.index(label(y)) for y in spec["data"][0]["y"]]


def by_title(specs, start):
    found = [spec for spec in specs if title(spec).startswith(start)]
    assert found, [title(spec) for spec in specs]
    return found[0]


# --- the step pages ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("teaching", [False, True])
def test_scores_keep_each_marker_and_weights_fold_them_with_the_models_numbers(truth, teaching):
    step1 = specs_of(page("app_pages/step1_scores.py", teach=teaching))
    step2 = specs_of(page("app_pages/step2_scaling.py", teach=teaching))
    step3 = specs_of(page("app_pages/step3_softmax.py", teach=teaching))
    drawn = {}
    for name, specs, start in (("raw", step1, words("step1.scores_title")),
                               ("scaled", step2, words("step2.scaled_title")),
                               ("weights", step3, words("step3.weights_title"))):
        spec = by_title(specs, start)
        (z, keys), = keyed_traces(spec)
        drawn[name] = (z, keys, rows_of(truth, spec))
    weights, weight_keys, rows = drawn["weights"]
    only_marker_column(weight_keys)
    markers = [label(t) for t in np.array(unique_labels(truth.analysis.tokens))[truth.markers]]
    assert markers == ["[CLS]", "[SEP]"]
    for name in ("raw", "scaled"):  # scores: the words' columns as step 3's, then each marker's own
        assert drawn[name][1] == weight_keys[:-1] + markers, drawn[name][1]
    columns = np.concatenate([truth.words, truth.markers])
    for name, scores in (("raw", truth.steps.raw), ("scaled", truth.steps.scaled)):
        z, _, drawn_rows = drawn[name]
        np.testing.assert_allclose(z, scores[truth.words[drawn_rows]][:, columns], rtol=1e-4, atol=2e-3)
    np.testing.assert_allclose(weights[:, -1], truth.marker_weights(truth.attentions[LAYER, HEAD])[rows], atol=1e-5)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5)  # each row still gives out 100%
    # One story: softmax of step 2's drawn rows, the two markers' weights added, is step 3's drawn rows.
    assert drawn["scaled"][2] == rows
    shares = core.softmax(drawn["scaled"][0].astype(np.float64))
    n_words = len(weight_keys) - 1
    folded = np.concatenate([shares[:, :n_words], shares[:, n_words:].sum(axis=1, keepdims=True)], axis=1)
    np.testing.assert_allclose(folded, weights, atol=1e-5)


def test_with_the_markers_shown_nothing_is_folded(model):
    """A control: with [CLS] and [SEP] shown, no page folds anything: each marker has its own column."""
    at = page("app_pages/step3_softmax.py", special=True)
    (weights, keys), = keyed_traces(by_title(specs_of(at), words("step3.weights_title")))
    assert MARKER_COLUMN not in keys and "[CLS]" in keys and "[SEP]" in keys
    np.testing.assert_allclose(weights, model.analyze(LONG).attentions[LAYER, HEAD], atol=1e-5)


# --- multi-head and what-if ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("teaching", [False, True])
def test_multihead_heads_and_flip_through_fold_the_markers_as_the_step_pages_do(model, truth, teaching):
    at = page("app_pages/multihead.py", teach=teaching)
    layer = int(at.selectbox(key="mh_layer").value)
    specs = specs_of(at)
    heads = by_title(specs, f"Layer {layer + 1}: attention weights of all 12 heads")
    traces = list(keyed_traces(heads))
    if len(traces) == 12:  # one small matrix per head
        for head, (z, keys) in enumerate(traces):
            only_marker_column(keys)
            np.testing.assert_allclose(z[:, -1], truth.marker_weights(truth.attentions[layer, head]), atol=1e-5)
    else:  # a slide's focus view: the selected word's row in every head
        (z, keys), = traces
        only_marker_column(keys)
        expected = [truth.marker_weights(truth.attentions[layer, head])[TOKEN] for head in range(12)]
        np.testing.assert_allclose(z[:, -1], expected, atol=1e-5)
    flip = next(spec for spec in specs if spec.get("frames"))
    (_, keys), = keyed_traces(flip)
    only_marker_column(keys)
    rows = [label(y) for y in flip["data"][0]["y"]]
    start = flip["layout"]["meta"]["head_flip"]["rows"][0]
    for number in (0, 29, 71):
        z = decode(flip["frames"][number]["data"][0]["z"]).astype(np.float64)
        expected = truth.marker_weights(truth.attentions[divmod(number, 12)])[start:start + len(rows)]
        np.testing.assert_allclose(z[:, -1], expected, atol=1e-5)


def test_whatif_weights_and_word_order_bars_use_the_same_column(truth):
    specs = specs_of(page("app_pages/whatif.py"))
    (normal, keys), = keyed_traces(by_title(specs, "Weights · normal"))
    only_marker_column(keys)
    np.testing.assert_allclose(normal[:, -1], truth.marker_weights(truth.attentions[LAYER, HEAD]), atol=1e-5)
    # The word-order figure: two panels of shares, each with two series of bars over the tokens.
    order = next(spec for spec in specs if len(spec["data"]) == 4 and all(t.get("type") == "bar" for t in spec["data"]))
    bars = [[label(t) for t in trace["x"]] for trace in order["data"] if trace.get("x")]
    assert bars and all(keys_of_bar[-1] == MARKER_COLUMN for keys_of_bar in bars)
    assert all("[CLS]" not in keys_of_bar and "[SEP]" not in keys_of_bar for keys_of_bar in bars)
    for trace in order["data"]:
        np.testing.assert_allclose(decode(trace["y"]).astype(np.float64).sum(), 1.0, atol=1e-4)  # shares, all there


# --- the offline files and the walk-through ---------------------------------------------------------------------

def view_of(model, token=TOKEN, layer=LAYER, head=HEAD, sentence=LONG):
    settings = Settings(sentence, "learned", 32, 0, layer, head, False, token, False, "")
    return build_view(settings, model, model.analyze(sentence))


def test_the_offline_files_carry_the_same_column(model, truth):
    flip = HF.flip_html(Settings(LONG, "learned", 32, 0, LAYER, HEAD, False, TOKEN, False, ""), model, TOKEN).decode()
    walk = WS.animation_html(view_of(model)).decode()
    for page_html in (flip, walk):
        assert json.dumps(MARKER_COLUMN) in page_html or MARKER_COLUMN in page_html
        assert '"[CLS]"' not in page_html and '"[SEP]"' not in page_html  # no marker column of its own
    fig, _, _ = WS.build(view_of(model))
    spec = json.loads(fig.to_json(validate=False))
    assert [label(x) for x in spec["data"][-1]["x"]][-1] == MARKER_COLUMN
    weights = next(frame for frame in spec["frames"] if "weight =" in json.dumps(frame["layout"]))
    row = decode(weights["data"][3]["y"]).astype(np.float64)
    np.testing.assert_allclose(row[-1], truth.marker_weights(truth.attentions[LAYER, HEAD])[TOKEN], atol=1e-6)


@pytest.mark.parametrize("token, layer, head", [(TOKEN, LAYER, HEAD), (1, 0, 2), (4, 5, 11)])
def test_step3_and_the_walkthrough_show_softmax_the_same_way(model, token, layer, head):
    """e to the power of (score − the row's largest), as step 3's table: the same e-values and the same sum."""
    view = view_of(model, token, layer, head)
    row = view.analysis.attentions[layer, head]  # the model's own, to check the weights the sums make
    scaled = view.full.scaled[view.base_index]
    e_values = np.exp(scaled - scaled.max())  # the step-3 way, computed here
    np.testing.assert_allclose(e_values / e_values.sum(), row[view.base_index], atol=1e-5)
    walk = WS.walkthrough_of(view)
    np.testing.assert_allclose(walk.exps, e_values, rtol=1e-12)
    assert walk.exp_total == pytest.approx(e_values.sum(), rel=1e-12)
    assert walk.exps.max() == pytest.approx(1.0)  # the largest score's e-value: 1, on both pages
    printed = f"{e_values.sum():.3f}"
    at = run_app("app_pages/step3_softmax.py", LONG, layer=layer, head=head, token=token)
    assert not at.exception, at.exception
    assert printed in " ".join(str(m.value) for m in at.markdown)  # step 3 prints this sum
    fig, lines, _ = WS.build(view)
    boards = " ".join(json.dumps(frame["layout"]) for frame in json.loads(fig.to_json(validate=False))["frames"])
    assert printed in " ".join(lines) and printed in boards  # and so does the walk-through, the same number


# --- the row read-outs of the score pages -------------------------------------------------------------------------

SHORT = "I am good."


def texts_of(at) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "caption") for e in at.main.get(kind))


def keys_named(text: str, me: str) -> list[str]:
    """The keys a piece of read-out names: each “quoted” token, and “its own key” as the selected token."""
    # Markdown's escapes undone: \[SEP\] is the column [SEP].
    names = [label(re.sub(r"\\(.)", r"\1", t)) for t in re.findall(r"“([^”]*)”", text)]
    return names + ([me] if words("readouts.own_key") in text else [])


@pytest.mark.parametrize("sentence, layer, head, token", [(SHORT, DEFAULT_LAYER, DEFAULT_HEAD, 0),
                                                          (LONG, LAYER, HEAD, TOKEN)])
@pytest.mark.parametrize("teaching", [False, True])
def test_score_pages_row_read_out_names_drawn_columns_and_the_drawn_range(model, sentence, layer, head, token,
                                                                          teaching):
    """The reviewer's slide: step 2 said “range from -16.65 (on “[SEP]”)” beside a matrix with no [SEP] column
    whose lowest number was -7.0. Every key the read-out of steps 1 and 2 names is a column the figure draws, and the
    lowest and highest numbers it states are the drawn row's, which are the model's own scores."""
    analysis = model.analyze(sentence)
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    labels = np.array(unique_labels(analysis.tokens))
    in_words, markers = np.flatnonzero(~analysis.is_special), np.flatnonzero(analysis.is_special)
    me = label(labels[in_words[token]])
    for path, title, scores, name in (("app_pages/step1_scores.py", words("step1.scores_title"), steps.raw,
                                       "step1.row_text"),
                                      ("app_pages/step2_scaling.py", words("step2.raw_title"), steps.raw,
                                       "step2.row_range")):
        at = run_app(path, sentence, layer=layer, head=head, token=token, teach=teaching)
        assert not at.exception, at.exception
        (z, keys), = keyed_traces(by_title(specs_of(at), title))
        rows = [label(y) for y in by_title(specs_of(at), title)["data"][0]["y"]]
        drawn = z[rows.index(me)]
        # The drawn row is the model's: every key of the sentence, the markers' after the words'.
        np.testing.assert_allclose(drawn, scores[in_words[token]][np.concatenate([in_words, markers])],
                                   rtol=1e-4, atol=2e-3)
        said = told(name, every_key=True) if name == "step2.row_range" else told(name)
        found = said.search(texts_of(at))
        assert found, texts_of(at)
        if name == "step1.row_text":
            named = keys_named(found.group("best"), me) + keys_named(found.group("lowest_key"), me)
            high = float(re.search(r"\(\*{0,2}(-?\d+\.\d\d)\*{0,2}\)", found.group("best")).group(1))
            low = float(found.group("lowest"))
        else:
            named = keys_named(found.group("low_key"), me) + keys_named(found.group("high_key"), me)
            high, low = float(found.group("high")), float(found.group("low"))
            assert float(found.group("high_scaled")) == pytest.approx(drawn.max() / np.sqrt(steps.d_k), abs=0.006)
            assert float(found.group("low_scaled")) == pytest.approx(drawn.min() / np.sqrt(steps.d_k), abs=0.006)
        assert named and all(key in keys for key in named), (named, keys)
        assert high == pytest.approx(drawn.max(), abs=0.006) and low == pytest.approx(drawn.min(), abs=0.006)
        assert keys[int(drawn.argmax())] in named or found.group(0).count("tie")  # the highest is named
        assert keys[int(drawn.argmin())] in named
