"""What a page draws, and nothing a server process keeps (that is serving/).

settings.py (the Settings every page reads), sidebar.py and links.py (the shared sidebar, a link's values),
view.py (the View: what a page shows), model.py (the model as a page asks for it), parity.py (the badge and the
PyTorch check), page.py and page_style.py (pieces every page repeats, the page's CSS and scripts), whys.py and
glossary.py (the "why" paragraphs, the glossary), figures/ and walkthrough.py (every plotly figure),
walkthrough_text.py (the walk-through's captions), pronoun.py, pronoun_testset.py, training_lab.py,
training_jacobian.py and meaning.py (the sections of those pages), text.py, labels.py, readouts.py, tables.py (words,
labels and tables), content.py and model_card.py (words kept in content/ text files), legacy_pages.py (a Streamlit
workaround).
"""
