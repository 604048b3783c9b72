"""Every page runs in-process (AppTest) on the real model, for ordinary and odd sentences."""

import json

import pytest
from conftest import run_app

from devtools.browser import PAGE_FILES

PAGES = PAGE_FILES
FIGURELESS = {"app_pages/quiz.py", "app_pages/glossary.py"}
ODD = ["", "Hello", " ".join(["word"] * 300), "猫が好き 🙂🐶 emoji", "<script>alert(1)</script> **bold** $x$ `c`"]


def heatmaps(at):
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_default_sentence(page):
    at = run_app(page)
    assert not at.exception, at.exception
    if page not in FIGURELESS:
        assert heatmaps(at), f"{page} shows no figure"


@pytest.mark.parametrize("sentence", ODD)
@pytest.mark.parametrize("page", PAGES)
def test_page_survives_odd_sentences(page, sentence):
    at = run_app(page, sentence)
    assert not at.exception, at.exception
    assert at.session_state["sentence"] == sentence  # nothing typed is lost
