"""The one sidebar every page shares (drawn by app.py on every rerun), its head presets and token list."""

from __future__ import annotations

import dataclasses

import streamlit as st

from attention.model import ModelLoadError, models_dir
from ui.content import ENGLISH, LANGUAGE_KEY, LINKED_KEY, current_language, language_name, languages, words
from ui.labels import unique_labels
from ui.model import get_model
from ui.settings import (
    D_K_CHOICES,
    DEFAULT_HEAD,
    DEFAULT_LAYER,
    DEFAULT_SENTENCE,
    HEAD_PRESETS,
    MAX_SENTENCE_CHARS,
    MODES,
    Settings,
    clean_sentence,
    cut_typed_sentence,
    preset_help,
    preset_name,
)
from ui.text import layer_head_name, people_number
from ui.widgets.links import (
    follow_sentence_with_token,
    link_notices,
    link_number,
    link_token,
)


def sidebar_ui(token_list_in_page: bool = False) -> Settings:
    """The one sidebar every page shares; every value lives in the URL so a link reopens the view.

    token_list_in_page: the page draws the token list itself (draw_token_list, from its fragment)."""
    side = st.sidebar
    notices = link_notices()
    notice_box = side.container()  # filled at the end: the token's range is known only once tokenized
    side.header(words("sidebar.sentence_header"))
    cut_typed_sentence()
    sentence = side.text_area(words("sidebar.sentence_label"), value=DEFAULT_SENTENCE, key="sentence",
                              bind="query-params", max_chars=MAX_SENTENCE_CHARS, height=90,
                              help=words("sidebar.sentence_help"))
    side.header(words("sidebar.projection_header"))
    # Options are their own short names so a shared link reads ?mode=identity (no format_func: a bound widget
    # writes its shown label into the link, and a translated one would not open in another language); the caption
    # under each says it in the page's language.
    mode = side.radio(words("sidebar.projection_label"), list(MODES), key="mode", bind="query-params",
                      captions=[words(f"settings.mode_{mode}_caption") for mode in MODES],
                      help=words("sidebar.projection_help"))
    d_k, seed, layer, head = 32, 0, DEFAULT_LAYER, DEFAULT_HEAD
    if mode == "random":
        d_k = side.select_slider(words("sidebar.d_k_label"), D_K_CHOICES, value=32, key="dk",
                                 bind="query-params", help=words("sidebar.d_k_help"))
        seed = int(side.number_input(words("sidebar.seed_label"), 0, 9999, 0, key="seed", bind="query-params",
                                     help=words("sidebar.seed_help")))
    if mode in ("learned",):
        columns = side.columns(2)
        layer_head_from_link()
        # The values count from 0 as the code does, the boxes show them counted from 1 (layer 1 to 6).
        layer = columns[0].selectbox(words("sidebar.layer_label"), list(range(N_LAYERS)), key="layer",
                                     format_func=people_number, help=words("sidebar.layer_help", n_layers=N_LAYERS))
        head = columns[1].selectbox(words("sidebar.head_label"), list(range(N_HEADS)), key="head",
                                    format_func=people_number, help=words("sidebar.head_help", n_heads=N_HEADS))
        link_layer_head(int(layer), int(head))
        head_presets(side, int(layer), int(head))
    show_special = side.checkbox(words("sidebar.special_label"), value=False, key="special", bind="query-params",
                                 help=words("sidebar.special_help"))
    tokens = shown_tokens(sentence, show_special)
    token = 0
    state = st.session_state
    state.pop("_whole_page_rerun", None)  # a full run is what it asked for (ui/widgets/pickers.py _pick_layer_head)
    state["_token_slot"] = None
    if tokens:
        # The list is drawn from the start page's fragment or from here: Streamlit counts those as two widgets and
        # drops the value of the one not drawn, so the session keeps its own copy of the choice.
        if isinstance(state.get(TOKEN_KEPT), int):
            state["token"] = state[TOKEN_KEPT]
        follow_sentence_with_token(sentence, show_special, len(tokens), notices)
        token = state[TOKEN_KEPT] = state["token"]  # the list below shows this value, wherever it is drawn from
        # Its place in the sidebar; a page whose chips rerun only a fragment draws the list from that fragment,
        # so the list is redrawn with the chips (Streamlit 1.67: a fragment may write into the sidebar).
        state["_token_slot"] = side.container()
        state["_token_labels_for"] = (sentence, bool(show_special))
        state["_token_labels"] = unique_labels(tokens)  # "the", "the²": one label per token, as on chips and axes
        if not token_list_in_page:
            token = draw_token_list()
    for notice in notices:
        notice_box.warning(notice)
    side.header(words("sidebar.display_header"))
    teaching = side.toggle(words("sidebar.teaching_label"), key="teach", bind="query-params",
                           help=words("sidebar.teaching_help"))
    if teaching:
        side.toggle(words("sidebar.predict_label"), key="predict", bind="query-params",
                    help=words("sidebar.predict_help"))
    language_from_link()
    language = current_language()
    if switch_shown(language):
        language = side.selectbox(words("sidebar.language_label"), languages(), key=LANGUAGE_KEY,
                                  format_func=language_name)
    link_language(language)
    with side.expander(words("sidebar.model_box")):
        allowed = models_dir() is not None
        model_name = st.text_input(words("sidebar.model_label"), value="", key="model", disabled=not allowed,
                                   help=words("sidebar.model_help") if allowed else words("sidebar.model_help_off"))
    return Settings(sentence=clean_sentence(sentence), mode=mode, d_k=int(d_k), seed=seed, layer=int(layer),
                    head=int(head), show_special=show_special, token=int(token or 0), teaching=teaching,
                    model_name=model_name.strip())


