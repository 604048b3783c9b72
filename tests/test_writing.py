"""A student who never coded meets no developer words outside an expander, and the "why"s and glossary hold up."""

import re

import pytest
from conftest import run_app

from devtools.browser import PAGE_FILES

from ui.sections.glossary import GLOSSARY_URL, TERMS, anchor, term_link

# Words and forms that belong to developers: a library's name, a file name, a float in scientific notation.
DEVELOPER_TERMS = {
    "a library name (numpy)": re.compile(r"\bnumpy\b", re.I),
    "a library name (torch)": re.compile(r"\b(py)?torch\b", re.I),
    "a library name (plotly/streamlit)": re.compile(r"\b(plotly|streamlit)\b", re.I),
    "a library name (sentence-transformers)": re.compile(r"sentence[-_]transformers", re.I),
    "a file name (.py)": re.compile(r"\w\.py\b"),
    "scientific notation (1.5e-07)": re.compile(r"\d[eE][-+]?\d"),
    "a traceback": re.compile(r"Traceback|Exception:"),
}
TEXT_ELEMENTS = {"markdown", "caption", "info", "success", "warning", "error", "title", "header", "subheader",
                 "text", "exception"}
PAGES = PAGE_FILES


def visible_text(node, inside_expander=False):
    """Every text element's value that is not inside an st.expander (the sidebar included)."""
    kind = getattr(node, "type", None)
    if kind == "expander":
        return []
    children = getattr(node, "children", None)
    if children:
        return [text for child in children.values() for text in visible_text(child)]
    if kind in TEXT_ELEMENTS:
        return [str(node.value)]
    return []


def developer_words(texts):
    return [(label, match.group(0), text[:80]) for text in texts for label, pattern in DEVELOPER_TERMS.items()
            for match in [pattern.search(text)] if match]


def test_the_checker_catches_each_kind_of_developer_word():
    samples = ["runs in numpy", "see attention/bert.py", "differs by 1.5e-07", "PyTorch's numbers",
               "Traceback (most recent call last)"]
    assert len(developer_words(samples)) == len(samples)
    assert not developer_words(["softmax gives 58% to “i”", "less than 0.00001", "the model's own numbers",
                                "e.g. a word", "score 1.50 e to the score"])


@pytest.mark.parametrize("page", PAGES)
def test_no_developer_words_outside_expanders(page):
    at = run_app(page)
    assert not at.exception, at.exception
    texts = visible_text(at.main) + visible_text(at.sidebar)
    assert texts, f"{page} shows no text"
    assert developer_words(texts) == []


def test_glossary_page_has_every_entry_with_its_anchor():
    at = run_app("app_pages/glossary.py")
    assert not at.exception, at.exception
    headers = [h.proto.anchor for h in at.main.header]  # h2 under the page's h1 (axe-core's heading order)
    assert headers == [anchor(term) for term in TERMS]
    assert len(set(headers)) == len(TERMS)
    at.text_input(key="glossary_filter").input("softmax").run()
    shown = [h.value for h in at.main.header]
    assert "softmax" in shown and "token" not in shown and len(shown) < len(TERMS)


def test_term_links_point_at_the_glossary_and_keep_the_sentence():
    from ui.content import words

    link = term_link("[CLS] and [SEP]", query={"sentence": "Dogs bark.", "head": "3"})  # the entry, by its identity
    name = words("glossary.term_cls_and_sep", language="en")  # the name the entry shows
    shown = re.sub(r"([][])", r"\\\1", name)  # its brackets escaped, or Markdown reads [CLS] as a link's text
    assert link == f"[{shown}]({GLOSSARY_URL}?sentence=Dogs+bark.&head=3#cls-and-sep)"
    with pytest.raises(KeyError):
        term_link("no such term")


def whys(at):
    """Each "why" question with its answer: a "### " heading and the text after it, or a "More detail: " box."""
    from ui.content import words

    more = words("step_page.more_detail", language="en", what="")  # the box's name before its subject
    texts = [m.value for m in at.markdown]
    found = {texts[k][4:]: texts[k + 1] for k in range(len(texts) - 1) if texts[k].startswith("### ")}
    for box in at.expander:
        if box.label.startswith(more) and box.markdown:
            found[box.label.removeprefix(more)] = "\n\n".join(m.value for m in box.markdown)
    return found


