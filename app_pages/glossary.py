import streamlit as st

from ui.content import words
from ui.model import warn_if_cut
from ui.sections.glossary import TERMS, anchor, entry
from ui.settings import FILTER_CHARS, settings
from ui.text import md
from ui.widgets.tour import slide_top, step_nav

settings()  # a cold link straight to this page still runs through app.py (its sidebar and navigation)
slide_top("app_pages/glossary.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("glossary.title"))
st.markdown(words("glossary.intro"))
wanted = st.text_input(words("glossary.filter_label"), key="glossary_filter",
                       placeholder=words("glossary.filter_placeholder"), label_visibility="collapsed",
                       max_chars=FILTER_CHARS)
warn_if_cut(wanted, FILTER_CHARS)
wanted = wanted.strip().lower()
# the box filters on the words the visitor reads: the entries in the page's language
entries = {term: entry(term) for term in TERMS}
shown = [term for term, (name, text) in entries.items() if wanted in name.lower() or wanted in text.lower()]
if not shown:
    st.info(words("glossary.no_match", wanted=md(wanted), total=len(TERMS)))
for term in shown:
    name, text = entries[term]
    st.header(name, anchor=anchor(term), divider="gray")
    st.markdown(text)
step_nav("app_pages/glossary.py")  # its Next: back to the start
