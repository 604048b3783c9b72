import streamlit as st

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
st.title("Self-attention, step by step")
st.markdown(
    "A word's meaning depends on its neighbours: *bank* next to *river* is not *bank* next to *money*. "
    "**Self-attention** is how a transformer uses them: every word (token) weighs how much each token matters to it "
    "and takes in a mix of them. Below: the real numbers of a small trained model, all-MiniLM-L6-v2."
)
if not settings().teaching:  # a slide keeps its first screen for the picture
    model_card(preload_model())  # None when the model failed to load: the view below says why
st.page_link("app_pages/meaning.py", icon="📏",
             label="Does “bank” really change with its sentence? Measured layer by layer →")
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

st.header("The four steps")
step_text = [
    ("1 · Query·Key scores", "app_pages/step1_scores.py",
     "Each token's *query* (what it looks for) is scored against every token's *key* (what it offers)."),
    ("2 · Scaling by √d_k", "app_pages/step2_scaling.py",
     "The scores are divided by a fixed number, so they do not grow with the vectors' length."),
    ("3 · Softmax → weights", "app_pages/step3_softmax.py",
     "Each row of scores becomes percentages that add up to 100%."),
    ("4 · Output = weights·V", "app_pages/step4_output.py",
     "Each token's new vector: every token's *value*, mixed by those percentages."),
]
columns = st.columns(4)
for column, (title, page, text) in zip(columns, step_text):
    with column:
        st.page_link(page, label=title)
        st.markdown(text)
step_nav("app_pages/home.py")
