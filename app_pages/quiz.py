import functools
import streamlit as st

from lessons.questions import GROUPS, answer_key, answer_sheet, quiz, score
from ui.content import current_language, words
from ui.sections.meaning import meaning_quiz
from ui.model import warn_if_cut
from ui.settings import ANSWER_CHARS, keep_widget_value
from ui.sections.answer_key import answer_key_html
from ui.sections.quiz import group_name, model_answer, shown, verdict
from ui.text import md, shorten, slug
from ui.view import current_view
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/quiz.py")  # teaching mode: sentence, examples, Previous / Next
language = current_language()  # bound into the radios' format_func and the answer key, which run after the page
st.title(words("quiz.title"))
st.markdown(words("quiz.intro"))
view = current_view()
# The model's own rows in learned mode ([CLS]/[SEP] included); the toy's rows otherwise.
questions = (quiz(view.base, view.base_labels, view.base_index, shown=None if view.is_toy else view.shown)
             + meaning_quiz(view.model))
sentence = view.settings.sentence
# Answers live outside the widgets too: Streamlit forgets a widget's value when its page is left, and a
# student who reads a step page and comes back should find their answers.
saved = st.session_state.setdefault("quiz_answers", {})


choices = {q.key: saved.get(answer_key(sentence, q.key)) for q in questions}
right, answered, total = score(questions, choices)
score_line = words("quiz.score", right=right, answered=answered, total=total)
st.markdown(score_line)
# For the teacher: the same questions and answers as one printable file (made only when clicked).
st.download_button(words("quiz.download"),
                   # bound values, not a lambda: a lambda keeps the page's whole namespace (its model pass)
                   functools.partial(answer_key_html, questions, sentence, view.label, language),
                   file_name=f"answer_key_{slug(sentence)}.html", mime="text/html", key="quiz-answer-key",
                   on_click="ignore")
sheet = [(entry.number, shown(entry.question, language)) for entry in answer_sheet(questions)]
# Off by default: a student answers first. On, the page is an answer key a teacher can read on screen.
if st.toggle(words("quiz.show_answers"), value=False, key="quiz_show_answers", help=words("quiz.show_answers_help")):
    st.caption(words("quiz.answers_caption", label=md(view.label), sentence=md(shorten(sentence, 120))))
    for group in GROUPS:
        st.header(group_name(group))
        for number, q in (entry for entry in sheet if entry[1].question.group == group):
            with st.container(border=True):
                st.markdown(words("quiz.numbered", number=number, question=q.text))
                if q.answer is None:
                    st.markdown(words("quiz.sheet_open", explanation=q.explanation))
                else:
                    st.markdown(words("quiz.sheet_answer", answer=q.answer, explanation=q.explanation))
                st.page_link(q.question.page, label=words("quiz.read_more", page=q.page_title), icon="📖")
    st.stop()

for group in GROUPS:
    st.header(group_name(group))
    for number, q in (entry for entry in sheet if entry[1].question.group == group):
        key = answer_key(sentence, q.question.key)
        if key not in st.session_state and saved.get(key) is not None:
            st.session_state[key] = saved[key]
        with st.container(border=True):
            st.markdown(words("quiz.numbered", number=number, question=q.text))
            if q.options is not None:
                # the values are the options' identities (kept per sentence); the words are this language's
                choice = st.radio(words("quiz.answer_label"), q.question.shuffled_options(), index=None, key=key,
                                  format_func=q.options.__getitem__, label_visibility="collapsed",
                                  on_change=keep_widget_value, args=("quiz_answers", key))
                done = choice is not None
                if done:
                    is_right, feedback = verdict(q, choice, language)
                    (st.success if is_right else st.error)(feedback)
            else:
                written = st.text_area(words("quiz.answer_label"), key=key, max_chars=ANSWER_CHARS, height=68,
                                       placeholder=words("quiz.answer_placeholder"),
                                       on_change=keep_widget_value, args=("quiz_answers", key))
                done = bool(written.strip())
                warn_if_cut(written, ANSWER_CHARS)
                if done:
                    st.info(model_answer(q, language))
            if done:
                st.page_link(q.question.page, label=words("quiz.read_more", page=q.page_title), icon="📖")
st.markdown(score_line)
st.caption(words("quiz.numbers_from", label=md(view.label)))
step_nav("app_pages/quiz.py")
