"""The printable worksheet (issue 41): its answer sheet prints the step pages' own numbers for the selected token,
and the class's sheet prints none of them."""

import html
import json
import re

import pytest
from conftest import run_app

from ui.content import PSEUDO, english_runs, words
from ui.settings import Settings
from ui.view import build_view
from ui.sections.worksheet import worksheet_html, worksheet_numbers

CASES = {
    "short": dict(sentence="I am good.", layer=1, head=8, token=0),
    "long, [CLS]/[SEP] hidden": dict(sentence="The animal didn't cross the street because it was too tired.",
                                     layer=3, head=1, token=9),
}


def sheets(model, case):
    settings = Settings(case["sentence"], "learned", 32, 0, case["layer"], case["head"], False, case["token"], False,
                        "")
    view = build_view(settings, model, model.analyze(settings.sentence))
    page = worksheet_html(view).decode("utf-8")
    class_sheet = page[page.index('<section class="sheet" id="class">'):page.index('id="answers"')]
    answer_sheet = page[page.index('id="answers"'):]
    return view, worksheet_numbers(view), class_sheet, answer_sheet


def plain(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def answers_of(numbers) -> set[str]:
    found = set()
    for value in numbers.values():
        found.update([value] if isinstance(value, str) else value[1:] if isinstance(value, tuple) else value)
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_the_class_sheet_has_no_number_of_the_answer_sheet(model, name):
    _, numbers, class_sheet, answer_sheet = sheets(model, CASES[name])
    answers = answers_of(numbers)
    printed_answers = set(re.findall(r"<1%|-?\d+(?:\.\d+)?%?", plain(answer_sheet)))
    assert answers <= printed_answers  # every number is on the answer sheet
    printed_in_class = set(re.findall(r"<1%|-?\d+(?:\.\d+)?%?", plain(class_sheet)))
    assert not answers & printed_in_class, answers & printed_in_class
    assert not re.search(r"\d\.\d", plain(class_sheet))  # not one decimal number on the class's sheet
    # Offline: nothing is fetched, and the answer sheet starts on a new printed page.
    page = class_sheet + answer_sheet
    assert not re.search(r"(src|href)\s*=|https?://|@import", page)
    assert ".sheet + .sheet { break-before: page" in worksheet_html(sheets(model, CASES[name])[0]).decode()


@pytest.mark.parametrize("name", list(CASES))
def test_the_answer_sheet_prints_the_step_pages_numbers(model, name):
    case = CASES[name]
    view, numbers, _, answer_sheet = sheets(model, case)
    session = dict(layer=case["layer"], head=case["head"], token=case["token"])
    # Step 3's softmax table, cell by cell, as the page draws it (every key of the row).
    at = run_app("app_pages/step3_softmax.py", case["sentence"], **session)
    assert not at.exception, at.exception
    title = words("step3.table_title", language="en", token=view.token_label)  # the selected token's table
    table = next(json.loads(e.proto.spec) for e in at.get("plotly_chart")
                 if json.loads(e.proto.spec)["layout"]["title"]["text"].startswith(title))
    cells = table["data"][0]["cells"]["values"]
    assert [numbers["scaled"], numbers["shifted"], numbers["exps"], numbers["weights"]] == cells[1:5]
    step3_text = " ".join(str(e.value) for e in at.main.get("markdown"))
    assert f"**{numbers['exp_sum']}**" in step3_text  # the e-values' sum, as step 3 writes it
    # Step 2's divisor and step 4's shares, as those pages write them.
    at = run_app("app_pages/step2_scaling.py", case["sentence"], **session)
    assert f"√d_k = √{numbers['d_k']} = {numbers['sqrt_dk']}" in " ".join(str(e.value) for e in at.main.get("markdown"))
    at = run_app("app_pages/step4_output.py", case["sentence"], **session)
    # the paragraph that says what changed names the token's own share and the other words' together
    assert any(numbers["own"] in str(e.value) and numbers["words"] in str(e.value) for e in at.main.get("markdown"))
    # The answer sheet shows exactly these numbers, and its step 4 sum is the model's output.
    for value in numbers["weights"] + numbers["raw"] + [numbers["exp_sum"], numbers["output"]]:
        assert value in plain(answer_sheet)
    assert abs(sum(float(v) for v in numbers["weighted"]) - float(numbers["output"])) < 0.002 * len(numbers["value"])
    assert len(numbers["shares"]) == len(view.base_key_labels) and numbers["shares"][view.base_index] in step3_text


@pytest.mark.parametrize("name", list(CASES))
def test_the_worksheet_comes_out_in_the_pages_language(model, name):
    """Every sentence of the file (titles, steps, table headers, notes) comes from content/: in the pseudo-language
    its visible text has no English left, and the answer sheet still prints every live number."""
    from pseudo_check import data_strings

    view, numbers, _, _ = sheets(model, CASES[name])
    page = worksheet_html(view, PSEUDO).decode("utf-8")
    visible = plain(re.sub(r"<style>.*?</style>", " ", page, flags=re.S))
    data = data_strings(view.settings.sentence, view.base_key_labels) + (view.label,)  # the view names its head
    assert not english_runs(visible, data), english_runs(visible, data)
    assert visible.count("⟦") > 20
    answer_sheet = plain(page[page.index('id="answers"'):])
    assert answers_of(numbers) <= set(re.findall(r"<1%|-?\d+(?:\.\d+)?%?", answer_sheet))


def printed_pages(browser, page_html: str, paper: str) -> int:
    """The number of pages Chromium prints the file on (each page object of the PDF)."""
    page = browser.new_page()
    try:
        page.set_content(page_html)
        return len(re.findall(rb"/Type\s*/Page(?!s)", page.pdf(format=paper)))
    finally:
        page.close()


@pytest.mark.browser
@pytest.mark.parametrize("sentence, shown_tokens", [("I am good.", 4),
                                                     (CASES["long, [CLS]/[SEP] hidden"]["sentence"], 14)])
def test_the_worksheet_prints_on_two_pages(browser, model, sentence, shown_tokens):
    """Issue 55: at 14 tokens it printed on 6. Two pages: the class's sheet, then the answer sheet."""
    view = sheets(model, dict(sentence=sentence, layer=3, head=1, token=1))[0]
    assert len(view.shown) == shown_tokens  # the words' tokens; [CLS] and [SEP] add two rows
    page_html = worksheet_html(view).decode("utf-8")
    for paper in ("A4", "Letter"):
        assert printed_pages(browser, page_html, paper) == 2, paper
