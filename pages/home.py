import streamlit as st

from ui import readouts
from ui.sections import whys
from ui.model import preload_model
from ui.sections.model_card import model_card
from ui.widgets.tour import example_sentences, sentence_box, step_nav
from ui.settings import settings
from ui.sections.start_page import follow_the_selected_token, what_the_head_does
from ui.view import current_view

st.title("Self-attention, step by step")
st.markdown(
    "To understand a word you look at the words around it: *bank* means something else next to *river* "
    "than next to *money*. **Self-attention** is how a transformer does this: every word (token) looks at "
    "every token, decides how much each one matters to it, and takes in a mix of them, weighted by that, on "
    "top of what it already was. Here are the real "
    "numbers of a small pretrained model, all-MiniLM-L6-v2 (6 layers × 12 attention heads)."
)
if not settings().teaching:  # a slide keeps its first screen for the picture
    model_card(preload_model())  # None when the model failed to load: the view below says why
st.page_link("pages/meaning.py", icon="📏",
             label="Does “bank” really change with its sentence? Measured layer by layer →")
example_sentences()  # on a slide too: the teacher switches examples there. Before the view: an empty sentence too.
sentence_box(settings().sentence)  # on a phone only: the sidebar hides behind "»"
what_the_head_does(current_view())
follow_the_selected_token()
view = current_view()
tokens = view.tokens

st.header("Your sentence, as the model splits it")
st.markdown(" · ".join(f"`{t.replace('`', 'ˋ')}`" for t in tokens))
whys.show_tokens(view)
st.caption(f"{readouts.token_count(view)}. Q, K and V come from: {view.label}.")

st.header("The four steps")
step_text = [
    ("1 · Query·Key scores", "pages/step1_scores.py",
     "Each token's *query* (what it is looking for) is compared with every token's *key* (what it offers) "
     "by a dot product. Big = a good match."),
    ("2 · Scaling by √d_k", "pages/step2_scaling.py",
     "The scores are divided by the square root of the vector length, so long vectors don't produce "
     "huge scores."),
    ("3 · Softmax → weights", "pages/step3_softmax.py",
     "Each row of scores becomes percentages that add up to 100%: how much the token attends to each other "
     "token."),
    ("4 · Output = weights·V", "pages/step4_output.py",
     "Each token's new vector is the weighted mix of all tokens' *values*."),
]
columns = st.columns(4)
for column, (title, page, text) in zip(columns, step_text):
    with column:
        st.page_link(page, label=title)
        st.markdown(text)
step_nav("pages/home.py")
