"""What every page shares around its sections: the sidebar and its page menu, a link's values, the tour's
Previous / Next and the page's own sentence box, the token chips and the slide's layer/head row, downloads, the
parity badge, the page's style and scripts (injected_scripts.py lists the markup they select), and the by-hand
drawing component (components v2)."""
