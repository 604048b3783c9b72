import streamlit as st

from lessons import pronoun as pr
from ui.content import words
from ui.sections import pronoun as sections
from ui.sections.pronoun_testset import test_set_section
from ui.sections.pronoun_verdict import page_verdict
from ui.model import model_or_stop
from ui.settings import PRONOUN_HEAD, PRONOUN_PRESET, preset_name, settings
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/pronoun.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("pronoun.title"))
st.markdown(words("pronoun.intro"))
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
verdict = pr.verdict(rows, a, b)
board = sections.scoreboard(model)
preset = preset_name(PRONOUN_PRESET) if board.chosen == PRONOUN_HEAD else ""
first_read, measured = page_verdict(verdict, a.text, b.text, pronoun.text, board, known_as=preset)
if first_read:  # a first read short on a slide too; the effect size and control stay one click away
    st.markdown(first_read)
    with st.expander(words("pronoun.verdict_how_label")):
        st.markdown(measured)

sections.weight_grids(verdict, pronoun, a, b, sentence, teaching, analysis.tokens)
sections.head_detail(rows, analysis, verdict, pronoun, a, b, sentence, tag, pronoun_index, model, teaching)
sections.rollout_section(attentions, pronoun, candidates, model, sentence, teaching)
sections.contrast_section(sentence, s, verdict, pronoun, a, b, tag, teaching, chosen=board.chosen)
test_set_section(board, teaching)
step_nav("app_pages/pronoun.py")
