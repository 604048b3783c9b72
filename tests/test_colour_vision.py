"""The figures' colours still work for colour-blind students: every palette simulated for protanopia,
deuteranopia and tritanopia (Machado et al. 2009, full severity, devtools/a11y.py) keeps its order and its
contrasts; text colours pass WCAG's 4.5:1 on white."""

import re

import numpy as np
import pytest
from plotly.colors import sample_colorscale

from devtools.a11y import contrast_ratio, delta_e, lab, parse_colour, simulate
from ui import figures
from ui.widgets import page_style

VISIONS = [None, "protanopia", "deuteranopia", "tritanopia"]
SEQUENTIAL = {"Blues (weights)": figures.WEIGHTS_SCALE, "Viridis_r (head distances)": figures.DISTANCE_SCALE}
DIVERGING = {"RdBu_r (scores, vectors)": figures.SIGNED_SCALE, "PiYG (head preferences)": figures.PREFERENCE_SCALE}
WHITE = np.ones(3)


def samples(scale, count: int = 11) -> np.ndarray:
    return np.array([parse_colour(c) for c in sample_colorscale(scale, list(np.linspace(0, 1, count)))])


def test_the_simulation_is_machados():
    # Pure red seen by a protanope is a dark olive; white and black are unchanged by every simulation.
    assert np.allclose(simulate(np.array([1.0, 1.0, 1.0]), "deuteranopia"), 1.0, atol=0.01)
    assert np.allclose(simulate(np.zeros(3), "protanopia"), 0.0)
    red = simulate(np.array([1.0, 0.0, 0.0]), "protanopia")[0]
    assert red[2] < 0.1 and red[1] > 0.3  # red loses its redness: green-ish and dark
    assert delta_e(simulate(parse_colour("#ff0000"), "deuteranopia"),
                   simulate(parse_colour("#00aa00"), "deuteranopia"))[0] < \
        delta_e(parse_colour("#ff0000"), parse_colour("#00aa00"))[0] / 2  # the red-green pair collapses


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("name", list(SEQUENTIAL))
def test_a_sequential_palette_keeps_its_order(name, vision):
    """Light to dark without a turn: 'more' reads as 'darker' for every student."""
    colours = simulate(samples(SEQUENTIAL[name]), vision)
    lightness = lab(colours)[:, 0]
    steps = np.diff(lightness)
    assert np.all(steps < 0) or np.all(steps > 0), (name, vision, lightness.round())
    assert delta_e(colours[:-1], colours[1:]).min() >= 5  # each tenth of the scale a visible step
    assert delta_e(colours[0], colours[-1])[0] >= 70


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("name", list(DIVERGING))
def test_a_diverging_palette_keeps_both_sides_apart(name, vision):
    """Both ends stand out from the pale middle (zero / no preference), and from each other."""
    colours = simulate(samples(DIVERGING[name]), vision)
    middle = colours[len(colours) // 2]
    assert delta_e(colours[0], middle)[0] >= 60 and delta_e(colours[-1], middle)[0] >= 60, (name, vision)
    assert delta_e(colours[0], colours[-1])[0] >= 30, (name, vision)
    lightness = lab(colours)[:, 0]
    half = len(colours) // 2
    assert np.all(np.diff(lightness[:half + 1]) > 0) and np.all(np.diff(lightness[half:]) < 0), lightness.round()


@pytest.mark.parametrize("vision", VISIONS)
def test_the_highlight_stands_out(vision):
    """The orange outline / bar against the blue weights, and step 1's red/blue score bars."""
    highlight = simulate(parse_colour(figures.HIGHLIGHT), vision)
    assert delta_e(highlight, simulate(samples(figures.WEIGHTS_SCALE, 21), vision)).min() >= 50
    assert delta_e(highlight, simulate(parse_colour("#3b82f6"), vision))[0] >= 50
    assert delta_e(simulate(parse_colour("#dc2626"), vision), simulate(parse_colour("#2563eb"), vision))[0] >= 50


def test_text_colours_are_readable():
    for colour in (figures.TICK_COLOUR, figures.SUBTITLE_COLOUR):
        assert contrast_ratio(parse_colour(colour), WHITE) >= 4.5, colour
    caption = re.search(r'stCaptionContainer"\] \{color: (#[0-9a-f]{6})', page_style.BASE_CSS).group(1)
    assert contrast_ratio(parse_colour(caption), WHITE) >= 4.5
