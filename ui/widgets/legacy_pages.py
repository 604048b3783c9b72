"""A workaround: a deep link opened by a server's first visitor still runs through app.py's navigation."""

from __future__ import annotations

import streamlit as st


def leave_legacy_pages_mode() -> None:
    """Run the app through app.py's st.navigation, even for a server's very first visitor.

    Streamlit decides once per process, at the first session, whether a folder named pages/ means the old
    multipage mode; until app.py has called st.navigation, a deep link such as /step3_softmax runs that
    page alone, without the sidebar or the shared state. Flip the decision and rerun through app.py.
    """
    from streamlit.runtime.pages_manager import PagesManager

    # "_settings" missing means app.py has not run in this session: this page was started on its own.
    # Checked per session, not by the flag alone: in a crowd of first visitors another session may already
    # have flipped the flag while this one was started in the old mode.
    if "_settings" not in st.session_state and not st.session_state.get("_left_legacy_pages_mode"):
        st.session_state["_left_legacy_pages_mode"] = True
        if getattr(PagesManager, "uses_pages_directory", None):
            PagesManager.uses_pages_directory = False
        st.rerun()
