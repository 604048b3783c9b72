"""Every page read as a student reads it (issue 39): no paragraph stops mid-sentence, every count of tokens is the
figure's, and every layer and head is counted from 1, as people count ("layer 2, head 9"; issue 55). Each page runs
in-process on the default view and on a longer sentence with a pronoun."""

import json
import re

import pytest
from conftest import run_app

from devtools.browser import PAGE_FILES
from ui.names import layer_head_name, layer_head_tag, layer_name, people_number
from ui.content import words

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


FIGURE_WITH_TOKEN_ROWS = ("Attention weights", words("step1.scores_title"), words("step3.weights_title"))


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


# Every layer and head a person reads: "layer 2", "layers 1 to 6", "head 9", "heads 3, 7 and 12", "L2", "H9".
NAMED = re.compile(r"\b(layer|head)s? (\d+(?:(?:, | and | to |, and )\d+)*)", re.IGNORECASE)
TAG = re.compile(r"(?<![\w-])([LH])(\d+)\b")  # not the model's name, all-MiniLM-L6-v2
LIMIT = {"layer": 6, "head": 12, "l": 6, "h": 12}


def read_strings(at) -> list[str]:
    """What a person reads on a page: its text, and in its figures the titles, axis labels, tick and slider labels,
    annotations and the frames' titles; md() escapes and <br> taken out."""
    strings = texts_of(at)
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        layouts = [spec["layout"]] + [frame.get("layout", {}) for frame in spec.get("frames", [])]
        for layout in layouts:
            strings.append(str((layout.get("title") or {}).get("text", "")))
            strings += [str(a.get("text", "")) for a in layout.get("annotations", [])]
            strings += [str(step.get("label", "")) for slider in layout.get("sliders", []) for step in slider["steps"]]
            for axis in (value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))):
                strings.append(str((axis.get("title") or {}).get("text", "")))
                strings += [str(tick) for tick in axis.get("ticktext", [])]
        for trace in spec["data"]:
            strings += [str(v) for key in ("x", "y") if isinstance(trace.get(key), list) for v in trace[key]
                        if isinstance(v, str)]
            strings.append(str(trace.get("hovertemplate", "")))
    return [s.replace("\\", "").replace("<br>", " ") for s in strings]


def numbers_read(strings) -> list[tuple[str, int, str]]:
    """(kind, number, where) for every layer and head number in the strings."""
    found = []
    for text in strings:
        for kind, numbers in NAMED.findall(text):
            found += [(kind.lower(), int(n), text[:160]) for n in re.findall(r"\d+", numbers)]
        found += [(kind.lower(), int(n), text[:160]) for kind, n in TAG.findall(text)]
    return found


@pytest.mark.parametrize("name", list(SENTENCES))
def test_every_layer_and_head_a_person_reads_counts_from_1(pages_read, name):
    """Layer 1 to 6 and head 1 to 12 on every page, in its text and its figures; the view's own head is named as
    people count it: the code's layer 1, head 8 is "layer 2, head 9"."""
    read = 0
    for (n, page), at in pages_read.items():
        if n != name:
            continue
        strings = read_strings(at)
        for kind, number, where in numbers_read(strings):
            assert 1 <= number <= LIMIT[kind], (page, kind, number, where)
            read += 1
        assert not any("counted from 0" in text or "first of 6" in text for text in strings), page
    assert read >= 20
    # The head every step page shows, from the settings the run used.
    at = pages_read[name, "app_pages/step3_softmax.py"]
    s = at.session_state["_settings"]
    assert any(f"layer {s.layer + 1}, head {s.head + 1}" in text for text in read_strings(at))


FIRST_HEAD_PAGES = ["app_pages/home.py", "app_pages/step1_scores.py", "app_pages/step3_softmax.py", "app_pages/compare.py",
                    "app_pages/multihead.py", "app_pages/pronoun.py", "app_pages/whatif.py", "app_pages/training.py"]


@pytest.mark.parametrize("page", FIRST_HEAD_PAGES)
def test_the_first_head_is_read_as_layer_1_head_1(page):
    """With the code's layer 0, head 0 chosen, a page that counted from 0 would print "layer 0" or "H0": none
    does, and the chosen head is named "layer 1, head 1" wherever the page names it."""
    at = run_app(page, PRONOUN_SENTENCE, layer=0, head=0)
    assert not at.exception, at.exception
    strings = read_strings(at)
    found = numbers_read(strings)
    assert found and all(1 <= number <= LIMIT[kind] for kind, number, _ in found), [f for f in found if f[1] < 1]
    if page in ("app_pages/step1_scores.py", "app_pages/step3_softmax.py", "app_pages/compare.py"):
        assert any("layer 1, head 1" in text for text in strings), page


def test_the_boxes_show_layers_and_heads_counted_from_1():
    """The sidebar's boxes and the slide's row keep the code's numbers as values and show them from 1."""
    at = run_app(teach=True)  # the start page: after switch_page AppTest leaves the sidebar out of its tree
    assert not at.exception, at.exception
    for label, count in (("Layer", 6), ("Head", 12)):
        [box] = [box for box in at.sidebar.selectbox if box.label == label]
        assert box.options == [str(n) for n in range(1, count + 1)]
        assert box.value == at.session_state[label.lower()]  # the value stays the code's, from 0
        [row] = [row for row in at.get("button_group") if row.label == label]
        assert [o.content for o in row.proto.options] == [str(n) for n in range(1, count + 1)]


def test_an_old_link_opens_the_same_head():
    """A link made before the pages counted from 1 (layer=3&head=1: the code's numbers) opens the same head, read
    as layer 4, head 2; a head chosen afterwards goes into the link in the code's numbers too."""
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["layer"], at.query_params["head"] = "3", "1"
    at.query_params["sentence"] = PRONOUN_SENTENCE
    at.run()
    assert not at.exception, at.exception
    assert (at.session_state["layer"], at.session_state["head"]) == (3, 1)
    boxes = {box.label: box for box in at.sidebar.selectbox}
    assert (boxes["Layer"].value, boxes["Head"].value) == (3, 1)
    assert boxes["Layer"].options[boxes["Layer"].index] == "4" and boxes["Head"].options[boxes["Head"].index] == "2"
    assert (at.query_params["layer"], at.query_params["head"]) == ("3", "1")  # the link still reads as before
    at.switch_page("app_pages/step3_softmax.py").run()
    assert not at.exception, at.exception
    s = at.session_state["_settings"]
    assert (s.layer, s.head) == (3, 1)
    strings = read_strings(at)
    assert any("layer 4, head 2" in text for text in strings)
    assert not any("layer 3, head 1" in text for text in strings)
    # A head chosen now goes into the link in the code's numbers too: head 12 is head=11.
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["layer"] = "3"
    at.session_state["head"] = 11  # as a click on the Head box's "12" leaves it
    at.run()
    assert not at.exception, at.exception
    assert [box.options[box.index] for box in at.sidebar.selectbox if box.label == "Head"] == ["12"]
    assert at.session_state["_settings"].head == 11 and at.query_params["head"] == "11"


def test_the_layer_convention():
    assert layer_name(1, 6) == "layer 2"
    assert layer_name(0, 6, capital=True) == "Layer 1"
    assert layer_name(5, 6, total=True) == "layer 6 of 6"
    assert layer_name(30, 32, total=True) == "layer 31 of 32"
    assert layer_head_name(1, 8) == "layer 2, head 9"
    assert layer_head_tag(0, 11) == "L1 H12" and layer_head_tag(1, 8, sep="") == "L2H9"
    assert people_number(0) == "1"
