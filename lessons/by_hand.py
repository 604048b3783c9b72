"""Attention by hand: four words, each with a key and a value of two numbers, and one query a student moves.

The same four steps as the real model (attention/core.py), on numbers small enough to draw: scores are dot
products, scaled scores are the scores divided by a number (√d_k = √2 here, or any "temperature" the student
picks), weights are their softmax, and the output is the weights' mix of the values. The browser component
(ui/widgets/by_hand_component.py) repeats this arithmetic in JavaScript; tests/test_by_hand.py holds the two equal.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

# The two numbers of a key mean animal-ness and place-ness here (content/en/by_hand.toml key_axis_…): chosen by
# hand so a student can read them. The model's own 32 numbers per key have no names; nobody chose them.
SENTENCE = "The dog and the cat played in the park."
QUERY_WORD = "played"
WORDS = ("dog", "cat", "park", "played")
KEYS = np.array([[2.0, 0.2], [1.6, 0.9], [0.2, 2.0], [0.3, 0.2]])
VALUES = np.array([[2.0, -1.0], [1.5, 1.5], [-1.5, 2.0], [-1.0, -1.5]])
D_K = KEYS.shape[1]
SQRT_D_K = math.sqrt(D_K)
DIVISOR_RANGE = (0.25, 4.0)  # the control's ends: below √2 softmax sharpens, above it flattens
PLANE_LIMIT = 3.0            # the query stays within ±3 on both axes
GRID = 0.05                  # a dragged query snaps to this grid, so the coordinates shown are exact


@dataclasses.dataclass(frozen=True)
class Preset:
    key: str       # which example: its name and what its query asks for are by_hand.toml's preset_/asks_<key>
    query: tuple[float, float]


PRESETS = (
    Preset("animal", (2.0, -0.3)),  # lots of animal-ness, no place-ness
    Preset("tie", (1.75, 1.0)),     # a mix that "dog" and "cat" match equally well
    Preset("far", (-1.5, -1.5)),    # the opposite of everything on offer
    Preset("near", (0.3, 2.0)),     # almost exactly what "park" offers
)


@dataclasses.dataclass(frozen=True)
class Numbers:
    scores: np.ndarray   # [n] query · key
    scaled: np.ndarray   # [n] scores / divisor
    weights: np.ndarray  # [n] softmax of the scaled scores, adding up to 1
    output: np.ndarray   # [2] weights · values


def attend(query, keys=KEYS, values=VALUES, divisor: float = SQRT_D_K) -> Numbers:
    keys, values = np.asarray(keys, dtype=np.float64), np.asarray(values, dtype=np.float64)
    scores = keys @ np.asarray(query, dtype=np.float64)
    scaled = scores / divisor
    exp = np.exp(scaled - scaled.max())  # minus the largest: the same weights, no overflow
    weights = exp / exp.sum()
    return Numbers(scores, scaled, weights, weights @ values)


def snap(x: float) -> float:
    """A query coordinate as the component keeps it: on the grid, within the plane."""
    return float(np.clip(round(x / GRID) * GRID, -PLANE_LIMIT, PLANE_LIMIT))


def shape_of(weights: np.ndarray) -> str:
    """What the weights look like, for the prose beside them: one word leads, two tie, or no word stands out.
    The component's JavaScript uses the same thresholds (ui/widgets/by_hand_component.py)."""
    order = np.argsort(weights)[::-1]
    top, second = weights[order[0]], weights[order[1]]
    if weights.max() - weights.min() < 0.15:
        return "even"
    if top - second < 0.05:
        return "tie"
    return "leads"


def component_data() -> dict:
    """Every number the browser draws from: the words, their keys and values, the presets (JSON-ready; the
    drawing's words are added by the ui, ui/widgets/by_hand_component.py)."""
    return {"words": list(WORDS), "keys": KEYS.tolist(), "values": VALUES.tolist(), "queryWord": QUERY_WORD,
            "sqrtDk": SQRT_D_K, "dk": D_K, "divisorRange": list(DIVISOR_RANGE), "limit": PLANE_LIMIT, "grid": GRID,
            "presets": [{"key": p.key, "query": list(p.query)} for p in PRESETS]}
