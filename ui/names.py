"""How every page names a layer and a head: people count from 1, so the code's layer 0 is "layer 1".

The code, the widgets' values and a link's parameters count from 0 (a link with layer=3&head=1 opens the same head
it always did); everything a person reads goes through these functions and counts from 1: "layer 2, head 9" in the
page's language (content/en/names.toml), "L2 H9" where space is short, "L2H9" in a file name."""

from __future__ import annotations

from functools import lru_cache

from ui.content import current_language, words

DEFAULT_LAYERS = 6  # all-MiniLM-L6-v2; pages pass the loaded model's own count


def ordinal(n: int) -> str:
    """1 -> "first", 2 -> "second", …, 25 -> "25th", in the page's language."""
    return words("names.ordinal", number=int(n))


def people_number(index: int) -> str:
    """The number a person reads for the code's index: 0 -> "1". The widgets' format_func."""
    return str(int(index) + 1)


def _capital(text: str, capital: bool) -> str:
    """The name at a sentence's start (the pseudo-language's ⟦ mark stays first)."""
    if not capital:
        return text
    start = 1 if text.startswith("⟦") else 0
    return text[:start] + text[start:start + 1].upper() + text[start + 1:]


def layer_name(layer: int, n_layers: int | None = None, capital: bool = False, total: bool = False) -> str:
    """ "layer 2" for the code's layer 1; "layer 2 of 6" with `total`, where a reader needs to know how many."""
    return _layer_name(current_language(), int(layer), n_layers, capital, total)


def head_name(head: int, capital: bool = False) -> str:
    """ "head 9" for the code's head 8."""
    return _head_name(current_language(), int(head), capital)


def layer_head_name(layer: int, head: int, n_layers: int | None = None, capital: bool = False,
                    total: bool = False) -> str:
    """ "layer 2, head 9" for the code's layer 1, head 8."""
    return _layer_head_name(current_language(), int(layer), int(head), n_layers, capital, total)


# A page names its 72 heads several times (titles, hover texts, text alternatives): each name is made once.
@lru_cache(maxsize=2048)
def _layer_name(language: str, layer: int, n_layers: int | None, capital: bool, total: bool) -> str:
    if total:
        return _capital(words("names.layer_of", language=language, number=people_number(layer),
                              total=n_layers or DEFAULT_LAYERS), capital)
    return _capital(words("names.layer", language=language, number=people_number(layer)), capital)


@lru_cache(maxsize=1024)
def _head_name(language: str, head: int, capital: bool) -> str:
    return _capital(words("names.head", language=language, number=people_number(head)), capital)


@lru_cache(maxsize=4096)
def _layer_head_name(language: str, layer: int, head: int, n_layers: int | None, capital: bool, total: bool) -> str:
    return words("names.layer_head", language=language, layer=_layer_name(language, layer, n_layers, capital, total),
                 head=_head_name(language, head, False))


def layer_tag(layer: int) -> str:
    """ "L2": a figure's axis or a list where "layer 2" does not fit."""
    return f"L{people_number(layer)}"


def head_tag(head: int) -> str:
    """ "H9": a figure's axis or a list where "head 9" does not fit."""
    return f"H{people_number(head)}"


def layer_head_tag(layer: int, head: int, sep: str = " ") -> str:
    """ "L2 H9"; with sep="" the file names' "L2H9"."""
    return f"{layer_tag(layer)}{sep}{head_tag(head)}"
