"""Every sentence a person reads, kept in text files per language (content/<language>/), filled in by the code.

A text file is either one text (`content/en/model_card.md`, named "model_card") or a page's many texts
(`content/en/step3.toml`, whose key `intro` is named "step3.intro"): TOML literal strings ('''…''') holding
Markdown with Jinja2 placeholders ({{ token }}) and the few branches a story needs ({% if … %}). The code formats
every number (so the sentence's number is the figure's) and escapes everything a visitor typed (ui/text.md)
before passing it in; a template only places them.

Jinja2 because it is the template language Streamlit already installs (through altair) and the one Python's
documentation tools use: named placeholders, branches and loops, a strict mode in which a misspelled placeholder is
an error, and a parser that lists a template's placeholders, so a test can check every call against its template
(tests/test_content.py). Plurals are branches ({% if n == 1 %}); Babel/gettext would add a dependency for the
two-form English plural only.

Languages: every folder under content/ (English is complete; a missing text in another language falls back to
English) and "pseudo", the standard pseudo-localisation check: the English text with every letter of the template's
own words accented and each line wrapped in ⟦…⟧, while the filled-in values (numbers, tokens, the typed sentence)
stay as they are. A page in pseudo that shows three English words in a row outside the markers has a sentence left
in code (tests/test_pseudo_language.py).
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

import jinja2
import jinja2.meta

CONTENT = Path(__file__).resolve().parent.parent / "content"
ENGLISH = "en"
PSEUDO = "pseudo"
LANGUAGE_KEY = "lang"  # the setting's session-state key and link parameter

# Around every filled-in value while a pseudo text is made: the accenting skips what is inside, then they go.
_VALUE_START, _VALUE_END = "\ue000", "\ue001"
_ENVIRONMENT = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False,
                                  trim_blocks=True, lstrip_blocks=True)
_PSEUDO_ENVIRONMENT = _ENVIRONMENT.overlay(finalize=lambda value: f"{_VALUE_START}{value}{_VALUE_END}")


class ContentError(KeyError):
    """A text the code asks for is not in the English files (a misspelled name)."""


def languages() -> list[str]:
    """The languages a visitor may choose: each folder of content/, English first, then the pseudo-language (read
    once per process: a new language folder shows after a restart)."""
    return list(_languages())


@lru_cache(maxsize=1)
def _languages() -> tuple[str, ...]:
    folders = sorted(p.name for p in CONTENT.iterdir() if p.is_dir() and p.name != ENGLISH)
    return (ENGLISH, *folders, PSEUDO)


@lru_cache(maxsize=16)  # drawn by the switch on every run; the texts are read once per process
def language_name(language: str) -> str:
    """A language's name as its own speakers write it (content/<language>/language.toml), for the switch."""
    # the same in every language (a switch names each language in its own words), so a rerun matches it again
    return words("language.pseudo_name", language=PSEUDO) if language == PSEUDO else source("language.name", language)


def current_language() -> str:
    """The running page's language (the `lang` setting), or English outside a Streamlit run (tests, scripts)."""
    context = (_get_run_context or _run_context_getter())(suppress_warning=True)
    if context is None:
        return ENGLISH
    # A page asks hundreds of times per run; the session's choice cannot change within a run (the switch reruns the
    # page), so it is read once per run: ctx.cursors is a new dict at each run's start (Streamlit 1.67, pinned).
    run = context.cursors
    remembered = getattr(context, "_attention_explainer_language", None)
    if remembered is not None and remembered[0] is run:
        return remembered[1]
    language = _language_of_run()
    context._attention_explainer_language = (run, language)  # the switch's value holds for the rest of the run
    return language


LINKED_KEY = "_lang_in_link"  # the language the session last saw named in its link (None: the link names none)


