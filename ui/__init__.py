"""Everything Streamlit- and plotly-specific: shared state and caching (state.py), figures (figures.py), text helpers (text.py)."""
