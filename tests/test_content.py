"""Issue 52: the words live in content/<language>/, and a wrong name or placeholder fails here, not on a page.

Every call `words("file.key", name=value, …)` in the code is read (ast): its text must exist in English, and the
names it passes must be exactly the placeholders its template uses (a misspelled one on either side fails). Every
template compiles; every other language's text has an English twin with the same placeholders; every English text
is asked for by some code.
"""

import ast
import re
from pathlib import Path

import jinja2
import pytest

from ui.content import (CONTENT, ENGLISH, PSEUDO, ContentError, english_runs, placeholders, pseudo, source,
                        words, _file_texts)

ROOT = Path(__file__).resolve().parent.parent
CODE = [p for folder in ("app_pages", "ui", "serving", "lessons") for p in sorted((ROOT / folder).rglob("*.py"))]
CODE.append(ROOT / "app.py")


def english_names() -> list[str]:
    names = []
    for path in sorted((CONTENT / ENGLISH).iterdir()):
        if path.suffix == ".md":
            names.append(path.stem)
        elif path.suffix == ".toml":
            names.extend(f"{path.stem}.{key}" for key in _file_texts(ENGLISH, path.stem))
    return names


def calls():
    """(file, line, name or None when computed, passed names, whether **values are passed too) of each words()."""
    for path in CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "words":
                first = node.args[0] if node.args else None
                name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
                passed = {k.arg for k in node.keywords if k.arg and k.arg != "language"}
                yield path.relative_to(ROOT), node.lineno, name, passed, any(k.arg is None for k in node.keywords)


def test_every_text_file_parses_and_uses_literal_strings():
    for path in sorted(CONTENT.glob("*/*.toml")):
        # '''…''' keeps a backslash as typed (LaTeX's \\sqrt); "…" would read \\f as a form feed without a word
        assert '"""' not in path.read_text(encoding="utf-8"), path
    for name in english_names():
        jinja2.Environment().parse(source(name))


def test_every_call_names_a_text_and_fills_exactly_its_placeholders():
    problems = []
    for path, line, name, passed, spread in calls():
        if name is None:
            continue
        try:
            wanted = placeholders(name)
        except ContentError:
            problems.append(f"{path}:{line}: no text {name!r}")
            continue
        if (passed != wanted) if not spread else not passed <= wanted:
            problems.append(f"{path}:{line}: {name} uses {sorted(wanted)}, the code passes {sorted(passed)}")
    assert not problems, "\n".join(problems)


def test_a_missing_or_misspelled_placeholder_is_an_error_not_an_empty_space():
    with pytest.raises(jinja2.UndefinedError):
        words("model_card", d_model=384)
    with pytest.raises(ContentError):
        words("no_such_file.no_such_text")


def test_every_english_text_is_asked_for_by_the_code():
    asked = {name for *_, name, _, _ in calls() if name}
    code = "\n".join(path.read_text(encoding="utf-8") for path in CODE)
    # a name built in code ("whys." + key) counts when its file's name is written as a prefix
    unused = [name for name in english_names() if name not in asked
              and not re.search(rf"[\"']{re.escape(name.partition('.')[0])}\.", code)]
    assert not unused, unused


def test_other_languages_have_the_same_texts_and_placeholders():
    for folder in sorted(p for p in CONTENT.iterdir() if p.is_dir() and p.name != ENGLISH):
        for path in folder.iterdir():
            texts = _file_texts(folder.name, path.stem) if path.suffix in (".toml", ".md") else {}
            for key in texts:
                name = f"{path.stem}.{key}" if key else path.stem
                assert placeholders(name, folder.name) == placeholders(name), (folder.name, name)


def test_the_pseudo_language_marks_the_words_and_keeps_the_values():
    shown = words("model_card", language=PSEUDO, d_model=384, n_layers=6, n_heads=12, max_tokens=256)
    assert "384" in shown and "⟦" in shown and not english_runs(shown)
    # Markdown stays Markdown: a list item keeps its dash, inline math and links their insides
    assert pseudo("- **Right:** the $\\sqrt{d_k}$ [page](./?a=b)") == "- ⟦**Ríght:** thé $\\sqrt{d_k}$ [págé](./?a=b)⟧"


def test_the_fast_fill_gives_the_same_text_as_jinja2():
    """words() fills a text that only places values without Jinja2 (ui/content.py _plain_pieces): every such English
    text, filled with a value per placeholder, equals Jinja2's own render of it."""
    from ui.content import _plain_pieces, _template

    checked = 0
    for name in english_names():
        if _plain_pieces(name, ENGLISH) is None:
            continue
        values = {placeholder: f"<{placeholder}>" for placeholder in placeholders(name)}
        assert words(name, language=ENGLISH, **values) == _template(name, ENGLISH).render(**values), name
        checked += 1
    assert checked > 500
