"""Entry point: the shared sidebar and the page list. Run with `streamlit run app.py`."""

import streamlit as st

from ui.state import sidebar_ui

st.set_page_config(page_title="Self-attention, step by step", page_icon="🔎", layout="wide")

pages = {
    "Start": [st.Page("pages/home.py", title="What self-attention does", icon="🏠", default=True)],
    "The four steps": [
        st.Page("pages/step1_scores.py", title="1 · Query·Key scores", url_path="step1"),
        st.Page("pages/step2_scaling.py", title="2 · Scaling by √d_k", url_path="step2"),
        st.Page("pages/step3_softmax.py", title="3 · Softmax → weights", url_path="step3"),
        st.Page("pages/step4_output.py", title="4 · Output = weights·V", url_path="step4"),
    ],
    "Going further": [
        st.Page("pages/pronoun.py", title="Does “it” look at “dog”?", url_path="pronoun"),
        st.Page("pages/multihead.py", title="Multi-head attention", url_path="multihead"),
        st.Page("pages/whatif.py", title="What-if lab", url_path="whatif"),
        st.Page("pages/quiz.py", title="Check yourself", url_path="quiz"),
    ],
}
navigation = st.navigation(pages)
st.session_state["_settings"] = sidebar_ui()
navigation.run()
