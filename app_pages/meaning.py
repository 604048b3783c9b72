import streamlit as st

from lessons import meaning as me
from ui.content import words
from ui.sections import meaning as sections
from ui.sections.meaning_map import map_section
from ui.model import model_or_stop
from ui.settings import settings
from ui.text import quote
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/meaning.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("meaning.title"))
s = settings()
teaching = s.teaching
st.markdown(words("meaning.intro"))
model = model_or_stop(s)
word, group_a, group_b, names = sections.word_set_inputs(teaching)
result = sections.measured(model, word, group_a, group_b)
fact = me.facts(result)
sections.input_notes(result, names)
st.caption(words("meaning.measured_on", n_a=result.n_a, name_a=quote(names[0]), n_b=result.n_b,
                 name_b=quote(names[1]), word=quote(result.word)))
sections.definitions(result, model.n_layers, teaching)
sections.separation_section(result, fact, teaching)
map_section(result, fact, names, teaching, model.d_model)
sections.matrix_section(result, fact, names, teaching)
sections.accuracy_section(result, teaching)
sections.heads_section(model, result, teaching)
if not teaching:
    sections.downloads(result, names)
step_nav("app_pages/meaning.py")
