import streamlit as st

from lessons.heads import PATTERN_WORDS, describe_heads
from ui import figures, readouts, whys
from ui.page import example_lesson, example_sentences, sentence_box, specials_note, step_nav, token_picker
from ui.parity import parity_badge
from ui.settings import settings
from ui.text import pct, quote
from ui.view import current_view
from ui.walkthrough_section import show_walkthrough

st.title("Self-attention, step by step")
st.markdown(
    "To understand a word you look at the words around it: *bank* means something else next to *river* "
    "than next to *money*. **Self-attention** is how a transformer does this: every word (token) looks at "
    "every token, decides how much each one matters to it, and becomes a mix of them. Here are the real "
    "numbers of a small pretrained model, all-MiniLM-L6-v2 (6 layers × 12 attention heads)."
)
st.page_link("pages/meaning.py", icon="📏",
             label="Does “bank” really change with its sentence? Measured layer by layer →")
example_sentences()  # on a slide too: the teacher switches examples there. Before the view: an empty sentence too.
sentence_box(settings().sentence)  # on a phone only: the sidebar hides behind "»"


def follow_the_selected_token():
    """Everything here that follows the selected token. A chip click reruns the whole page, not a fragment: a
    fragment cannot redraw the sidebar, whose token list would then name another token than the page explains."""
    view = current_view()
    tokens, keys, i = view.labels, view.key_labels, view.token
    weights = view.weights  # learned mode: the model's own rows; hidden [CLS]/[SEP] folded into one column
    focus = readouts.shares(weights[i], keys, i, limit=4)  # the largest shares; "0.0% on …" would teach nothing
    st.markdown(f"**Where each word looks** ({view.label}). The selected token, {quote(view.token_label)}, puts "
                f"{focus}." + ("" if view.settings.teaching else " Click another token below."))
    example_lesson(view)
    st.markdown(f"▶ [Play the four steps for {quote(view.token_label)}](#play-the-four-steps): its row of scores "
                "becoming weights and its output, frame by frame, with the live numbers.")
    if not view.is_toy:  # what the head does on this sentence, measured over every row the model computes
        (pattern, share), = describe_heads(view.full.weights[None], view.analysis.tokens, view.analysis.is_special)
        if pattern in PATTERN_WORDS:
            st.markdown(f"**What this head does:** on your sentence it sends, on average, {pct(share)} of each "
                        f"token's attention to {PATTERN_WORDS[pattern]}"
                        + (f" (over all {readouts.token_count(view)} the model sees)"
                           if view.hidden.size else "") + " — follow the dark cells row by row."
                        + readouts.next_token_note(view, pattern))
    token_picker(view)
    left, right = st.columns([3, 2]) if not view.settings.teaching else (st.container(), st.container())
    with left:
        figures.show(
            figures.matrix_heatmap(weights, tokens, keys,
                                   figures.figure_title("Attention weights", view.settings.sentence, view.label),
                                   kind="weights", highlight_row=i, teaching=view.settings.teaching,
                                   last_column=view.last_column("weights")),
            figures.figure_filename("home_weights", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-weights")
    with right:
        figures.show(
            figures.token_lines(weights, tokens, keys,
                                figures.figure_title("The same, as lines", view.settings.sentence, view.short_label),
                                selected=i, teaching=view.settings.teaching),
            figures.figure_filename("home_lines", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-lines")
    st.caption("Each row is one token looking (its query); each column a token it looks at (its key). Darker = more "
               "attention; every row adds up to 100%. On the right, thicker lines = more attention.")
    lines = readouts.every_token_lines(view)
    intro = (f"**Every token, one line each** ({readouts.token_count(view)}): where it looks most, and what its "
             "output is made of (step 4: each token's value vector times its share, added up).")
    every = st.container() if len(lines) <= 12 else st.expander(f"Every token, one line each ({len(lines)} lines)")
    every.markdown(intro + "\n\n" + "\n".join(f"- {line}" for line in lines))
    specials_note(view)
    parity_badge(view)

    show_walkthrough(view)
    return view


view = follow_the_selected_token()
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
