"""Turning user-typed text and numbers into safe, readable page text."""

from __future__ import annotations

import html
import re
import unicodedata

from ui.names import (  # noqa: F401  one way every page names a layer and a head, counted from 1
    head_name, head_tag, layer_head_name, layer_head_tag, layer_name, layer_tag, people_number)
from ui.content import words

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:&])")


# Where GitHub-flavoured Markdown turns plain text into a link ("https://…", "www.…", "name@host.…"): escapes do not
# stop it (it finds them in the text after escapes are read), so an invisible word joiner goes in the middle.
WORD_JOINER = "\u2060"
_AUTOLINK_STARTS = re.compile(r"(?<=\w)(?=://)|(?i:(?<=www)(?=\.))|(?=@)")


def md(text: str) -> str:
    """User text for st.markdown: every Markdown/LaTeX/HTML metacharacter shown as itself, no typed address a link."""
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n" else c for c in str(text))
    text = _AUTOLINK_STARTS.sub(WORD_JOINER, text)
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text).replace("\n", " ")


# Bidirectional controls: embeddings, overrides, isolates and marks. One U+202E in a sentence turned the rest of a
# figure's title line ("learned projections, layer 2, head 9") around; md() blanks them in page text, figures and
# exported files drop them here. (Other invisible characters, such as the joiner inside an emoji, stay.)
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_NO_BIDI = str.maketrans("", "", BIDI_CONTROLS)


def no_bidi(text: str) -> str:
    """Text for a figure or a file: without bidirectional control characters."""
    return str(text).translate(_NO_BIDI)


def html_text(text) -> str:
    """User text for an HTML file (the worksheet): escaped, and without bidirectional controls, as in figures."""
    return html.escape(no_bidi(text))


def quote(token: str) -> str:
    """A token inside a sentence of page text: “token”, escaped."""
    return f"“{md(token)}”"


LESS_THAN_ONE = "<1%"


def pct(x: float) -> str:
    """A share as every page prints it: whole percents, and "<1%" for a share above 0 but under 1%. One rule, so a
    list never mixes "3%" with "0.7%" (nor prints "1.0%" for a share just under 1%)."""
    return LESS_THAN_ONE if 0 < x < 0.01 else f"{100 * x:.0f}%"


def plain_small(x: float, at_most: bool = False) -> str:
    """A tiny difference a student can read, never in scientific notation ("at most 0.00003" for a bound)."""
    if x < 1e-5:
        return words("text.tiny")
    return words("text.at_most", value=f"{x:.5f}") if at_most else f"{x:.5f}"


def shorten(text: str, limit: int = 48) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def slug(text: str, limit: int = 32, lower: bool = True) -> str:
    """A filename-safe piece: ascii letters, digits, dashes and underscores only."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    if lower:
        ascii_text = ascii_text.lower()
    return re.sub(r"[^A-Za-z0-9_]+", "-", ascii_text).strip("-_")[:limit].strip("-_") or "sentence"
