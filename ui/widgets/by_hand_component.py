"""The by-hand attention drawing: one Streamlit custom component (v2: inline HTML/CSS/JS, no iframe, no build step).

Its JavaScript (by_hand_component.js) redraws and recomputes on every drag, key press, preset and divisor change
without sending anything back, so moving the query runs no script. It is read from files beside this module, not
fetched: the page loads nothing from outside."""

from __future__ import annotations

from pathlib import Path

from streamlit.components.v2 import component

from lessons import by_hand

_HERE = Path(__file__).resolve().parent
_DRAWING = component("attention_by_hand", css=(_HERE / "by_hand_component.css").read_text(),
                     js=(_HERE / "by_hand_component.js").read_text())


def attention_by_hand(teaching: bool, filename: str, key: str = "by-hand") -> None:
    """The words' keys and the query on one plane, the values and the output on another, the weights as bars."""
    _DRAWING(data=dict(by_hand.component_data(), teaching=teaching, filename=filename), key=key)