N_LAYERS, N_HEADS = 6, 12
LAYER_HEAD_KEPT = "_layer_head_kept"  # the session's layer and head, whichever page or mode last showed them


def layer_head_from_link() -> None:
    """Before the Layer and Head boxes are drawn: on a session's first run the link's values, else the session's
    own copy (a box not drawn in a toy mode loses its value).

    The boxes are not bound to the URL by Streamlit: that writes the box's label, now counted from 1, and an old
    link's layer=3 would open the third layer instead of the fourth. The link carries the code's number, counted
    from 0 as it always did (link_layer_head writes it)."""
    state = st.session_state
    kept = state.get(LAYER_HEAD_KEPT)
    first_run = kept is None
    if first_run:
        kept = {key: state[key] if isinstance(state.get(key), int) else default
                for key, default in (("layer", DEFAULT_LAYER), ("head", DEFAULT_HEAD))}
        for key, below in (("layer", N_LAYERS), ("head", N_HEADS)):
            number = link_number(st.query_params.get(key), below)  # link_notices has dropped a refused value
            kept[key] = kept[key] if number is None else number
    for key in ("layer", "head"):
        if first_run or not isinstance(state.get(key), int):
            state[key] = kept[key]


def link_layer_head(layer: int, head: int) -> None:
    """The layer and head in the link as the code numbers them, from 0; absent at the default, like every other
    default."""
    st.session_state[LAYER_HEAD_KEPT] = {"layer": layer, "head": head}
    for key, value, default in (("layer", layer, DEFAULT_LAYER), ("head", head, DEFAULT_HEAD)):
        if value != default:
            if st.query_params.get(key) != str(value):
                st.query_params[key] = str(value)
        elif key in st.query_params:
            del st.query_params[key]


def language_from_link() -> None:
    """Before the language switch is made: the session's language as the link decides it (ui/content.py
    _language_of_run: a link naming another language than the session last saw in it wins, on a first run or a
    reload that kept the session), already settled by the run's first text.

    The switch is not bound to the URL by Streamlit: a bound box reads the link's value as one of its shown names
    ("Pseudo-language (…)"), so ?lang=pseudo matched none and the page fell back to English. The link carries the
    language's code (link_language writes it)."""
    current_language()


