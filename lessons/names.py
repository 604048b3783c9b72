"""How every page names a layer: one convention, so "layer 1" never reads as the first layer.

Layers are numbered from 0, as the model's code and the sidebar number them; the name says which one that is in
plain counting: "layer 1 (the second of 6)"."""

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


def layer_name(layer: int, n_layers: int | None = None, capital: bool = False) -> str:
    """ "layer 1 (the second of 6)": the number the sidebar shows (counted from 0) and its place in plain counting."""
    n_layers = n_layers or DEFAULT_LAYERS
    text = f"layer {int(layer)} (the {ordinal(int(layer) + 1)} of {n_layers})"
    return text[0].upper() + text[1:] if capital else text


def layer_head_name(layer: int, head: int, n_layers: int | None = None, capital: bool = False) -> str:
    """ "layer 1 (the second of 6), head 8": heads are numbered from 0 too, as the sidebar shows them."""
    return f"{layer_name(layer, n_layers, capital)}, head {int(head)}"
