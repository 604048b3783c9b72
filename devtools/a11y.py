"""Accessibility checks in the browser: axe-core (the copy bundled in the axe-playwright-python package, so it
runs offline) over the app's own content, and a colour-blindness simulation of the figures' palettes."""

from __future__ import annotations

import numpy as np

# Streamlit's own page list in the sidebar is not the app's content (its markup is Streamlit's to fix).
EXCLUDED = ['[data-testid="stSidebarNav"]']
SERIOUS = ("serious", "critical")


def axe_script() -> str:
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


def axe_violations(page, impacts=SERIOUS) -> list[dict]:
    """axe-core's violations of the given impacts on the page as it stands, each as
    {id, impact, help, nodes: [target selectors]}."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_script())
    result = page.evaluate(
        "async (exclude) => await axe.run({exclude: exclude.map((s) => [s])}, {resultTypes: ['violations']})",
        EXCLUDED)
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [" ".join(map(str, node["target"])) + ": " + (node.get("failureSummary") or "")[:160]
                       for node in v["nodes"]]}
            for v in result["violations"] if v["impact"] in impacts]


def describe(violations: list[dict]) -> list[str]:
    return [f"{v['id']} ({v['impact']}, {v['help']}): {node}" for v in violations for node in v["nodes"]]


# Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color vision
# deficiency", severity 1.0: the full dichromacies, applied to linear RGB.
CVD_MATRICES = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}


def parse_colour(colour: str) -> np.ndarray:
    """'#rrggbb' or 'rgb(r, g, b)' → sRGB in 0..1."""
    colour = colour.strip()
    if colour.startswith("#"):
        return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    return np.array([float(c) for c in colour[colour.index("(") + 1:-1].split(",")[:3]]) / 255.0


def _linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def simulate(srgb: np.ndarray, deficiency: str | None) -> np.ndarray:
    """How colours (rows of sRGB 0..1) look with a colour-vision deficiency (None: as they are)."""
    srgb = np.atleast_2d(srgb)
    if deficiency is None:
        return srgb
    return _srgb(_linear(srgb) @ CVD_MATRICES[deficiency].T)


def lab(srgb: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of sRGB colours (rows, 0..1)."""
    xyz = _linear(np.atleast_2d(srgb)) @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                                                   [0.0193, 0.1192, 0.9505]]).T
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def delta_e(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CIE76 colour difference: about 2.3 is just noticeable, above 20 plainly different."""
    return np.linalg.norm(lab(a) - lab(b), axis=-1)


def contrast_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """WCAG contrast ratio of two sRGB colours."""
    la, lb = (float(_linear(np.asarray(c)) @ np.array([0.2126, 0.7152, 0.0722])) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
