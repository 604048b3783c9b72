"""The quiz's answer key as one printable, offline HTML file: every question of the page, numbered as the page's
"Show all answers" numbers them, with its right answer, why, and the page to read (lessons/questions.py
answer_sheet), from the same questions, built from the same live numbers, that the page shows, in the page's
language (the file's own words: content/<language>/answer_key.toml). Nothing is fetched and no script runs.

The questions' text is the page's Markdown (emphasis with * and **, typed tokens escaped by ui/text.py md with
backslashes); it is read here as exactly that small Markdown, and every other character is escaped for HTML.
"""

from __future__ import annotations

import re

from lessons.questions import GROUPS, answer_sheet

from ui.content import ENGLISH, PSEUDO, words
from ui.sections.quiz import group_name, shown
from ui.text import html_text

# One piece of the page's Markdown: an escaped character, ** or *, or a run of plain text.
_MARKDOWN_PIECE = re.compile(r"\\(.)|(\*\*)|(\*)|([^\\*]+|\\$)", re.S)


def markdown_html(text: str) -> str:
    """The questions' Markdown (backslash escapes, *italic*, **bold**) as HTML; every character else escaped."""
    out, open_tags = [], []
    for escaped, bold, italic, plain in _MARKDOWN_PIECE.findall(str(text)):
        if bold or italic:
            tag = "b" if bold else "i"
            if open_tags and open_tags[-1] == tag:
                open_tags.pop()
                out.append(f"</{tag}>")
            else:
                open_tags.append(tag)
                out.append(f"<{tag}>")
        else:
            out.append(html_text(escaped or plain))
    out.extend(f"</{tag}>" for tag in reversed(open_tags))  # an unmatched * never leaves a tag open
    return "".join(out)


STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 11pt; color: #111; margin: 0 auto; max-width: 190mm;
       padding: 8mm; line-height: 1.35; }
h1 { font-size: 16pt; margin: 0 0 4pt; } h2 { font-size: 12.5pt; margin: 12pt 0 4pt; border-bottom: 1px solid #999; }
.sentence { font-size: 12pt; border-left: 4px solid #2563eb; padding-left: 8pt; margin: 4pt 0; }
.note { color: #333; font-size: 9.5pt; margin: 2pt 0 6pt; }
ol { padding-left: 0; list-style: none; margin: 0; }
li { margin: 0 0 6pt; break-inside: avoid; page-break-inside: avoid; }
.q { font-weight: 600; } .a { margin-left: 12pt; } .why { margin-left: 12pt; color: #222; }
.label { font-weight: 600; }
@page { size: A4; margin: 12mm; }
@media print { body { padding: 0; } h2 { break-after: avoid; page-break-after: avoid; } }
"""


def answer_key_html(questions, sentence: str, label: str, language: str) -> bytes:
    """questions: the quiz page's questions (lessons/questions.py quiz and the meaning page's); sentence and label:
    what they were computed from, as the page says it; language: the page's (the file is made after the page's run,
    on a click, so the page binds it)."""
    labels = {name: f'<span class="label">{html_text(text)}</span>' for name, text in (
        ("open", words("answer_key.open", language=language)), ("answer", words("answer_key.answer", language=language)),
        ("why", words("answer_key.why", language=language)),
        ("read_more", words("answer_key.read_more", language=language)))}
    sheet = [(entry.number, shown(entry.question, language)) for entry in answer_sheet(questions)]
    parts = [f"<h1>{html_text(words('answer_key.heading', language=language))}</h1>",
             f'<p class="sentence">{html_text(sentence)}</p>',
             f'<p class="note">{html_text(words("answer_key.note", language=language, label=label))}</p>']
    for group in GROUPS:
        items = []
        for number, q in (entry for entry in sheet if entry[1].question.group == group):
            if q.answer is None:
                answer = (f'<div class="a">{labels["open"]} '
                          f"{markdown_html(q.explanation)}</div>")
            else:
                answer = (f'<div class="a">{labels["answer"]} {markdown_html(q.answer)}</div>'
                          f'<div class="why">{labels["why"]} {markdown_html(q.explanation)}</div>')
            where = f'<div class="why">{labels["read_more"]} {html_text(q.page_title)}</div>'
            items.append(f'<li id="q{number}"><div class="q">{number}. {markdown_html(q.text)}</div>'
                         f"{answer}{where}</li>")
        if items:
            parts.append(f"<h2>{html_text(group_name(group, language))}</h2><ol>{''.join(items)}</ol>")
    title = html_text(words("answer_key.title", language=language, sentence=sentence[:60]))
    # pseudo is no language tag: the page is English underneath
    tag = ENGLISH if language == PSEUDO else language
    return (f'<!DOCTYPE html>\n<html lang="{tag}"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n").encode("utf-8")
