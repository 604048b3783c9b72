"""Attention by hand: four words with two-number keys and values, a query the student drags, and the hand-over to
the real model on the same words (issue 54)."""

import streamlit as st

from ui.content import words

from ui.sections import by_hand
from ui.widgets.tour import slide_top, step_nav
from ui.settings import settings

s = settings()
slide_top("app_pages/by_hand.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("by_hand.title"))
by_hand.introduction(s.teaching, by_hand.model_key_size(s))
by_hand.drawing(s.teaching)
by_hand.how_it_works(s.teaching)
by_hand.hand_over(s, s.teaching)
step_nav("app_pages/by_hand.py")
