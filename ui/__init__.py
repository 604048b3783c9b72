"""What a page draws, and nothing a server process keeps (that is serving/): settings.py (the Settings every page
reads), sidebar.py and links.py (the shared sidebar, a link's values), view.py (the View: what a page shows),
model.py (the model as a page asks for it), parity.py (the badge and the PyTorch check), page.py, whys.py,
glossary.py, figures.py and walkthrough.py (pieces of pages, plotly figures), text.py, labels.py, readouts.py,
tables.py (words, labels, tables), legacy_pages.py (a Streamlit workaround)."""
