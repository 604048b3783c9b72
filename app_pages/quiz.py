import functools
import streamlit as st

from lessons.questions import GROUPS, PAGE_TITLES, answer_key, answer_sheet, model_answer, quiz, score, verdict
from ui.sections.meaning import meaning_quiz
from ui.model import warn_if_cut
from ui.settings import ANSWER_CHARS, keep_widget_value
from ui.sections.answer_key import answer_key_html
from ui.text import md, quote, shorten, slug
from ui.view import current_view
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/quiz.py")  # teaching mode: sentence, examples, Previous / Next
st.title("Check yourself")
st.markdown("Questions about self-attention, answered with **your sentence's** numbers. Choose an answer to see "
            "whether it is right and why. For the open questions, write your answer first, then compare.")
view = current_view()
# The model's own rows in learned mode ([CLS]/[SEP] included); the toy's rows otherwise.
questions = (quiz(view.base, view.base_labels, view.base_index, quote, shown=None if view.is_toy else view.shown)
             + meaning_quiz(view.model))
sentence = view.settings.sentence
# Answers live outside the widgets too: Streamlit forgets a widget's value when its page is left, and a
# student who reads a step page and comes back should find their answers.
saved = st.session_state.setdefault("quiz_answers", {})


choices = {q.key: saved.get(answer_key(sentence, q.key)) for q in questions}
right, answered, total = score(questions, choices)
score_line = f"Score: **{right} right** of {answered} answered ({total} questions with choices)."
st.markdown(score_line)
# For the teacher: the same questions and answers as one printable file (made only when clicked).
st.download_button("⬇️ The answer key as a printable HTML file (opens offline, for class)",
                   # bound values, not a lambda: a lambda keeps the page's whole namespace (its model pass)
                   functools.partial(answer_key_html, questions, sentence, view.label),
                   file_name=f"answer_key_{slug(sentence)}.html", mime="text/html", key="quiz-answer-key",
                   on_click="ignore")
# Off by default: a student answers first. On, the page is an answer key a teacher can read on screen.
if st.toggle("Show all answers", value=False, key="quiz_show_answers",
             help="Every question with its right answer, the reason and the page that explains it."):
    st.caption(f"Answer key for {md(view.label)}, on your sentence: “{md(shorten(sentence, 120))}”.")
    for group in GROUPS:
        st.header(group)
        for entry in (e for e in answer_sheet(questions) if e.group == group):
            with st.container(border=True):
                st.markdown(f"**{entry.number}. {entry.text}**")
                if entry.answer is None:
                    st.markdown(f"**A model answer (open question):** {entry.reason}")
                else:
                    st.markdown(f"**Answer:** {entry.answer}. **Why:** {entry.reason}")
                st.page_link(entry.page, label=f"Read more: {entry.page_title}", icon="📖")
    st.stop()

number = 0
for group in GROUPS:
    st.header(group)
    for q in (q for q in questions if q.group == group):
        number += 1
        key = answer_key(sentence, q.key)
        if key not in st.session_state and saved.get(key) is not None:
            st.session_state[key] = saved[key]
        with st.container(border=True):
            st.markdown(f"**{number}. {q.text}**")
            if q.options is not None:
                choice = st.radio("Your answer", q.shuffled_options(), index=None, key=key,
                                  label_visibility="collapsed", on_change=keep_widget_value, args=("quiz_answers", key))
                done = choice is not None
                if done:
                    result = verdict(q, choice)
                    (st.success if result.right else st.error)(result.text)
            else:
                written = st.text_area("Your answer", key=key, max_chars=ANSWER_CHARS, height=68,
                                       placeholder="Write your answer, then press Ctrl+Enter to compare.",
                                       on_change=keep_widget_value, args=("quiz_answers", key))
                done = bool(written.strip())
                warn_if_cut(written, ANSWER_CHARS)
                if done:
                    st.info(model_answer(q))
            if done:
                st.page_link(q.page, label=f"Read more: {PAGE_TITLES[q.page]}", icon="📖")
st.markdown(score_line)
st.caption(f"Numbers computed from: {md(view.label)}. A new sentence starts a fresh quiz; going back to an "
           "earlier sentence brings its answers back.")
step_nav("app_pages/quiz.py")
