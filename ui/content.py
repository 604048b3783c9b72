"""Words that live in text files (content/<language>/<name>.md), with named placeholders the code fills in.

A teacher can change such a text without touching Python; a placeholder the code does not know fails at once
(KeyError), in a test, not on a visitor's page.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

CONTENT = Path(__file__).resolve().parent.parent / "content"
LANGUAGE = "en"


@lru_cache(maxsize=32)
def template(name: str, language: str = LANGUAGE) -> str:
    return (CONTENT / language / f"{name}.md").read_text(encoding="utf-8")


def text(name: str, **values) -> str:
    """The text `name` with its {placeholders} filled in."""
    return template(name).format_map(values)
