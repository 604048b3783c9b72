"""The quiz's questions in the page's language: lessons/questions.py gives each question's facts (option identities,
the right one, the numbers and tokens it quotes), content/<language>/quiz.toml its words.

Every number is formatted here, one way per kind (lessons/questions.py Percent, Number, …), so the printable answer
key (ui/sections/answer_key.py) and the page print the same numbers. Tokens are quoted with ui/text.py quote
(Markdown-escaped): the page shows Markdown, and the answer key reads exactly that Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lessons.questions import Listing, Number, Numbers, Percent, Question, Shares, Token, is_right

from ui.content import current_language, words
from ui.text import pct, quote


def _number(value: Number) -> str:
    text = f"{value.value:+.{value.digits}f}" if value.sign else f"{value.value:.{value.digits}f}"
    if value.sign or value.true_minus:
        zero = f"{0:.{value.digits}f}"
        text = zero if text in (f"+{zero}", f"-{zero}") else text
    return text.replace("-", "−") if value.true_minus else text


def formatted(value):
    """A question's fact as its template places it: numbers rounded, tokens quoted, lists joined."""
    if isinstance(value, Percent):
        return pct(value.value)
    if isinstance(value, Number):
        return _number(value)
    if isinstance(value, Token):
        return quote(value.text)
    if isinstance(value, Listing):
        return ", ".join(f"{quote(t.text)} {_number(v)}" for t, v in value.items) + (" …" if value.more else "")
    if isinstance(value, Numbers):
        return ", ".join(_number(v) for v in value.items) + (" …" if value.more else "")
    if isinstance(value, Shares):  # pairs: the template words each (“on itself” for the token's own share)
        return [(pct(share.value), None if token is None else quote(token.text)) for share, token in value.items]
    if isinstance(value, tuple):
        return [formatted(v) for v in value]
    return value


def names(question: Question) -> list[str]:
    """The names of a question's texts in content/<language>/quiz.toml."""
    options = [f"quiz.{question.key}_option_{option}" for option in question.options or ()]
    return [f"quiz.{question.key}_question", f"quiz.{question.key}_why", *options]


@dataclass(frozen=True)
class Shown:
    """One question as the page shows it (Markdown)."""

    question: Question
    text: str
    options: dict[str, str] | None   # option identity -> its words
    explanation: str
    page_title: str

    @property
    def answer(self) -> str | None:
        return None if self.options is None else self.options[self.question.right]


def shown(question: Question, language: str | None = None) -> Shown:
    language = language or current_language()
    values = {name: formatted(value) for name, value in question.facts.items()}
    options = (None if question.options is None else
               {option: words(f"quiz.{question.key}_option_{option}", language=language)
                for option in question.options})
    return Shown(question, words(f"quiz.{question.key}_question", language=language, **values), options,
                 words(f"quiz.{question.key}_why", language=language, **values),
                 page_title(question.page, language))


def verdict(question: Shown, choice: str, language: str | None = None) -> tuple[bool, str]:
    """(right, the feedback a student sees after choosing the option `choice`)."""
    language = language or current_language()
    if is_right(question.question, choice):
        return True, words("quiz.verdict_right", language=language, answer=question.answer,
                           explanation=question.explanation)
    return False, words("quiz.verdict_wrong", language=language, choice=question.options[choice],
                        answer=question.answer, explanation=question.explanation)


def model_answer(question: Shown, language: str | None = None) -> str:
    return words("quiz.model_answer", language=language, explanation=question.explanation)


def group_name(group: str, language: str | None = None) -> str:
    """A group's heading (lessons/questions.py GROUPS)."""
    return words(f"quiz.group_{group}", language=language)


def page_title(page: str, language: str | None = None) -> str:
    """The name of a page a question links to (lessons/questions.py PAGES), by its file name: the menu's own title,
    so a page is named one way everywhere."""
    return words(f"menu.page_{Path(page).stem}", language=language)
