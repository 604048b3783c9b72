"""Issue 52: every sentence a person reads comes from content/, shown by the pseudo-language check.

In the pseudo-language (the `lang` setting, ?lang=pseudo) each text from content/ is accented and wrapped in ⟦…⟧,
while data (the typed sentence, its tokens, the built-in sentences the model reads, numbers) stays as it is. Three
English words in a row outside the markers are a sentence left in the code.

- In-process (AppTest), every page at a short and a long sentence: prose, labels, help, options, figure words
  (hover texts included) and tables.
- In Chromium, every page's visible text as a person sees it (document.body.innerText), the offline files too.
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest
from conftest import APP, run_app
from pseudo_check import data_strings, shown_texts

from devtools.browser import CHROMIUM, streamlit_server, wait_for_page
from ui.content import PSEUDO, english_runs, language_name

SHORT, LONG = "I am good.", "The animal didn't cross the street because it was too tired."
PORT = 8671


def menu_pages() -> list[str]:
    return re.findall(r'st\.Page\("(app_pages/[^"]+\.py)"', Path(APP).read_text())


# Words the libraries write themselves, not the app: Streamlit's skip link and heading anchors, plotly's camera.
LIBRARY_WORDS = ("Skip to main content", "Link to heading", "Download plot as a png")


def left_in_code(texts: list[str], sentence: str, tokens: list[str]) -> list[str]:
    data = data_strings(sentence, tokens) + LIBRARY_WORDS
    return [f"{run!r} in {text[:120]!r}" for text in texts for run in english_runs(text, data)]


def test_the_check_finds_english_and_passes_marked_text():
    data = data_strings(SHORT, ["i", "am", "good"])
    assert english_runs("The weights of this row add up to one.", data)
    assert not english_runs("⟦Thé wéíghtš óf thíš róẃ ádd úp tó óñé.⟧ 72% [CLS]+[SEP]", data)
    assert not english_runs("“I am good.” · layer 2, head 9", data)  # the sentence is data; two words are not a run
    assert not english_runs("⟦Ópéñ ⟦láýér 2⟧ íñ thé štép págéš, óñ “Some text the model read”⟧", data)  # nested
    assert english_runs("⟦Ópéñ ⟦láýér 2⟧⟧ in the step pages", data)


@pytest.mark.parametrize("sentence", [SHORT, LONG])
@pytest.mark.parametrize("page", menu_pages())
def test_every_page_in_the_pseudo_language_has_no_sentence_left_in_code(model, page, sentence):
    at = run_app(page, sentence, lang="pseudo")
    assert not at.exception, at.exception
    tokens = model.tokenize(sentence)
    found = left_in_code(shown_texts(at), sentence, tokens)
    assert not found, "\n".join(found[:25])


def test_english_is_the_default_and_a_link_chooses_the_language(model):
    english = run_app("app_pages/step3_softmax.py", SHORT)
    switch = language_name(PSEUDO)  # the switch names the pseudo-language in its own words on every page
    assert not any("⟦" in text for text in shown_texts(english) if text != switch)
    marked = run_app("app_pages/step3_softmax.py", SHORT, lang="pseudo")
    assert sum("⟦" in text for text in shown_texts(marked)) > 10


browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                  reason="Debian's Chromium is not installed (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def pseudo_server(browser):
    with streamlit_server(port=PORT) as (url, _process, _seconds):
        yield url


VISIBLE_TEXT_JS = """() => {
  const main = document.body;
  const attributes = [...main.querySelectorAll('[aria-label], [title], img[alt]')]
      .map(e => [e.getAttribute('aria-label'), e.getAttribute('title'), e.getAttribute('alt')].filter(Boolean).join(' | '));
  return [main.innerText, ...attributes];
}"""


@browser_only
@pytest.mark.browser
@pytest.mark.parametrize("page_path", menu_pages())
def test_every_page_as_a_person_sees_it_in_the_pseudo_language(browser, pseudo_server, model, page_path):
    url_path = "" if page_path == "app_pages/home.py" else page_path.removeprefix("app_pages/").removesuffix(".py")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{pseudo_server}/{url_path}?{urllib.parse.urlencode({'sentence': LONG, 'lang': 'pseudo'})}")
        wait_for_page(page, figures=page_path not in ("app_pages/quiz.py", "app_pages/glossary.py"))
        assert page.locator('[data-testid="stException"]').count() == 0
        found = left_in_code(page.evaluate(VISIBLE_TEXT_JS), LONG, model.tokenize(LONG))
        assert not found, "\n".join(found[:25])
    finally:
        page.close()