def test_whys_follow_the_sentence_and_quote_its_numbers():
    from ui.content import words

    at = run_app("app_pages/home.py", "The animal didn't cross the street because it was too tired of Tokenization.")
    tokens = whys(at)[words("token_whys.question")]
    notes = [line for line in tokens.split("\n") if line.startswith("- ")]
    # one note each: a capital, a word cut into pieces, an apostrophe, punctuation, a repeated token, the markers
    assert len(notes) == 6, notes
    pieces = ("“didn” + “'” + “t”", "“token” + “\\#\\#ization”")
    for shown in ("“The”", "“the”", *pieces, "17"):
        assert shown in tokens
    at = run_app("app_pages/home.py", "dogs bark")  # nothing to explain but the specials: no stale sentence
    tokens = whys(at)[words("token_whys.question")]
    [note] = [line for line in tokens.split("\n") if line.startswith("- ")]  # the markers' note alone
    assert "#cls-and-sep" in note and "“dogs”" not in tokens and "2" in tokens

    at = run_app("app_pages/step3_softmax.py", special=True)  # 6 tokens with [CLS]/[SEP], every one drawn
    assert "1.0000" in whys(at)[words("whys.rows_question")]
    assert "36" in whys(at)[words("whys.row_by_row_question")]


def test_whatif_draws_the_uniform_picture():
    import json

    import numpy as np

    from ui.content import words

    at = run_app("app_pages/whatif.py")
    assert not at.exception, at.exception
    import base64

    def values(y):  # plotly's compact binary encoding, or a plain list
        return (np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]) if isinstance(y, dict)
                else np.asarray(y, dtype=float))

    bars = next(spec for spec in (json.loads(chart.proto.spec) for chart in at.get("plotly_chart"))
                if words("whys.uniform_title", language="en") in json.dumps(spec["layout"]["title"]))
    normal, uniform = (values(trace["y"]) for trace in bars["data"])
    assert np.allclose(uniform, 0, atol=1e-5)  # uniform weights: every output is the same vector, mean(V)
    assert normal.max() > 0.1 and len(normal) == 6  # learned mode: every token the model sees, [CLS] and [SEP] too


SENTENCES = ["I am good.", "The animal didn't cross the street because it was too tired of Tokenization."]


@pytest.mark.parametrize("mode", ["learned", "identity", "random"])
def test_every_why_is_plain_and_follows_the_view(model, mode):
    """All whys, built straight from a view (no page run), in every mode, at a short and a long sentence."""
    import numpy as np

    from ui.sections import whys
    from ui.settings import Settings
    from ui.view import View, steps_for

    for sentence in SENTENCES:
        analysis = model.analyze(sentence)
        shown = np.flatnonzero(~analysis.is_special)
        settings = Settings(sentence, mode, 16, 1, 2, 5, False, 1, False, "")
        x, steps = steps_for(model, analysis, shown, mode, 16, 1, 2, 5)
        view = View(settings, model, analysis, shown, [analysis.tokens[j] for j in shown], x, steps, None)
        texts = [text for build in (whys.token_whys, whys.step1_whys, whys.step2_whys, whys.step3_whys,
                                    whys.step4_whys) for pair in build(view, {"sentence": sentence}) for text in pair]
        assert developer_words(texts) == []
        assert not any("I am good" in t for t in texts[2:]) or sentence == "I am good."
        joined = "\n".join(texts)
        assert f"d_k = {steps.d_k}" in joined
        assert f"{len(view.tokens)} × {len(view.tokens)}" in joined
        assert f"{len(view.tokens) ** 2}" in joined
        normal, uniform = whys.uniform_spread(steps)
        assert np.allclose(uniform, 0, atol=1e-9) and normal.max() > 1e-3


def test_plain_small_never_uses_scientific_notation():
    from ui.text import plain_small

    assert plain_small(8e-7, at_most=True) == "less than 0.00001"
    assert plain_small(0.00003, at_most=True) == "at most 0.00003"
    assert plain_small(0.00003) == "0.00003"
