"""Every page read as a student reads it (issue 39): no paragraph stops mid-sentence, every count of tokens is the
figure's, and every layer is named one way ("layer 1 (the second of 6)"). Each page runs in-process on the default
view and on a longer sentence with a pronoun."""

import json
import re

import pytest
from conftest import run_app

from devtools.browser import PAGE_FILES
from lessons.names import layer_name, ordinal

PRONOUN_SENTENCE = "The animal didn't cross the street because it was too tired."
SENTENCES = {"default": None, "pronoun sentence": PRONOUN_SENTENCE}
TEXT_KINDS = ("markdown", "caption", "info", "success", "warning", "error")
# A paragraph ends as a sentence ends: after its last word comes . ! ? or : (a list or a figure follows), possibly
# inside closing emphasis, brackets or quotes.
CLOSERS = "*_)]”\"’`"
ENDS = ".!?:…"


def texts_of(at):
    """Every text element of the main area, expanders included."""
    return [str(e.value) for kind in TEXT_KINDS for e in at.main.get(kind)]


def paragraphs(text):
    if text.lstrip().startswith("<"):  # the page's own CSS and scripts
        return []
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def unfinished(paragraph) -> bool:
    """A paragraph that stops mid-sentence: its last line, closers stripped, ends in a word or a comma."""
    last = paragraph.splitlines()[-1].strip()
    if last.startswith("#") or last.startswith("|") or last.startswith("$$"):  # a heading, a table, a formula
        return False
    if re.fullmatch(r"(`[^`]*`\s*(·\s*)?)+", last):  # the sentence's tokens as code, one after another
        return False
    if re.fullmatch(r"\*\*[^*]+\*\*", last):  # a bold label over a row of buttons ("Try an example:" has its colon)
        return False
    return last.rstrip(CLOSERS + " ")[-1:] not in ENDS


@pytest.fixture(scope="module")
def pages_read():
    """(sentence name, page) -> the AppTest after one run; every page and sentence once for the module."""
    runs = {}
    for name, sentence in SENTENCES.items():
        for page in PAGE_FILES:
            at = run_app(page, sentence)
            assert not at.exception, (page, name, at.exception)
            runs[name, page] = at
    return runs


@pytest.mark.parametrize("name", list(SENTENCES))
def test_every_paragraph_ends_as_a_sentence_ends(pages_read, name):
    cut = [(page, p[-120:]) for (n, page), at in pages_read.items() if n == name
           for text in texts_of(at) for p in paragraphs(text) if unfinished(p)]
    assert not cut, cut


def test_the_checker_catches_a_cut_paragraph():
    assert unfinished("(One of many heads can look good by luck alone: that is why the best head is compared "
                      "with the luckiest ")
    assert not unfinished("It ends with the luckiest of as many guessing heads.)")
    assert not unfinished("- “i” looks most at “am”: **72%**.")


def token_counts(text):
    """(tokens of the sentence, tokens in all) for every "4 tokens of your sentence + [CLS] and [SEP] = 6 tokens"."""
    return [(int(a), int(b)) for a, b in
            re.findall(r"(\d+) tokens of your sentence \+ \[CLS\] and \[SEP\] = (\d+) tokens", text)]


FIGURE_WITH_TOKEN_ROWS = ("Attention weights", "Step 1 · raw scores", "Step 3 · attention weights")


@pytest.mark.parametrize("name", list(SENTENCES))
def test_every_count_of_tokens_is_the_figures(pages_read, model, name):
    from serving.sentences import analysis_of

    sentence = SENTENCES[name] or run_app().session_state["_settings"].sentence
    analysis = analysis_of(model, sentence)
    words, every = int((~analysis.is_special).sum()), analysis.n_tokens
    said = 0
    for (n, page), at in pages_read.items():
        if n != name:
            continue
        text = "\n".join(texts_of(at))
        for counted in token_counts(text):
            assert counted == (words, every), (page, counted)
            said += 1
        for spec in (json.loads(e.proto.spec) for e in at.get("plotly_chart")):
            title = spec["layout"]["title"]["text"]
            if title.startswith(FIGURE_WITH_TOKEN_ROWS) and spec["data"][0].get("type") == "heatmap":
                assert len(spec["data"][0]["y"]) == words, (page, title)  # the figure draws the sentence's rows
                for counted in token_counts(text):
                    assert counted[0] == len(spec["data"][0]["y"])
        for size in re.findall(r"model's (?:whole )?(?:score matrix is )?(\d+) × (\d+)", text):
            assert size == (str(every), str(every)), (page, size)
    assert said >= 5  # the start page (twice), steps 1 and 3 and the what-if lab say it


LAYER = re.compile(r"\b[Ll]ayer (\d+)\b(.{0,22})")


@pytest.mark.parametrize("name", list(SENTENCES))
def test_every_layer_is_named_one_way(pages_read, name):
    """ "layer 1" is always followed by its place in plain counting, in the text and in the figures' titles."""
    named = 0
    for (n, page), at in pages_read.items():
        if n != name:
            continue
        titles = [json.loads(e.proto.spec)["layout"]["title"]["text"] for e in at.get("plotly_chart")]
        for text in texts_of(at) + titles:
            for number, after in LAYER.findall(text.replace("\\", "").replace("<br>", " ")):  # md() escapes brackets
                assert after.startswith(f" (the {ordinal(int(number) + 1)} of 6)"), (page, number, after, text[:200])
                named += 1
    assert named >= 10


def test_the_layer_convention():
    assert layer_name(1, 6) == "layer 1 (the second of 6)"
    assert layer_name(0, 6, capital=True) == "Layer 0 (the first of 6)"
    assert layer_name(30, 32) == "layer 30 (the 31st of 32)"