def switch_shown(language: str) -> bool:
    """The Language box only where there is a choice to make: a second language in content/, or a page already in
    another one (the pseudo-language, by its link) that must be able to come back. With English alone, a student
    would read a box offering English and a testers' pseudo-language."""
    return language != ENGLISH or len(languages()) > 2


def link_language(language: str) -> None:
    """The page's language in the link as its code; absent for English, like every other default."""
    linked = None if language == ENGLISH else language
    if st.session_state.get(LINKED_KEY, "") != linked:
        st.session_state[LINKED_KEY] = linked  # the next run's link is this one unless changed outside the page
    if linked is not None:
        if st.query_params.get(LANGUAGE_KEY) != language:
            st.query_params[LANGUAGE_KEY] = language
    elif LANGUAGE_KEY in st.query_params:
        del st.query_params[LANGUAGE_KEY]


TOKEN_KEPT = "_token_kept"  # the session's selected token, whichever widget last showed it


def draw_token_list() -> int:
    """The sidebar's token list in its place (made by sidebar_ui), and the selected token in the link. Called by
    sidebar_ui, or by a page's fragment that follows the token: a chip click then reruns only that fragment, and
    the list, redrawn by it, names the same token as the chips, titles and prose."""
    state = st.session_state
    slot, labels = state.get("_token_slot"), state.get("_token_labels")
    if slot is None or not labels or not _slot_is_current():
        return 0
    token = slot.selectbox(words("sidebar.token_label"), list(range(len(labels))),
                           format_func=lambda i: f"{i + 1}: {labels[i]}", key="token", on_change=token_chosen,
                           args=("token",), help=words("sidebar.token_help"))
    link_token(int(token or 0))
    return int(token or 0)


def _slot_is_current() -> bool:
    """Whether the sidebar's token slot and labels belong to the sentence on screen: made by this full run's
    sidebar, or by the last one for a fragment's rerun. A page that runs without the sidebar (a test's
    switch_page after a callback put a new sentence in) would otherwise draw the previous sentence's list and reset
    the token from it."""
    state = st.session_state
    return state.get("_token_labels_for") == (state.get("sentence"), bool(state.get("special", False)))


def token_chosen(widget_key: str) -> None:
    """on_change of the token list and the chips: one selected token for the session, the settings included (a
    fragment's rerun reads them without the sidebar's run)."""
    state = st.session_state
    picked = state.get(widget_key)
    if not isinstance(picked, int):
        return
    state["token"] = state[TOKEN_KEPT] = picked
    if isinstance(state.get("_settings"), Settings):
        state["_settings"] = dataclasses.replace(state["_settings"], token=picked)


def _use_head(layer: int, head: int) -> None:
    """on_click of a preset: set the Layer and Head widgets (a callback runs before they are made again)."""
    st.session_state["layer"] = layer
    st.session_state["head"] = head


def head_presets(side, layer: int, head: int) -> None:
    """Named heads one click away: next word, previous word, and two that do more than position (pronoun to noun,
    a word back to its earlier copy), each chosen by measurement (ui/settings.py HEAD_PRESETS)."""
    side.caption(words("sidebar.presets_caption"))
    for preset, (preset_layer, preset_head) in HEAD_PRESETS.items():
        current = (layer, head) == (preset_layer, preset_head)
        side.button(words("sidebar.preset_button", current=current, name=preset_name(preset),
                          head_name=layer_head_name(preset_layer, preset_head)),
                    key=f"preset-{preset_layer}-{preset_head}", on_click=_use_head, args=(preset_layer, preset_head),
                    disabled=current, use_container_width=True, help=preset_help(preset))


def shown_tokens(sentence: str, show_special: bool) -> list[str]:
    """The tokens the sidebar lists for a sentence (none when it is empty or the model cannot load)."""
    if not (sentence or "").strip():
        return []
    try:
        model = get_model(st.session_state.get("model") or None)
    except ModelLoadError:
        return []
    tokens = model.tokenize(clean_sentence(sentence))
    return [t for t in tokens if show_special or t not in model.special_tokens]
