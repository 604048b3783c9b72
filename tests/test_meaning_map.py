"""The meaning page's 2-D map (issue 54, item 4): its frames held equal to a PCA computed here, independently, from
the model's hidden states of the word (the model's and the self-only control's), up to each axis' sign; the share
of the spread its axes keep; one frame per hidden state; the page drawing it with its text alternative and the
numbers it states; the prose's branches."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from lessons import meaning as me
from lessons import meaning_map as mm
from test_meaning import open_page, texts
from test_one_story import decode
from ui.figures import figure_text, figure_text_label
from ui.figures.meaning_map import word_map_frames

WORDS = ["bank", "spring"]


def word_states(model, word: str, sentences: list[str]):
    """[n_layers + 1, m, d] twice: the word's hidden states per layer (mean of its pieces, first occurrence), found
    here from the tokens, in the normal model and with every head attending only to itself."""
    pieces = [p for p in model.tokenize(word) if p not in model.special_tokens]
    every_head = np.ones((model.n_layers, model.n_heads), dtype=bool)
    normal, control = [], []
    for sentence in sentences:
        analysis = model.analyze(sentence)
        tokens = [t.lower() for t in analysis.tokens]
        start = next(i for i in range(len(tokens)) if tokens[i:i + len(pieces)] == pieces)
        where = slice(start, start + len(pieces))
        normal.append(analysis.hidden_states[:, where].mean(axis=1))
        control.append(model.knocked_out_states(sentence, every_head)[:, where].mean(axis=1))
    return np.stack(normal, axis=1).astype(np.float64), np.stack(control, axis=1).astype(np.float64)


def independent_pca(normal, control):
    """The map's recipe written out again: unit length, each layer of each run centred on its own mean, one PCA
    (eigenvectors of the covariance) of both runs pooled over every layer and sentence."""
    def prepare(states):
        unit = states / np.linalg.norm(states, axis=-1, keepdims=True)
        return unit - unit.mean(axis=1, keepdims=True)

    a, b = prepare(normal), prepare(control)
    pooled = np.concatenate([a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])])
    covariance = np.cov(pooled, rowvar=False, bias=True)
    values, vectors = np.linalg.eigh(covariance)
    order = np.argsort(values)[::-1]
    axes = vectors[:, order[:2]]
    return a @ axes, b @ axes, values[order[:2]] / values.sum(), a, b


def same_up_to_sign(mine, theirs):
    """Each axis may come out flipped: compare after matching its sign."""
    signs = np.sign(np.sum(mine * theirs, axis=tuple(range(mine.ndim - 1))))
    np.testing.assert_allclose(mine, theirs * signs, atol=1e-6)


@pytest.fixture(scope="module")
def measured(model):
    return {word: me.measure(model, word, list(me.BUILT_IN[word].meaning_a), list(me.BUILT_IN[word].meaning_b))
            for word in WORDS}


@pytest.fixture(scope="module")
def references(model):
    return {word: independent_pca(*word_states(model, word, list(me.BUILT_IN[word].meaning_a)
                                               + list(me.BUILT_IN[word].meaning_b))) for word in WORDS}


@pytest.mark.parametrize("word", WORDS)
def test_the_frames_equal_an_independent_pca_of_the_hidden_states(word, measured, references):
    word_map = measured[word].word_map
    points, control, shares, prepared_normal, prepared_control = references[word]
    assert word_map.points.shape == points.shape == (7, 10, 2)
    same_up_to_sign(word_map.points, points)
    np.testing.assert_allclose(word_map.axis_shares, shares, atol=1e-9)
    assert shares[0] >= shares[1] > 0 and word_map.kept < 1


@pytest.mark.parametrize("word", WORDS)
def test_the_control_is_placed_with_the_same_fit(word, measured, references):
    """The control's points are its vectors on the very axes of the model's points: the same sign flips match
    both (a separate fit of the control would not), and the share of its own spread they keep is recomputed."""
    word_map = measured[word].word_map
    points, control, _, prepared_normal, prepared_control = references[word]
    signs = np.sign(np.sum(word_map.points * points, axis=(0, 1)))
    np.testing.assert_allclose(word_map.control, control * signs, atol=1e-6)
    np.testing.assert_allclose(word_map.control_kept, (control ** 2).sum() / (prepared_control ** 2).sum(),
                               atol=1e-9)
    np.testing.assert_allclose(word_map.model_kept, (points ** 2).sum() / (prepared_normal ** 2).sum(), atol=1e-9)
    # A PCA of the control alone finds other axes: the control's points are not that.
    rows = np.linalg.svd(prepared_control.reshape(-1, prepared_control.shape[-1]), full_matrices=False)[2]
    alone = prepared_control @ rows[:2].T
    assert not np.allclose(np.abs(alone), np.abs(word_map.control), atol=1e-3)


def map_figure(result, teaching=False, stacked=False):
    word_map = result.word_map
    return word_map_frames(word_map.points, word_map.control, result.meaning, result.sentences, ("river", "money"),
                           word_map.axis_shares, "The map · “bank”", teaching, stacked=stacked,
                           table={"said": ["x 1.0"], "header": ["after", "d"], "rows": [["a", "1"], ["b", "2"]]})


@pytest.mark.parametrize("teaching, stacked", [(False, False), (True, False), (False, True)])
def test_the_figure_has_a_frame_per_hidden_state_and_validates(teaching, stacked, model, measured):
    result = measured["bank"]
    fig = map_figure(result, teaching, stacked)
    spec = fig.to_dict()
    go.Figure(spec)  # plotly's full validation, frames included
    assert len(spec["frames"]) == model.n_layers + 1 == len(spec["layout"]["sliders"][0]["steps"])
    for L, frame in enumerate(spec["frames"]):
        model_a, model_b, control_a, control_b = frame["data"]
        a, b = result.meaning == 0, result.meaning == 1
        np.testing.assert_allclose(np.c_[decode(model_a["x"]), decode(model_a["y"])], result.word_map.points[L][a])
        np.testing.assert_allclose(np.c_[decode(model_b["x"]), decode(model_b["y"])], result.word_map.points[L][b])
        np.testing.assert_allclose(np.c_[decode(control_a["x"]), decode(control_a["y"])], result.word_map.control[L][a])
        np.testing.assert_allclose(np.c_[decode(control_b["x"]), decode(control_b["y"])], result.word_map.control[L][b])
    # The axes hold still: one range for every frame, holding every point of every frame.
    for axis, column in (("xaxis", 0), ("yaxis", 1)):
        low, high = spec["layout"][axis]["range"]
        every = np.concatenate([result.word_map.points[..., column].ravel(),
                                result.word_map.control[..., column].ravel()])
        assert low < every.min() and every.max() < high
    # The share each axis keeps is on the figure itself.
    assert f"{result.word_map.axis_shares[0]:.0%}" in spec["layout"]["xaxis"]["title"]["text"]
    assert f"{result.word_map.axis_shares[1]:.0%}" in spec["layout"]["yaxis"]["title"]["text"]


def test_the_prose_has_a_branch_for_groups_that_do_not_move_apart():
    """Every case (apart on the map or not, the full separation grows or not, for the model and the control) is its
    own fact and gives its own text, and the measure of "apart" follows the points."""
    from ui.sections.meaning_map import map_story

    meaning = np.array([0, 0, 1, 1])
    still = np.tile(np.array([[0.0, 0.1], [0.1, 0.0], [0.2, 0.1], [0.3, 0.0]]), (7, 1, 1))
    apart = still.copy()
    apart[1:, 2:, 0] += np.linspace(1, 3, 6)[:, None]
    assert mm.moves_apart(apart, meaning) and not mm.moves_apart(still, meaning)
    cases = [(apart, control, True, control_separates) for control in (still, apart)
             for control_separates in (True, False)]
    cases += [(still, still, separates, False) for separates in (True, False)] + [(apart, still, False, False)]
    stories, branches = set(), set()
    for points, control, separates, control_separates in cases:
        word_map = mm.MeaningMap(points, control, np.array([0.3, 0.1]), 0.4, 0.2)
        fact = mm.map_facts(word_map, meaning, separates, control_separates)
        assert (fact.on_map, fact.control_on_map) == (points is apart, control is apart)
        assert fact.gaps[-1] == pytest.approx(np.linalg.norm(points[-1, :2].mean(0) - points[-1, 2:].mean(0)))
        branches.add((fact.on_map, fact.separates, fact.control_on_map, fact.control_separates))
        story = map_story(word_map, fact)
        assert f"{fact.gaps[0]:.2f}" in story and f"{fact.gaps[-1]:.2f}" in story
        stories.add(story)
    assert len(branches) == len(stories) == 7


def test_dots_on_top_of_each_other_are_counted():
    meaning = np.array([0, 0, 1, 1])
    points = np.tile(np.array([[0.0, 0.1], [0.0, 0.1], [0.2, 0.1], [0.3, 0.0]]), (7, 1, 1))
    fact = mm.map_facts(mm.MeaningMap(points, points, np.array([0.3, 0.1]), 0.4, 0.2), meaning, False, False)
    assert (fact.first_dots, fact.control_last_dots, fact.dots_overlap) == (3, 3, True)


def page_map(at):
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    return [s for s in specs if s.get("frames") and any(t.get("xaxis") == "x2" for t in s["data"])]


def test_the_page_draws_the_map_with_its_text_alternative(model, measured):
    at = open_page()
    assert not at.exception
    maps = page_map(at)
    assert len(maps) == 1
    spec, result = maps[0], measured["bank"]
    word_map = result.word_map
    assert len(spec["frames"]) == model.n_layers + 1
    last = spec["frames"][-1]["data"][0]
    np.testing.assert_allclose(np.c_[decode(last["x"]), decode(last["y"])],
                               word_map.points[-1][result.meaning == 0], atol=1e-6)
    # Its text alternative, right under it: the distance between the groups' centres per layer, computed here.
    gaps = np.linalg.norm(word_map.points[:, result.meaning == 0].mean(1) - word_map.points[:, result.meaning == 1]
                          .mean(1), axis=-1)
    labels = [e.label for e in at.expander]
    assert figure_text_label() in labels
    alternatives = [str(h.proto.body) for h in at.get("html")]
    assert any(all(f"{g:.3f}" in text for g in gaps) for text in alternatives)
    # The page says how much of the spread the map keeps, and the distances it shows.
    captions = [str(c.value) for c in at.caption]
    assert any(f"{word_map.kept:.0%}" in c and f"{word_map.control_kept:.0%}" in c for c in captions)
    assert any(f"{gaps[0]:.2f}" in t and f"{gaps[-1]:.2f}" in t for t in texts(at))


def test_teaching_mode_keeps_the_map_and_its_share(measured):
    at = open_page(teach="true")
    assert not at.exception
    assert len(page_map(at)) == 1
    word_map = measured["bank"].word_map
    assert any(f"{word_map.kept:.0%}" in str(c.value) for c in at.caption)


def test_a_text_alternative_is_built_from_the_map(measured):
    from ui.sections.meaning_map import map_table

    result = measured["bank"]
    fig = word_map_frames(result.word_map.points, result.word_map.control, result.meaning, result.sentences,
                          ("river", "money"), result.word_map.axis_shares, "t", table=map_table(result))
    sentence, header, rows = figure_text(fig)
    assert len(rows) == 7 and all(len(row) == len(header) for row in rows)
    control_gaps = mm.centre_gaps(result.word_map.control, result.meaning)
    assert [row[3] for row in rows] == [f"{g:.3f}" for g in control_gaps]
