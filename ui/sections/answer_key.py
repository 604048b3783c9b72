"""The quiz's answer key as one printable, offline HTML file: every question of the page, numbered as the page's
"Show all answers" numbers them, with its right answer, why, and the page to read (lessons/questions.py
answer_sheet), from the same questions, built from the same live numbers, that the page shows. Nothing is fetched
and no script runs.

The questions' text is the page's Markdown (emphasis with * and **, typed tokens escaped by ui/text.py md with
backslashes); it is read here as exactly that small Markdown, and every other character is escaped for HTML.
"""

from __future__ import annotations

import re

from lessons.questions import GROUPS, answer_sheet

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


def answer_key_html(questions, sentence: str, label: str) -> bytes:
    """questions: the quiz page's questions (lessons/questions.py quiz and the meaning page's); sentence and label:
    what they were computed from, as the page says it."""
    entries = answer_sheet(questions)
    parts = ["<h1>Check yourself: the answer key</h1>",
             f'<p class="sentence">{html_text(sentence)}</p>',
             f'<p class="note">Model all-MiniLM-L6-v2, {html_text(label)}. Every answer is computed from this '
             "sentence's own numbers: another sentence gives other numbers.</p>"]
    for group in GROUPS:
        items = []
        for entry in (e for e in entries if e.group == group):
            if entry.answer is None:
                answer = ('<div class="a"><span class="label">Open question. A model answer:</span> '
                          f"{markdown_html(entry.reason)}</div>")
            else:
                answer = (f'<div class="a"><span class="label">Answer:</span> {markdown_html(entry.answer)}</div>'
                          f'<div class="why"><span class="label">Why:</span> {markdown_html(entry.reason)}</div>')
            where = f'<div class="why"><span class="label">Read more:</span> {html_text(entry.page_title)}</div>'
            items.append(f'<li id="q{entry.number}"><div class="q">{entry.number}. {markdown_html(entry.text)}</div>'
                         f"{answer}{where}</li>")
        if items:
            parts.append(f"<h2>{html_text(group)}</h2><ol>{''.join(items)}</ol>")
    title = html_text(f"Answer key: {sentence[:60]}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n").encode("utf-8")
