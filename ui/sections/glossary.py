"""The glossary: every word the pages use that a student may not know, in one or two plain sentences.

`TERMS` is the content (term -> explanation, in reading order); `term_link` makes a Markdown link from any
page to a term's entry on the glossary page, carrying the page's settings so the entry opens on the same
sentence.
"""

from __future__ import annotations

from urllib.parse import urlencode

from ui.text import slug

GLOSSARY_PAGE = "app_pages/glossary.py"
GLOSSARY_URL = "glossary"  # the page's URL path: its file name (see devtools/browser.py PAGES)

TERMS: dict[str, str] = {
    "token": "A piece of text the model reads: a word, part of a word or a punctuation mark. The model turns "
             "your sentence into tokens before anything else.",
    "word piece (##)": "A rare or long word is cut into known pieces. A piece that continues a word starts with "
                       "“##”: *tokenization* may become “token” + “##ization”.",
    "[CLS] and [SEP]": "Two special tokens the model adds to every sentence: [CLS] at the start and [SEP] at the "
                       "end. They are not words of your sentence, though after the first layer their vectors hold a mix "
                       "of its words like every token's. Many heads put much of their attention on them; their "
                       "value vectors are often short, so that attention counts for less than its weight.",
    "embedding": "The list of numbers (here 384 of them) a token starts as, before any attention: the model's "
                 "learned vector for its word plus a learned vector for its position in the sentence, normalised. "
                 "So the same word at another position gets a slightly different embedding. Layer 1, the first, "
                 "starts from the embeddings, and so do the textbook toys; each later layer starts from the "
                 "output of the layer before.",
    "vector": "A list of numbers, such as a token's embedding or its query. Its length is how many numbers it has.",
    "dimension": "One position in a vector: one of its numbers. “The 32 dimensions” of a query are its 32 "
                 "numbers, the columns of the Q, K and V pictures.",
    "matrix": "A table of numbers with rows and columns. Here each row usually belongs to one token.",
    "query, key, value": "Three vectors made from each token's vector as it enters the layer (in the first layer, its "
                         "embedding). The query is what the token is looking "
                         "for, the key is what it offers to others, the value is what it passes on when chosen.",
    "W_Q, W_K, W_V": "Three learned tables of numbers (matrices) in each head. Multiplying the vector a token "
                     "enters the layer with by W_Q gives its query, by W_K its key, by W_V its value. Training chose them.",
    "d_k": "The length of each query and key vector (32 in this model's heads). The scores are divided by √d_k.",
    "dot product": "Multiply two vectors number by number and add it all up. It is large when the two point the "
                   "same way, near 0 when they are unrelated, negative when they point apart.",
    "score": "The dot product of one token's query with another token's key: how well the two match, before "
             "softmax.",
    "softmax": "Turns a row of any numbers into positive shares that add up to 1: raise e to each number, then "
               "divide by the row's total. Bigger numbers get much bigger shares.",
    "attention weight": "The share of attention one token (the row) gives another (the column), between 0 and 1. "
                        "Each row of weights adds up to 1.",
    "context-aware vector": "A token's output: a mix of every token's value, weighted by attention. It now "
                            "carries information from the rest of the sentence.",
    "contextual vector": "A word's vector after one or more layers: the model's own numbers for that word in that "
                         "sentence. Before any attention a word's vector depends only on the word and its position; "
                         "attention lets the rest of the sentence change it. Whether “bank” by a river and “bank” "
                         "for money come apart is measured on the page “A word's meaning comes from its sentence”.",
    "knock out (ablation)": "Switch one part of a model off and measure what changes. The meaning page does it "
                            "two ways. Self-only attention: every head's weights become 1 on the token itself, "
                            "so no token takes anything from the other words; this is a control (what the word "
                            "and its position alone give), not a finding. Mean-ablation of one head: that head's "
                            "output is replaced at every token by its average output, so it no longer tells "
                            "tokens apart, while the other heads work as usual.",
    "cosine similarity": "How much two vectors point the same way, ignoring their length: 1 = same direction, "
                         "0 = unrelated, −1 = opposite.",
    "entropy (bits)": "How spread out a row of weights is. 0 bits: all attention on one token. log2(n) bits: "
                      "spread evenly over n tokens. One bit is the spread of a fair coin.",
    "gradient": "How much an output changes when one input is nudged a little, and in which direction. Training "
                "follows gradients to adjust the model's numbers.",
    "differentiable": "Changes smoothly, with no jumps, so a gradient exists everywhere. Softmax is; “pick the "
                      "largest” is not.",
    "self-attention": "Attention inside one sequence: the queries, keys and values all come from the same "
                      "sentence, so it looks at itself.",
    "cross-attention": "Attention between two sequences: the queries come from one (for example the translation "
                       "being written) and the keys and values from the other (the sentence being translated).",
    "causal mask": "A rule for models that write text one token at a time (like GPT): a token may not look at the "
                   "tokens after it. Their scores are set to minus infinity, so softmax gives them 0.",
    "temperature": "A number the scores are divided by before softmax. Above 1 the weights get more even; below 1 "
                   "they get sharper.",
    "head": "One complete copy of the four steps with its own W_Q, W_K, W_V. This model has 12 heads in every "
            "layer, each free to look for something different.",
    "layer": "One round of attention (all 12 heads) followed by a feed-forward network. This model stacks 6; "
             "each layer reads the previous layer's output.",
    "W_O": "The output matrix: it mixes the 12 heads' joined outputs back into one vector of 384 numbers per "
           "token.",
    "residual connection": "The token's input is added back to the attention output, so the layer only has to "
                           "add what is new and the word itself is not lost.",
    "LayerNorm": "Rescales each token's vector to a standard size (mean 0, spread 1, then learned stretches), "
                 "which keeps the numbers in a range the next layer expects.",
    "feed-forward network": "A small network applied to each token on its own after attention. Attention mixes "
                            "tokens; the feed-forward part transforms each one.",
    "rollout": "An estimate of how attention passes information through all the layers (Abnar and Zuidema, "
               "2020): average each layer's heads, count the residual connection as half of the mix, and multiply "
               "the layers' weights. It leaves out the values, W_O and the feed-forward networks, so it is an "
               "approximation of where information can flow, not a measurement of what each output contains.",
}


def anchor(term: str) -> str:
    """The entry's anchor on the glossary page (its header id)."""
    return slug(term).replace("_", "-")


def term_link(term: str, label: str | None = None, query: dict[str, str] | None = None) -> str:
    """A Markdown link to the term's entry; `query` is the page's URL parameters (sentence, mode, …)."""
    if term not in TERMS:
        raise KeyError(term)
    params = f"?{urlencode(query)}" if query else ""
    text = (label or term).replace("[", "\\[").replace("]", "\\]")
    return f"[{text}]({GLOSSARY_URL}{params}#{anchor(term)})"
