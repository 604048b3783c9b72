"""The app's own page menu in the sidebar (Streamlit's is switched off in .streamlit/config.toml: on a cold start
it could list raw file names until st.navigation replaced them)."""

from __future__ import annotations

import streamlit as st

# The menu's container key: its CSS class (st-key-page_menu) is what tests and benches click in.
PAGE_MENU_KEY = "page_menu"


def page_menu(pages: dict[str, list]) -> None:
    """Every page by its title, in sections, at the top of the sidebar (the current page is marked by Streamlit)."""
    with st.sidebar.container(key=PAGE_MENU_KEY):
        for section, section_pages in pages.items():
            st.caption(section)
            for page in section_pages:
                st.page_link(page)
        st.divider()
