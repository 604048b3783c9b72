"""Shared links are parsed strictly: a bad value on any page gives the default and a notice, never a traceback."""

import random

import pytest
from conftest import APP

from devtools.browser import PAGES
from ui.links import LINK_CHECKS, link_number
from ui.settings import DEFAULT_LAYER

# Values int() or Streamlit would take in their own way, but a link number must not be.
ODD_NUMBERS = ["²", "①", "٣", "１", "-1", "+1", "-0", "1.5", "1.0", "1e2", "", " 1", "1 ", "0x1", "999999999",
               "1_0", "NaN"]
NUMBER_KEYS = ["dk", "seed", "layer", "head", "token"]
PAGE_FILES = [f"pages/{path or 'home'}.py" for path in PAGES.values()]


def open_link(page: str, params: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page != "pages/home.py":
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


@pytest.mark.parametrize("page", ["pages/step3_softmax.py", "pages/multihead.py"])
def test_repeated_and_valid_keys(page):
    """A key given twice must be valid both times; good values are kept, token by index."""
    at = open_link(page, {"layer": ["2", "²"], "head": ["5", "5"], "token": "3",
                          "sentence": "The animal didn't cross the street because it was too tired."})
    assert not at.exception
    s = at.session_state["_settings"]
    assert (s.layer, s.head, s.token) == (DEFAULT_LAYER, 5, 3)
    notices = " ".join(at.session_state["_link_notices"])
    assert "link's layer value" in notices and "head" not in notices and "token" not in notices
