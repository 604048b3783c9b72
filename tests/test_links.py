"""Shared links are parsed strictly: a bad value on any page gives the default and a notice, never a traceback."""

import html
import random
import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from conftest import APP

from devtools.browser import PAGES
from ui.widgets.links import KNOWN_LINK_KEYS, LINK_CHECKS, VIEW_LINK_KEYS, link_number
from ui.settings import DEFAULT_LAYER, MAX_SENTENCE_CHARS

# Values int() or Streamlit would take in their own way, but a link number must not be.
ODD_NUMBERS = ["²", "①", "٣", "１", "-1", "+1", "-0", "1.5", "1.0", "1e2", "", " 1", "1 ", "0x1", "999999999",
               "1_0", "NaN"]
NUMBER_KEYS = ["dk", "seed", "layer", "head", "token"]
PAGE_FILES = [f"app_pages/{path or 'home'}.py" for path in PAGES.values()]


def open_link(page: str, params: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page)
        at.run()
    return at


def test_link_number_accepts_only_ascii_digits_in_range():
    assert link_number("3", 6) == 3 and link_number("0", 6) == 0 and link_number("007", 12) == 7
    for value in ODD_NUMBERS + ["6", None]:
        assert link_number(value, 6) is None, value
    assert all(not LINK_CHECKS[key]("²") for key in NUMBER_KEYS)


@pytest.mark.parametrize("page", PAGE_FILES)
def test_odd_link_values_fall_back_with_a_notice_on_every_page(page):
    rng = random.Random(page)  # a different mix on every page, the same on every run
    params = {key: rng.choice(ODD_NUMBERS) for key in NUMBER_KEYS}
    params["mode"] = "random"  # so d_k and seed have widgets too
    params["teach"] = rng.choice(["yes", "1", "True "])
    params["sentence"] = "The animal didn't cross the street because it was too tired."
    at = open_link(page, params)
    assert not at.exception, [e.value for e in at.exception]
    # After switch_page AppTest runs the page without app.py's sidebar: the notices are read from the session.
    notices = " ".join(at.session_state["_link_notices"])
    for key in NUMBER_KEYS + ["teach"]:
        assert f"link's {key} value" in notices, (key, params[key])
    s = at.session_state["_settings"]
    assert (s.d_k, s.seed, s.token, s.teaching) == (32, 0, 0, False)
    assert s.sentence == params["sentence"]


@pytest.mark.parametrize("page", ["app_pages/step3_softmax.py", "app_pages/multihead.py"])
def test_repeated_and_valid_keys(page):
    """A key given twice must be valid both times; good values are kept, token by index."""
    at = open_link(page, {"layer": ["2", "²"], "head": ["5", "5"], "token": "3",
                          "sentence": "The animal didn't cross the street because it was too tired."})
    assert not at.exception
    s = at.session_state["_settings"]
    assert (s.layer, s.head, s.token) == (DEFAULT_LAYER, 5, 3)
    notices = " ".join(at.session_state["_link_notices"])
    assert "link's layer value" in notices and "head" not in notices and "token" not in notices


# Built links (a figure's "open this head", a glossary term): an href in a figure or a Markdown link's target.
BUILT_LINK = re.compile(r'(?:href=\\?"|\]\()((?:glossary|step[1-4]_\w+)\?[^"\\)#\s]*)')
FOUR_BYTES = "\U00020000"  # one character, 4 bytes of UTF-8, 12 characters in a link: the longest link per character


def _built_links(at) -> list[str]:
    from test_hostile import _nodes, _strings

    return [html.unescape(link) for node in _nodes(at._tree) if getattr(node, "proto", None) is not None
            for text in _strings(node.proto) for link in BUILT_LINK.findall(text)]


def _page_bytes(at) -> tuple[int, int]:
    """(largest element, all elements) of the page, serialised: each element is one websocket message."""
    from test_hostile import _nodes

    sizes = [node.proto.ByteSize() for node in _nodes(at._tree) if hasattr(getattr(node, "proto", None), "ByteSize")]
    return max(sizes), sum(sizes)


@pytest.mark.parametrize("page", ["app_pages/multihead.py", "app_pages/step1_scores.py"])
def test_a_links_unknown_and_oversized_parameters_never_reach_the_links_a_page_builds(page):
    """One unknown parameter of 20,000 emoji (240 kB in the link; Streamlit takes 512 k characters) once went into
    each of the multi-head page's 72 head links: a 17 MB message, above the 16 MB limit. Built links carry the
    view's known keys only, each valid, the sentence at most a box's length; the page's own address drops the rest."""
    at = open_link(page, {"junk": "😀" * 20_000, "sentence": FOUR_BYTES * 15_000, "layer": "7" * 50_000,
                          "head": "5", "special": "true"})
    assert not at.exception, [e.value for e in at.exception]
    links = _built_links(at)
    assert len(links) >= (72 if page == "app_pages/multihead.py" else 1), links[:3]
    longest_view = urlencode({**{key: "1" * 6 for key in LINK_CHECKS}, "sentence": FOUR_BYTES * MAX_SENTENCE_CHARS})
    for link in links:
        params = parse_qs(urlparse(link).query, keep_blank_values=True)
        assert set(params) <= set(VIEW_LINK_KEYS), sorted(set(params) - set(VIEW_LINK_KEYS))
        assert all(len(values) == 1 and (key == "sentence" or LINK_CHECKS[key](values[0]))
                   for key, values in params.items()), params
        assert params.get("head") == ["5"] or page == "app_pages/multihead.py"  # a valid value is carried on
        assert len(link) <= len(longest_view) + 100, len(link)
    assert set(at.query_params) <= KNOWN_LINK_KEYS, sorted(set(at.query_params) - KNOWN_LINK_KEYS)
    largest, total = _page_bytes(at)
    # The largest message a page sends at 256 tokens is the multi-head figure, 4.5 MB with its 72 longest links.
    assert largest < 6 * 10**6 and total < 12 * 10**6, (largest, total)


def test_every_widget_bound_to_the_link_reads_a_known_key():
    """A link's unknown keys are dropped on a session's first run: a new box bound to the link must be known too
    (ui/widgets/links.py LINK_CHECKS or LINK_TEXTS), or its links would stop working."""
    import ast
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    bound = {}
    for path in [*root.glob("ui/**/*.py"), *root.glob("app_pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            keywords = {k.arg: k.value for k in getattr(node, "keywords", [])} if isinstance(node, ast.Call) else {}
            if isinstance(keywords.get("bind"), ast.Constant) and keywords["bind"].value == "query-params":
                key = keywords["key"]
                if isinstance(key, ast.Name):  # a module constant (ui/sections/meaning.py: A_KEY)
                    key = getattr(importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts)), key.id)
                else:
                    key = key.value
                bound[key] = path.name
    # Layer and head are not bound by Streamlit (it would write their labels, counted from 1): ui/widgets/sidebar.py
    # reads and writes them, in the code's numbers.
    assert len(bound) >= 11, bound
    assert set(bound) <= KNOWN_LINK_KEYS, {key: where for key, where in bound.items() if key not in KNOWN_LINK_KEYS}
