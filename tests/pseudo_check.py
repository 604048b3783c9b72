"""What a page shows a person, read from AppTest's element tree, and the data that may stay English in the
pseudo-language (the typed sentence, its tokens, the built-in sentences the model reads)."""

from __future__ import annotations

import json
from pathlib import Path

from lessons.by_hand import SENTENCE as BY_HAND_SENTENCE
from lessons.meaning import BUILT_IN
from ui.settings import DEFAULT_SENTENCE, EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
# A figure's words a person reads: titles, axis titles, tick labels, annotations, legend names, hover texts.
# Proto fields that are not read as words: ids, keys, styles, a box's typed value, addresses.
SKIPPED_FIELDS = {"id", "form_id", "key", "type", "css_class", "icon", "default", "value", "initial_value", "url",
                  "page", "page_script_hash", "spec", "theme", "format", "element_hash", "data",
                  # a custom component's code (its words come in its "json" data, which is read)
                  "js_content", "css_content", "html_content", "js_source_path", "css_source_path", "component_name"}
PLOTLY_TEXT_KEYS = {"text", "hovertemplate", "texttemplate", "name", "ticktext", "customdata", "hovertext", "title"}


def _strings(value, keys=None):
    """Every string under `value` (a figure spec), only under `keys` when given."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, keys)
    elif isinstance(value, dict):
        for key, item in value.items():
            if keys is None or key in keys:
                yield from _strings(item, None if key in ("text", "ticktext", "customdata", "title", "name",
                                                          "hovertext") else keys)
            elif isinstance(item, (dict, list)):
                yield from _strings(item, keys)


def shown_texts(at) -> list[str]:
    """The texts of every element AppTest can read on the page and sidebar: prose, labels, help, options, figure
    words, table headers and cells."""
    texts: list[str] = []

    def visit(node):
        proto = getattr(node, "proto", None)
        kind = getattr(node, "type", "")
        if kind == "plotly_chart" and proto is not None:
            texts.extend(_strings(json.loads(proto.spec), PLOTLY_TEXT_KEYS))
        elif kind in ("arrow_data_frame", "dataframe", "table"):
            try:
                frame = node.value
                texts.extend(str(column) for column in frame.columns)
                texts.extend(str(cell) for cell in frame.to_numpy().ravel() if isinstance(cell, str))
            except Exception:  # a table AppTest cannot decode is read in the browser test
                pass
        elif proto is not None and kind not in ("html", "latex", "code", "json"):
            for field, value in proto.ListFields():
                if field.name in SKIPPED_FIELDS:
                    continue
                if isinstance(value, str):
                    texts.append(value)
                elif field.type == field.TYPE_STRING:  # repeated strings: options, captions
                    texts.extend(value)
        for child in getattr(node, "children", {}).values():
            visit(child)

    visit(at._tree)
    return [text for text in texts if not text.lstrip().startswith(("<style", "<script"))]


def data_strings(sentence: str, tokens: list[str]) -> tuple[str, ...]:
    """What may stay as it is in every language: sentences the model reads and the typed sentence's tokens."""
    sentences = {sentence, DEFAULT_SENTENCE}
    for example in EXAMPLES:
        sentences.update(filter(None, (example.sentence, example.partner)))
    for word_set in BUILT_IN.values():
        sentences.update(word_set.meaning_a + word_set.meaning_b)
    role_sets = json.loads((ROOT / "lessons" / "data" / "role_heads.json").read_text(encoding="utf-8"))
    sentences.update(text for text in _strings(role_sets) if " " in text)
    # The pronoun and compare pages' own sentences, which a figure's title shortens ("…I sat on the river bank and
    # wat…"): each prefix of one is data too.
    from serving.shared import BUILTIN_SENTENCES
    sentences.update(text[:end] for text in BUILTIN_SENTENCES for end in range(12, len(text) + 1))
    # The by-hand page's own sentence, whole and as a figure title shortens it ("The dog and the cat played in t…")
    sentences.add(BY_HAND_SENTENCE)
    sentences.update(BY_HAND_SENTENCE[:end] + "…" for end in range(12, len(BY_HAND_SENTENCE)))
    return tuple(sentences) + tuple(tokens)
