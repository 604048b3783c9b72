import streamlit as st

from lessons import meaning as me
from ui.sections import meaning as sections
from ui.sections.meaning_map import map_section
from ui.model import model_or_stop
from ui.settings import settings
from ui.text import quote
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/meaning.py")  # teaching mode: sentence, examples, Previous / Next
st.title("A word's meaning comes from its sentence")
s = settings()
teaching = s.teaching
st.markdown(
    "The step pages show *how* attention mixes each token with the others. This page measures *what that "
    "achieves*: take one word, such as **bank**, in sentences about a river and sentences about money, and follow "
    "the model's vector of that word through its layers. Before any attention the vector is the word plus its "
    "position in the sentence. Do the two meanings come apart, and by more than word and position alone would "
    "give? A control answers the second question: the same model with every token attending only to itself."
)
model = model_or_stop(s)
word, group_a, group_b, names = sections.word_set_inputs(teaching)
result = sections.measured(model, word, group_a, group_b)
fact = me.facts(result)
sections.input_notes(result, names)
st.caption(f"Measured on {result.n_a} sentences of {quote(names[0])} and {result.n_b} of {quote(names[1])}, with "
           f"the model's own vectors of {quote(result.word)}.")
sections.definitions(result, names, teaching)
sections.separation_section(result, fact, teaching)
map_section(result, fact, names, teaching, model.d_model)
sections.matrix_section(result, fact, names, teaching)
sections.accuracy_section(result, teaching)
sections.heads_section(model, result, teaching)
if not teaching:
    sections.downloads(result, names)
step_nav("app_pages/meaning.py")
