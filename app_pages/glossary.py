import streamlit as st

from ui.sections.glossary import TERMS, anchor
from ui.model import warn_if_cut
from ui.settings import FILTER_CHARS, settings
from ui.text import md
from ui.widgets.tour import slide_top, step_nav

settings()  # a cold link straight to this page still runs through app.py (its sidebar and navigation)
slide_top("app_pages/glossary.py")  # teaching mode: sentence, examples, Previous / Next
st.title("Glossary")
st.markdown("Every word the pages use that you may not know, in plain words. Links on the other pages open the "
            "entry here in a new tab. Type to filter:")
wanted = st.text_input("Find a word", key="glossary_filter", placeholder="for example: softmax",
                       label_visibility="collapsed", max_chars=FILTER_CHARS)
warn_if_cut(wanted, FILTER_CHARS)
wanted = wanted.strip().lower()
shown = [term for term, text in TERMS.items() if wanted in term.lower() or wanted in text.lower()]
if not shown:
    st.info(f"No entry mentions “{md(wanted)}”. Clear the box to see all {len(TERMS)} entries.")
for term in shown:
    st.header(term, anchor=anchor(term), divider="gray")
    st.markdown(TERMS[term])
step_nav("app_pages/glossary.py")  # its Next: back to the start
