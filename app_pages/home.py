import streamlit as st

from ui.content import words

from ui.sections.step_page import more_detail
from ui.sections.token_whys import token_whys
from ui.model import preload_model
from ui.sections.model_card import model_card
from ui.widgets.tour import example_sentences, sentence_box, slide_top, step_nav
from ui.settings import settings
from ui.sections.start_page import follow_the_selected_token, what_the_head_does
from ui.view import current_view
from ui.widgets.links import view_link_params

slide_top("app_pages/home.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("start.title"))
model = preload_model()  # None when the model failed to load: the view below says why
# What a layer and a head are, before the page's first "layer 2, head 9": the sizes the loaded model has.
n_layers, n_heads = (model.n_layers, model.n_heads) if model else (0, 0)
st.markdown(words("start.intro", n_layers=n_layers, n_heads=n_heads, all_heads=n_layers * n_heads))
if not settings().teaching:  # a slide keeps its first screen for the picture
    model_card(model)
st.page_link("app_pages/meaning.py", icon="📏",
             label=words("start.meaning_link"))
example_sentences()  # on a slide too: the teacher switches examples there. Before the view: an empty sentence too.
sentence_box(settings().sentence)  # on a phone only: the sidebar hides behind "»"
what_the_head_does(current_view())
follow_the_selected_token()
view = current_view()
tokens = view.tokens

# The chips above already show the tokens: how the model cut the sentence, and why, waits one click away.
for question, answer in token_whys(view, view_link_params()):
    with more_detail(question):
        st.markdown(" · ".join(f"`{t.replace('`', 'ˋ')}`" for t in tokens))
        st.markdown(answer)

st.header(words("start.four_steps"))
step_text = [
    (words("start.step1_link"), "app_pages/step1_scores.py", words("start.step1_text")),
    (words("start.step2_link"), "app_pages/step2_scaling.py", words("start.step2_text")),
    (words("start.step3_link"), "app_pages/step3_softmax.py", words("start.step3_text")),
    (words("start.step4_link"), "app_pages/step4_output.py", words("start.step4_text")),
]
columns = st.columns(4)
for column, (title, page, text) in zip(columns, step_text):
    with column:
        st.page_link(page, label=title)
        st.markdown(text)
step_nav("app_pages/home.py")
