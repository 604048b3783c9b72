"""The quiz's printable answer key (issue 55): one offline HTML file with every question, its answer and why, from
the same live numbers as the quiz page; the answer it gives for each question is the one the page marks right, and
text a visitor typed is escaped in it."""

import html
import re

from conftest import run_app

from lessons.questions import answer_sheet, quiz
from ui.sections.answer_key import answer_key_html, markdown_html
from ui.sections.meaning import meaning_quiz
from ui.settings import Settings
from ui.text import quote
from ui.view import build_view

SESSION = dict(layer=3, head=1, token=2)


def page_questions(model, sentence):
    """The questions as app_pages/quiz.py builds them for these settings (learned mode, markers hidden)."""
    settings = Settings(sentence, "learned", 32, 0, SESSION["layer"], SESSION["head"], False, SESSION["token"],
                        False, "")
    view = build_view(settings, model, model.analyze(sentence))
    return view, quiz(view.base, view.base_labels, view.base_index, quote, shown=view.shown) + meaning_quiz(model)


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def file_answers(page: str) -> dict[int, str | None]:
    """Question number -> the answer the file gives (None: an open question)."""
    found = {}
    for number, body in re.findall(r'<li id="q(\d+)">(.*?)</li>', page, re.S):
        answer = re.search(r'<span class="label">Answer:</span>(.*?)</div>', body, re.S)
        found[int(number)] = plain(answer.group(1)) if answer else None
    return found


def test_the_page_marks_every_answer_of_the_file_right(model):
    sentence = "The animal didn't cross the street because it was too tired."
    view, questions = page_questions(model, sentence)
    page = answer_key_html(questions, sentence, view.label).decode("utf-8")
    answers = file_answers(page)
    entries = answer_sheet(questions)
    assert sorted(answers) == [e.number for e in entries]  # every question, once
    choices = [answers[e.number] for e in entries if e.answer is not None]
    assert all(choices) and len(choices) >= 10
    # Every open question has its model answer, and every reason (with its live numbers) is in the file.
    assert all(plain(markdown_html(e.reason)) in plain(page) for e in entries)
    # The quiz page itself, given the file's answers: it marks every one right and none wrong.
    at = run_app("app_pages/quiz.py", sentence, **SESSION)
    assert not at.exception, at.exception
    radios = at.main.radio
    assert len(radios) == len(choices)
    for radio, choice in zip(radios, choices):
        assert choice in radio.options, (choice, radio.options)
        radio.set_value(choice)
    at.run()
    assert not at.exception, at.exception
    assert len(at.main.success) == len(choices) and not at.main.error
    # And it offers the file.
    assert any("answer key" in str(b.proto.label).lower() for b in at.main.get("download_button"))


def test_typed_text_is_escaped_and_nothing_is_fetched(model):
    sentence = 'My <b>bold</b> *cat* & <script>alert("x")</script> sat.'
    view, questions = page_questions(model, sentence)
    page = answer_key_html(questions, sentence, view.label).decode("utf-8")
    assert "<script" not in page.lower() and "<b>bold" not in page
    assert "&lt;script&gt;" in page
    # The typed tokens are quoted as themselves (no Markdown read into them), and the sentence is printed whole.
    tokens_quoted = [t for t in view.base_labels if any(c in t for c in "<>*&\"")]
    assert tokens_quoted and any(f"“{t}”" in plain(page) for t in tokens_quoted)
    assert sentence in plain(page)
    assert not re.search(r"(src|href)\s*=|https?://|@import", page)
    assert "@media print" in page


def test_markdown_is_read_as_the_page_reads_it():
    assert markdown_html(r"*this* and **that** and \*not\* \<b\>") == "<i>this</i> and <b>that</b> and *not* &lt;b&gt;"
    assert markdown_html("a lone * star") == "a lone <i> star</i>"  # closed: no tag left open
