"""What a page draws, and nothing a server process keeps (that is serving/).

By role:
- sections/: each page's sections, their pictures' words and read-outs (one module or more per page:
  start_page, walkthrough*, step_page, pronoun*, meaning*, multihead, head_flip, whatif, training_*,
  glossary, whys, worksheet, history, model_card, by_hand).
- widgets/: what every page shares around its sections: the sidebar, the page menu, links, the tour's
  Previous / Next and sentence box, the token chips and layer/head row, downloads, the parity badge, the page's
  style and scripts, the by-hand drawing component.
- figures/: every plotly figure, by kind.
- At the top, what all of them read: settings.py (the Settings), view.py (the View), model.py (the model as a
  page asks for it), turns.py (a page run's turn: serving/queue.py for a browser and its tabs), text.py,
  labels.py, readouts.py, tables.py, content.py (words kept in content/ text files).
"""