def _language_of_run() -> str:
    """The session's language (the switch), unless the link names another one than the session last saw in it: a
    session's first run, or a reload that kept the session after ?lang= was changed by hand. The link wins then.
    A link without `lang` changes nothing (a page link may leave it out; the switch writes it back each run,
    ui/widgets/sidebar.py link_language). Decided before the switch is drawn, which shows the result."""
    import streamlit as st  # ui/ may use Streamlit; imported late for bare use

    state, known = st.session_state, _languages()
    linked = st.query_params.get(LANGUAGE_KEY)
    chosen = state.get(LANGUAGE_KEY)
    if linked in known and linked != state.get(LINKED_KEY):
        chosen = state[LANGUAGE_KEY] = linked
        state[LINKED_KEY] = linked
    elif chosen not in known:
        chosen = state[LANGUAGE_KEY] = ENGLISH
    return chosen


_get_run_context = None  # Streamlit's get_script_run_ctx, imported at the first ask, not per call


def _run_context_getter():
    global _get_run_context
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    _get_run_context = get_script_run_ctx
    return get_script_run_ctx


@lru_cache(maxsize=256)  # every file of a few languages (content/en has 50): each read once
def _file_texts(language: str, file_name: str) -> dict[str, str]:
    """One text file's texts by key ({} when the language has no such file)."""
    folder = CONTENT / language
    if (folder / f"{file_name}.toml").is_file():
        with open(folder / f"{file_name}.toml", "rb") as handle:
            return {key: text.strip("\n") for key, text in tomllib.load(handle).items()}
    if (folder / f"{file_name}.md").is_file():
        return {"": (folder / f"{file_name}.md").read_text(encoding="utf-8").rstrip("\n")}
    return {}


def source(name: str, language: str = ENGLISH) -> str:
    """The template text of `name` ("step3.intro", or "model_card" for a whole file), in `language` or English."""
    file_name, _, key = name.partition(".")
    for folder in (language, ENGLISH) if language not in (ENGLISH, PSEUDO) else (ENGLISH,):
        texts = _file_texts(folder, file_name)
        if key in texts:
            return texts[key]
    raise ContentError(f"no text named {name!r} in content/{ENGLISH}/")


@lru_cache(maxsize=4096)
def _template(name: str, language: str) -> jinja2.Template:
    environment = _PSEUDO_ENVIRONMENT if language == PSEUDO else _ENVIRONMENT
    return environment.from_string(source(name, language))


@lru_cache(maxsize=4096)
def placeholders(name: str, language: str = ENGLISH) -> frozenset[str]:
    """The names a text's template fills in (its placeholders and the values its branches test)."""
    return frozenset(jinja2.meta.find_undeclared_variables(_ENVIRONMENT.parse(source(name, language))))


def words(name: str, /, language: str | None = None, **values) -> str:
    """The text `name` in the page's language, its placeholders filled with `values` (already formatted).

    A value missing for a placeholder raises jinja2.UndefinedError; tests render every text (tests/test_content.py)."""
    language = language or current_language()
    pieces = None if language == PSEUDO else _plain_pieces(name, language)
    if pieces is None:  # branches, expressions or the pseudo-language: rendered once per (text, language, values)
        if (all(type(value) in _SIMPLE for value in values.values())  # with its type: True == 1 == 1.0 as keys
                and sum(len(value) for value in values.values() if type(value) is str) <= _CACHED_VALUE_CHARS):
            return _rendered(name, language, *((key, value, type(value)) for key, value in values.items()))
        return _render(name, language, values)
    # Most texts only place values ("{{ token }}"): filled in directly, ~20× faster than a Jinja2 render and the
    # same text (a page such as the multi-head one fills hundreds per run).
    try:
        return "".join(piece if i % 2 == 0 else str(values[piece]) for i, piece in enumerate(pieces))
    except KeyError as missing:
        raise jinja2.UndefinedError(f"{missing.args[0]!r} is undefined in {name!r}") from None


# A rendered text by its (name, language, values), for the renders that cost (Jinja2's ~20 µs, the pseudo-language's
# accenting): a page's reruns and the class's other sessions ask for the same ones. Only values whose text cannot
# change behind the key (str, numbers) make a key.
_SIMPLE = frozenset({str, int, float, bool, type(None)})
# A long typed text is rendered each time, not kept: the cache stays a few MB (2,048 texts of a few kB) however long
# the sentences a class types.
_CACHED_VALUE_CHARS = 400


