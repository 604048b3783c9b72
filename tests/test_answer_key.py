"""The quiz's printable answer key (issue 55): one offline HTML file with every question, its answer and why, from
the same live numbers as the quiz page; the answer it gives for each question is the one the page marks right, and
text a visitor typed is escaped in it."""

import html
import re

from conftest import run_app
from pseudo_check import data_strings

from lessons.questions import answer_sheet, quiz
from ui.content import ENGLISH, PSEUDO, english_runs, words
from ui.sections.answer_key import answer_key_html, markdown_html
from ui.sections.meaning import meaning_quiz
from ui.sections.quiz import shown
from ui.settings import Settings
from ui.text import html_text
from ui.view import build_view

SESSION = dict(layer=3, head=1, token=2)


def page_questions(model, sentence):
    """The questions as app_pages/quiz.py builds them for these settings (learned mode, markers hidden)."""
    settings = Settings(sentence, "learned", 32, 0, SESSION["layer"], SESSION["head"], False, SESSION["token"],
                        False, "")
    view = build_view(settings, model, model.analyze(sentence))
    return view, quiz(view.base, view.base_labels, view.base_index, shown=view.shown) + meaning_quiz(model)


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def file_answers(page: str) -> dict[int, str | None]:
    """Question number -> the answer the file gives (None: an open question)."""
    found = {}
    for number, body in re.findall(r'<li id="q(\d+)">(.*?)</li>', page, re.S):
        label = re.escape(html_text(words("answer_key.answer", language=ENGLISH)))
        answer = re.search(rf'<span class="label">{label}</span>(.*?)</div>', body, re.S)
        found[int(number)] = plain(answer.group(1)) if answer else None
    return found


def test_the_page_marks_every_answer_of_the_file_right(model):
    sentence = "The animal didn't cross the street because it was too tired."
    view, questions = page_questions(model, sentence)
    page = answer_key_html(questions, sentence, view.label, ENGLISH).decode("utf-8")
    answers = file_answers(page)
    entries = [(e.number, shown(e.question, ENGLISH)) for e in answer_sheet(questions)]
    assert sorted(answers) == [number for number, _ in entries]  # every question, once
    graded = [(number, q) for number, q in entries if q.answer is not None]
    choices = [answers[number] for number, _ in graded]
    assert all(choices) and len(choices) >= 10
    # Every open question has its model answer, and every reason (with its live numbers) is in the file.
    assert all(plain(markdown_html(q.explanation)) in plain(page) for _, q in entries)
    # The quiz page itself, given the file's answers: it marks every one right and none wrong.
    at = run_app("app_pages/quiz.py", sentence, **SESSION)
    assert not at.exception, at.exception
    radios = at.main.radio
    assert len(radios) == len(choices)
    for radio, choice, (_, q) in zip(radios, choices, graded):
        assert choice in radio.options, (choice, radio.options)
        # the radio's values are the options' identities, in the order it shows their words
        radio.set_value(q.question.shuffled_options()[radio.options.index(choice)])
    at.run()
    assert not at.exception, at.exception
    assert len(at.main.success) == len(choices) and not at.main.error
    # And it offers the file.
    assert any("answer key" in str(b.proto.label).lower() for b in at.main.get("download_button"))


def test_typed_text_is_escaped_and_nothing_is_fetched(model):
    sentence = 'My <b>bold</b> *cat* & <script>alert("x")</script> sat.'
    view, questions = page_questions(model, sentence)
    page = answer_key_html(questions, sentence, view.label, ENGLISH).decode("utf-8")
    assert "<script" not in page.lower() and "<b>bold" not in page
    assert "&lt;script&gt;" in page
    # The typed tokens are quoted as themselves (no Markdown read into them), and the sentence is printed whole.
    tokens_quoted = [t for t in view.base_labels if any(c in t for c in "<>*&\"")]
    assert tokens_quoted and any(f"“{t}”" in plain(page) for t in tokens_quoted)
    assert re.search(r'<html lang="en">', page)
    assert sentence in plain(page)
    assert not re.search(r"(src|href)\s*=|https?://|@import", page)
    assert "@media print" in page


def test_markdown_is_read_as_the_page_reads_it():
    assert markdown_html(r"*this* and **that** and \*not\* \<b\>") == "<i>this</i> and <b>that</b> and *not* &lt;b&gt;"
    assert markdown_html("a lone * star") == "a lone <i> star</i>"  # closed: no tag left open


def test_the_file_comes_in_the_pages_language(model):
    """In the pseudo-language every sentence of the file, its labels and headings too, is marked: no three English
    words in a row are left outside the markers in its visible text. The same questions in the same order."""
    sentence = "The animal didn't cross the street because it was too tired."
    view, questions = page_questions(model, sentence)
    page = answer_key_html(questions, sentence, view.label, PSEUDO).decode("utf-8")
    visible = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", page, flags=re.S)))
    # Data: the sentence and its tokens; the view's label comes from ui/view.py, which is not this file's
    # words (it is the page's label, however ui/view.py words it).
    data = data_strings(sentence, view.base_labels) + (view.label,)
    assert not english_runs(visible, data), english_runs(visible, data)[:10]
    assert visible.count("⟦") > 5 * len(questions)
    english = answer_key_html(questions, sentence, view.label, ENGLISH).decode("utf-8")
    assert re.findall(r'<li id="q(\d+)">', page) == re.findall(r'<li id="q(\d+)">', english)
    assert '<html lang="en">' in page  # pseudo is English underneath, not a language of its own
