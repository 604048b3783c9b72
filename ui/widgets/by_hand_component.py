"""The by-hand attention drawing: one Streamlit custom component (v2: inline HTML/CSS/JS, no iframe, no build step).

Its JavaScript (by_hand_component.js) redraws and recomputes on every drag, key press, preset and divisor change
without sending anything back, so moving the query runs no script. It is read from files beside this module, not
fetched: the page loads nothing from outside. Its words come with its data, in the page's language
(content/<language>/by_hand.toml js_…): a {name} in a text is filled in by the drawing as the query moves."""

from __future__ import annotations

from pathlib import Path

from streamlit.components.v2 import component

from lessons import by_hand

from ui.content import current_language, words

_HERE = Path(__file__).resolve().parent
_DRAWING = component("attention_by_hand", css=(_HERE / "by_hand_component.css").read_text(),
                     js=(_HERE / "by_hand_component.js").read_text())
# What the drawing fills in while the query moves: a template gets "{x}" as the value, so every language's text
# keeps it where its sentence wants it (the pseudo-language leaves values as they are).
_LIVE = {name: f"{{{name}}}" for name in ("x", "y", "a", "b", "share_a", "share_b", "list", "ox", "oy", "qx", "qy",
                                          "kx", "ky", "score")}


def drawing_text(language: str) -> dict:
    """Every word the drawing shows, in `language`: fixed texts rendered, live ones with their {name} slots."""
    def say(name: str, **values) -> str:
        return words(f"by_hand.{name}", language=language, **values)

    axes = [say("key_axis_1"), say("key_axis_2")]
    return {
        "keyAxes": axes, "valueAxes": [say("value_axis_1"), say("value_axis_2")],
        "presets": [{"name": say(f"preset_{p.key}"),
                     "title": words("by_hand.js_preset_title", language=language, asks=say(f"asks_{p.key}"))}
                    for p in by_hand.PRESETS],
        "examplesLabel": say("js_examples_label"), "startFrom": say("js_start_from"), "divideBy": say("js_divide_by"),
        "reset": words("by_hand.js_reset", language=language, dk=by_hand.D_K, sqrt_dk=f"{by_hand.SQRT_D_K:.2f}"),
        "hint": say("js_hint"),
        "svgTitle": words("by_hand.js_svg_title", language=language, query_word=by_hand.QUERY_WORD,
                          n_keys=len(by_hand.WORDS)),
        "tableSummary": say("js_table_summary"), "tableWord": say("js_table_word"),
        "tableScore": say("js_table_score"), "tableScaled": say("js_table_scaled"),
        "tableWeight": say("js_table_weight"), "downloadSvg": say("js_download_svg"),
        "downloadPng": say("js_download_png"),
        "keysTitle": words("by_hand.js_keys_title", language=language, query_word=by_hand.QUERY_WORD),
        "valuesTitle": say("js_values_title"), "handleRole": say("js_handle_role"),
        "handleLabel": words("by_hand.js_handle_label", language=language, query_word=by_hand.QUERY_WORD,
                             first_axis=axes[0], second_axis=axes[1], x=_LIVE["x"], y=_LIVE["y"]),
        "queryArrow": words("by_hand.js_query_arrow", language=language, x=_LIVE["x"], y=_LIVE["y"]),
        "outputArrow": words("by_hand.js_output_arrow", language=language, x=_LIVE["x"], y=_LIVE["y"]),
        "barsTitle": say("js_bars_title"), "barsScore": say("js_bars_score"), "barsWeight": say("js_bars_weight"),
        "barsTotal": say("js_bars_total"), "barsRule": say("js_bars_rule"),
        "barsRuleNumbers": words("by_hand.js_bars_rule_numbers", language=language, a=_LIVE["a"], qx=_LIVE["qx"],
                                 qy=_LIVE["qy"], kx=_LIVE["kx"], ky=_LIVE["ky"], score=_LIVE["score"]),
        "storyEven": say("js_story_even"),
        "storyTie": words("by_hand.js_story_tie", language=language, a=_LIVE["a"], b=_LIVE["b"],
                          share_a=_LIVE["share_a"], share_b=_LIVE["share_b"]),
        "storyLeads": words("by_hand.js_story_leads", language=language, a=_LIVE["a"], share_a=_LIVE["share_a"]),
        "storyNegative": say("js_story_negative"),
        "storyNumbers": words("by_hand.js_story_numbers", language=language, x=_LIVE["x"], y=_LIVE["y"],
                              list=_LIVE["list"], ox=_LIVE["ox"], oy=_LIVE["oy"]),
        "outputLine": words("by_hand.js_output_line", language=language, x=_LIVE["x"], y=_LIVE["y"]),
    }


def attention_by_hand(teaching: bool, filename: str, key: str = "by-hand") -> None:
    """The words' keys and the query on one plane, the values and the output on another, the weights as bars."""
    data = by_hand.component_data()
    text = drawing_text(current_language())
    presets = [dict(preset, **said) for preset, said in zip(data["presets"], text.pop("presets"))]
    _DRAWING(data=dict(data, presets=presets, text=text, teaching=teaching, filename=filename), key=key)
