"""How every page names a layer and a head: people count from 1, so the code's layer 0 is "layer 1".

The code, the widgets' values and a link's parameters count from 0 (a link with layer=3&head=1 opens the same head
it always did); everything a person reads goes through these functions and counts from 1: "layer 2, head 9",
"L2 H9" where space is short, "L2H9" in a file name."""

from __future__ import annotations

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
            "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third",
            "twenty-fourth")
DEFAULT_LAYERS = 6  # all-MiniLM-L6-v2; pages pass the loaded model's own count


def ordinal(n: int) -> str:
    """1 -> "first", 2 -> "second", …; past the list, "25th"."""
    if 1 <= n <= len(ORDINALS):
        return ORDINALS[n - 1]
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def people_number(index: int) -> str:
    """The number a person reads for the code's index: 0 -> "1". The widgets' format_func."""
    return str(int(index) + 1)


def _capital(text: str, capital: bool) -> str:
    return text[0].upper() + text[1:] if capital else text


def layer_name(layer: int, n_layers: int | None = None, capital: bool = False, total: bool = False) -> str:
    """ "layer 2" for the code's layer 1; "layer 2 of 6" with `total`, where a reader needs to know how many."""
    of = f" of {n_layers or DEFAULT_LAYERS}" if total else ""
    return _capital(f"layer {people_number(layer)}{of}", capital)


def head_name(head: int, capital: bool = False) -> str:
    """ "head 9" for the code's head 8."""
    return _capital(f"head {people_number(head)}", capital)


def layer_head_name(layer: int, head: int, n_layers: int | None = None, capital: bool = False,
                    total: bool = False) -> str:
    """ "layer 2, head 9" for the code's layer 1, head 8."""
    return f"{layer_name(layer, n_layers, capital, total)}, {head_name(head)}"


def layer_tag(layer: int) -> str:
    """ "L2": a figure's axis or a list where "layer 2" does not fit."""
    return f"L{people_number(layer)}"


def head_tag(head: int) -> str:
    """ "H9": a figure's axis or a list where "head 9" does not fit."""
    return f"H{people_number(head)}"


def layer_head_tag(layer: int, head: int, sep: str = " ") -> str:
    """ "L2 H9"; with sep="" the file names' "L2H9"."""
    return f"{layer_tag(layer)}{sep}{head_tag(head)}"
