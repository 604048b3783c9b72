"""Entry point: the shared sidebar and the page list. Run with `streamlit run app.py`."""

import streamlit as st

import serving.startup  # noqa: F401  (first: heavy imports once per process, see its docstring)
from attention.model import resolve_model_name
from serving.shared import start_warmup
from ui import figures
from ui.content import words
from ui.widgets.menu import page_menu
from ui.model import preload_model
from ui.widgets.page_style import FORMULA_FONTS_HTML, apply_teaching_layout, scroll_focus_html
from ui.turns import run_in_turn
from ui.widgets.sidebar import sidebar_ui

# Teaching mode is a slide: the sidebar starts collapsed. The toggle is made later (sidebar_ui), so its value
# is read from the link or from this session's last run.
_teaching = st.session_state.get("teach", st.query_params.get("teach") == "true") is True
st.set_page_config(page_title=words("menu.tab_title"), page_icon="🔎", layout="wide",
                   initial_sidebar_state="collapsed" if _teaching else "auto")

# url paths of the pages that call ui.widgets.sidebar.draw_token_list from a fragment (the start page and the step pages)
TOKEN_FRAGMENT_PAGES = ("", "home", "step1_scores", "step2_scaling", "step3_softmax", "step4_output")
pages = {
    words("menu.section_start"): [
        st.Page("app_pages/home.py", title=words("menu.page_home"), icon="🏠", default=True),
    ],
    words("menu.section_steps"): [
        st.Page("app_pages/by_hand.py", title=words("menu.page_by_hand")),
        st.Page("app_pages/step1_scores.py", title=words("menu.page_step1_scores")),
        st.Page("app_pages/step2_scaling.py", title=words("menu.page_step2_scaling")),
        st.Page("app_pages/step3_softmax.py", title=words("menu.page_step3_softmax")),
        st.Page("app_pages/step4_output.py", title=words("menu.page_step4_output")),
        st.Page("app_pages/compare.py", title=words("menu.page_compare")),
    ],
    words("menu.section_further"): [
        st.Page("app_pages/pronoun.py", title=words("menu.page_pronoun")),
        st.Page("app_pages/meaning.py", title=words("menu.page_meaning")),
        st.Page("app_pages/multihead.py", title=words("menu.page_multihead")),
        st.Page("app_pages/whatif.py", title=words("menu.page_whatif")),
        st.Page("app_pages/training.py", title=words("menu.page_training")),
        st.Page("app_pages/quiz.py", title=words("menu.page_quiz")),
        st.Page("app_pages/glossary.py", title=words("menu.page_glossary"), icon="📚"),
    ],
}
# Load the model before any widget exists: a shared link's widget values then arrive after the slow
# first load, not in the middle of it (where Streamlit can lose the page and fall back to home).
model = preload_model()
navigation = st.navigation(pages, position="hidden")  # drawn by page_menu (see .streamlit/config.toml)
page_menu(pages)
# The start page and the step pages follow the selected token in a fragment that draws the sidebar's token list
# too (a chip click reruns only that fragment); every other page has the sidebar draw it.
st.session_state["_settings"] = sidebar_ui(token_list_in_page=navigation.url_path in TOKEN_FRAGMENT_PAGES)
apply_teaching_layout(st.session_state["_settings"].teaching)
# One element for the scripts: an "SVG" button beside each camera, the formulas' fonts fetched at idle, scrolling
# boxes a keyboard can reach, and a figure's cell values hidden where they do not fit (a phone).
st.sidebar.html(figures.SVG_EXPORT_HTML + FORMULA_FONTS_HTML + scroll_focus_html() + figures.FIT_CELL_TEXT_HTML,
                unsafe_allow_javascript=True)
try:
    # Each browser its share of the server, whatever its number of tabs; long texts one at a time (serving/queue.py)
    run_in_turn(navigation, st.session_state["_settings"].sentence, model)
finally:  # after the first page is drawn (even one that stops early), not competing with it
    if model is not None and model.name == resolve_model_name(None):  # the server's own model, not a visitor's
        start_warmup(model)  # once per process: what every visitor shares, computed in the background