@lru_cache(maxsize=2048)  # ~15 per page view
def _rendered(name: str, language: str, *values: tuple[str, object, type]) -> str:
    return _render(name, language, {key: value for key, value, _ in values})


def _render(name: str, language: str, values: dict) -> str:
    if language == PSEUDO:
        return pseudo(_template(name, language).render(**values))
    return _template(name, language).render(**values)


_PLACE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")


@lru_cache(maxsize=4096)
def _plain_pieces(name: str, language: str) -> tuple[str, ...] | None:
    """A text as [words, name, words, name, …] when it only places values; None when it has branches or expressions."""
    text = source(name, language)
    pieces = tuple(_PLACE.split(text))
    if any(mark in piece for piece in pieces[0::2] for mark in ("{{", "{%", "{#")):
        return None
    return pieces


# --- the pseudo-language -------------------------------------------------------------------------------------------
_ACCENTED = str.maketrans("aeiouyAEIOUYcnszCNSZ", "áéíóúýÁÉÍÓÚÝçñšžÇÑŠŽ")
# Spans whose letters are not the template's words: filled-in values, inline math, code, HTML tags and entities,
# a link's address, Streamlit's :material/…: icons, the model's [CLS] and [SEP], plotly's %{y:.2f}.
_KEEP = re.compile(rf"{_VALUE_START}.*?{_VALUE_END}|\$[^$\n]+\$|`[^`\n]*`|<[^>\n]*>|&\w+;|\]\([^)\n]*\)"
                   r"|:material/\w+:|:[a-z]+\[|\\[A-Za-z]+|\[[A-Z]+\]|%\{[^}\n]*\}", re.S)
# A line's Markdown prefix (heading, list item, quote) stays before the opening marker, or the line stops being one.
_LINE_PREFIX = re.compile(r"^(\s*(?:#{1,6} |[-*+] |\d+\. |> )*)")
MARK_OPEN, MARK_CLOSE = "⟦", "⟧"


def _accent(text: str) -> str:
    kept, last, parts = _KEEP.finditer(text), 0, []
    for span in kept:
        parts.append(text[last:span.start()].translate(_ACCENTED))
        parts.append(span.group())
        last = span.end()
    parts.append(text[last:].translate(_ACCENTED))
    return "".join(parts)


def pseudo(text: str) -> str:
    """The pseudo-language's form of a rendered English text: words accented, each line in ⟦…⟧, values untouched."""
    lines = []
    for line in _accent(text).split("\n"):
        prefix = _LINE_PREFIX.match(line).group(1)
        body = line[len(prefix):]
        trailing = body[len(body.rstrip()):]
        lines.append(f"{prefix}{MARK_OPEN}{body.rstrip()}{MARK_CLOSE}{trailing}" if body.strip() else line)
    return "\n".join(lines).replace(_VALUE_START, "").replace(_VALUE_END, "")


def english_runs(shown: str, data: tuple[str, ...] = (), run: int = 3) -> list[str]:
    """Runs of `run` or more English words outside the pseudo-language's markers, once `data` (the typed sentence,
    token names) is taken out: each is a sentence left in code. A word is letters without accents, not all capitals
    (CLS, PCA and W_Q are names, not English)."""
    outside, innermost = shown, re.compile(rf"{MARK_OPEN}[^{MARK_OPEN}{MARK_CLOSE}]*{MARK_CLOSE}")
    while innermost.search(outside):  # a text filled into another is marked inside its marks: ⟦Open ⟦layer 2⟧ …⟧
        outside = innermost.sub(" | ", outside)
    for datum in sorted(data, key=len, reverse=True):
        if datum.strip():  # as a whole word: a token "i" must not split "this" into "th s"
            outside = re.sub(rf"(?<![A-Za-z]){re.escape(datum)}(?![A-Za-z])", " | ", outside, flags=re.I)
    word = r"[A-Za-z][a-z]+(?:'[a-z]+)?"
    return [m.group() for m in re.finditer(rf"{word}(?:[ ,;:]+{word}){{{run - 1},}}", outside)]
