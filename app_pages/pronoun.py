import streamlit as st

from lessons import pronoun as pr
from ui.sections import pronoun as sections
from ui.sections.pronoun_testset import test_set_section
from ui.model import model_or_stop
from ui.settings import PRONOUN_HEAD, PRONOUN_PRESET, settings
from ui.text import quote
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/pronoun.py")  # teaching mode: sentence, examples, Previous / Next
st.title("Does “it” look at the right noun?")
st.markdown(
    "A common claim: in *A dog ate the food because it was hungry.*, self-attention lets **it** put most of "
    "its attention on **dog**, and that is how the model knows what *it* means. Here you can test that on "
    "the real model, head by head, and see how far the claim holds."
)
s = settings()
teaching = s.teaching
model = model_or_stop(s)

sentence = sections.page_sentence(s)
analysis = sections.sentence_pass(sentence, s, model)
tag, pronoun_index, pronoun, candidates = sections.chosen_words(sentence, analysis)

attentions = analysis.attentions                     # [L, H, n, n] the model's own
sections.parity_note(sentence, s, model, attentions)

a, b = candidates[0], candidates[1]
rows = attentions[:, :, list(pronoun.pieces), :].mean(axis=2)   # [L, H, n] attention from the pronoun
verdict = pr.verdict(rows, analysis.tokens, a, b, pronoun.text, quote=quote)
board = sections.scoreboard(model)
preset = f"the head preset “{PRONOUN_PRESET}”" if board.chosen == PRONOUN_HEAD else ""
st.markdown(pr.page_verdict(verdict, a.text, b.text, pronoun.text, board, quote=quote, known_as=preset)
            + " The sections below show each number.")

sections.weight_grids(verdict, pronoun, a, b, sentence, teaching)
sections.head_detail(rows, analysis, verdict, pronoun, a, b, sentence, tag, pronoun_index, model, teaching)
sections.rollout_section(attentions, pronoun, candidates, model, sentence, teaching)
sections.contrast_section(sentence, s, verdict, pronoun, a, b, tag, teaching, chosen=board.chosen)
test_set_section(board, teaching)
step_nav("app_pages/pronoun.py")
