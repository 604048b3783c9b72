"""The glossary: every word the pages use that a student may not know, in one or two plain sentences.

`TERMS` lists the entries (their words: content/<lang>/glossary.toml); `term_link` makes a Markdown link from any
page to a term's entry on the glossary page, carrying the page's settings so the entry opens on the same
sentence.
"""

from __future__ import annotations

from urllib.parse import urlencode

from ui.content import words
from ui.text import slug

GLOSSARY_PAGE = "app_pages/glossary.py"
GLOSSARY_URL = "glossary"  # the page's URL path: its file name (see devtools/browser.py PAGES)

# The entries in reading order, each by its identity: the English name other pages link to (term_link) and whose
# anchor is the entry's address. Their words, in every language, are content/<lang>/glossary.toml's
# term_<key> (the name shown) and text_<key> (the explanation), key = entry_key(term).
TERMS: tuple[str, ...] = (
    "token", "word piece (##)", "[CLS] and [SEP]", "embedding", "vector", "dimension", "matrix", "query, key, value",
    "W_Q, W_K, W_V", "d_k", "dot product", "score", "softmax", "attention weight", "context-aware vector",
    "contextual vector", "knock out (ablation)", "cosine similarity", "entropy (bits)", "gradient", "differentiable",
    "self-attention", "cross-attention", "causal mask", "temperature", "head", "layer", "W_O", "residual connection",
    "LayerNorm", "feed-forward network", "rollout",
)


def anchor(term: str) -> str:
    """The entry's anchor on the glossary page (its header id)."""
    return slug(term).replace("_", "-")


def entry_key(term: str) -> str:
    """The entry's key in the text files: its anchor with underscores (a TOML key)."""
    return anchor(term).replace("-", "_")


def entry(term: str, language: str | None = None) -> tuple[str, str]:
    """The entry's (name, explanation) in `language` (the page's by default)."""
    key = entry_key(term)
    return words(f"glossary.term_{key}", language=language), words(f"glossary.text_{key}", language=language)


def term_link(term: str, label: str | None = None, query: dict[str, str] | None = None) -> str:
    """A Markdown link to the term's entry; `query` is the page's URL parameters (sentence, mode, …)."""
    if term not in TERMS:
        raise KeyError(term)
    params = f"?{urlencode(query)}" if query else ""
    text = (label or entry(term)[0]).replace("[", "\\[").replace("]", "\\]")
    return f"[{text}]({GLOSSARY_URL}{params}#{anchor(term)})"
