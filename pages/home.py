import streamlit as st

from ui import figures
from ui.state import current_view, parity_badge
from ui.text import pct, quote

st.title("Self-attention, step by step")
st.markdown(
    "To understand a word you look at the words around it: *bank* means something else next to *river* "
    "than next to *money*. **Self-attention** is how a transformer does this. Every word (token) of a "
    "sentence compares itself with every token, itself included, decides how much each one matters to it, "
    "and then becomes a mix of them — a new, context-aware version of itself.\n\n"
    "This app walks through that computation on **real numbers** from a small pretrained model, "
    "all-MiniLM-L6-v2 (6 layers × 12 attention heads). Type your own sentence in the sidebar; the running "
    "example is *I am good.*"
)

view = current_view()
tokens = view.tokens
st.subheader("Your sentence, as the model splits it")
st.markdown(" · ".join(f"`{t.replace('`', 'ˋ')}`" for t in tokens))
from ui import whys; whys.show_tokens(view)
st.caption(f"{len(tokens)} tokens. Q, K and V come from: {view.label}.")
parity_badge(view)

st.subheader("The four steps")
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

weights = view.steps.weights
row = weights[view.token]
order = row.argsort()[::-1]
focus = ", ".join(f"{pct(row[j])} on {quote(tokens[j]) if j != view.token else 'itself'}" for j in order[:4])
st.subheader("Where this ends up")
st.markdown(f"After the four steps, {quote(view.token_label)} focuses {focus}. "
            "Pick another token in the sidebar, or change how Q, K and V are made.")
figures.show(
    figures.matrix_heatmap(weights, tokens, tokens,
                           figures.figure_title("Attention weights", view.settings.sentence, view.label),
                           kind="weights", highlight_row=view.token, teaching=view.settings.teaching),
    figures.figure_filename("home_weights", view.settings.sentence, view.code), view.settings.teaching)
