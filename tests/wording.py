"""A page's words as content/ holds them, for tests that find an element or check a sentence: a teacher who
rewords content/en/*.toml changes what the tests look for, and no test breaks (issue 52)."""

import re

from ui.content import placeholders, source, words


def said(name, /, **values):
    """The text `name` in English (the language of AppTest runs and of a Chromium page opened without ?lang=)."""
    return words(name, language="en", **values)


def told(name, /, line_of=None, **fixed):
    """The text `name` as a page renders it, as a regex, in whatever words content/ holds: each placeholder not
    fixed (a branch's flag, say) becomes a group of its name. line_of: only the line that places that value (of a
    text of several lines and branches, the one sentence a test reads)."""
    marks = {key: f"\0{key}\0" for key in placeholders(name) if key not in fixed}
    text = words(name, language="en", **marks, **fixed)
    if line_of:
        value = marks[line_of] if line_of in marks else str(fixed[line_of])
        text = next(line for line in text.split("\n") if value in line)
    pattern = re.escape(text.strip())  # a space left at a text's end is not shown
    for key, mark in marks.items():  # a value said twice: the second time, the same
        pattern = pattern.replace(re.escape(mark), f"(?P<{key}>[^\n]+?)", 1).replace(re.escape(mark), f"(?P={key})")
    return re.compile(pattern + r"(?=\s|$)")  # to its end: "3.21" is not a sentence's last full stop


def lead(name):
    """A text's own words before its first placeholder or branch."""
    return source(name).split("{")[0]


def shown_lead(name):
    """lead() as a browser shows it: Markdown's emphasis marks gone, no space or line break around it
    ("**What this example shows:** {{ shows }}" → "What this example shows:")."""
    return re.sub(r"\*\*|__|[*_`]", "", lead(name)).strip()


def without_icon(text):
    """A label's words without the emoji it opens with ("⬇️ This matrix as CSV" → "This matrix as CSV"): Streamlit
    may draw that emoji as an icon apart from the label's text."""
    return re.sub(r"^[^\w“‘(\[]+", "", text)
