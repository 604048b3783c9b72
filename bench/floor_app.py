"""The floor the benchmark holds the app to: bare Streamlit with the app's pages, sidebar and figures.

    streamlit run bench/floor_app.py

Same page paths, titles, sidebar widgets (URL-bound like the app's) and the same plotly figures, built by the
app's own ui/figures/, but from random arrays: no model, no attention, no computation. Each page also lays out
as much teaching text as the app's page (headings, paragraphs, expanders, formulas, notices, tables: counted
in Chromium on 3 December 2026, `prose()`), since text is part of what the browser draws. Whatever the app takes
beyond this floor is the app's own cost. The tokens are the sentence's words and punctuation, lower-cased,
which for plain English sentences gives the bundled model's tokens (4 for "I am good.", 14 for "The animal
didn't cross the street because it was too tired.").
"""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lessons.names import layer_head_name, layer_name  # noqa: E402
from lessons.walkthrough import walk_through  # noqa: E402
from ui import figures  # noqa: E402
from ui.figures import meaning as meaning_figures  # noqa: E402
from ui.menu import page_menu  # noqa: E402
from ui.settings import HEAD_PRESETS, MODES, PRESET_HELP  # noqa: E402
from ui.figures.head_flip import head_flipbook  # noqa: E402
from ui.walkthrough import walkthrough_figure  # noqa: E402
from ui.walkthrough_text import captions, frames_text_html  # noqa: E402

DEFAULT_SENTENCE = "I am good."
D_MODEL, N_LAYERS, N_HEADS, D_HEAD = 384, 6, 12, 32
rng = np.random.default_rng()


def follow_the_token() -> None:
    """The top of a fragment that follows the token: the selected token from the session (the sidebar did not
    run), and random numbers drawn again from the sentence, so a chip click redraws what changed, as the app's
    figures do (the same sentence gives the same matrices; only what names the token moves)."""
    global rng
    token = st.session_state.get("token")
    if isinstance(token, int) and 0 <= token < len(S["tokens"]):
        S["token"] = token
    rng = np.random.default_rng(zlib.crc32(S["sentence"].encode()))


def words(sentence: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", sentence.lower())[:254]


HELP = "A floor tooltip as long as the app's: one or two plain sentences on what the widget does."  # help="…"


def sidebar() -> dict:
    """The app's sidebar (ui/sidebar.py): the same widgets, each with its tooltip, the projection's captions and
    the four head presets with theirs."""
    side = st.sidebar
    side.header("Your sentence")
    sentence = side.text_area("Sentence", value=DEFAULT_SENTENCE, key="sentence", bind="query-params",
                              max_chars=10_000, height=90, help=HELP)
    side.header("How Q, K and V are made")
    mode = side.radio("Projection", list(MODES), captions=list(MODES.values()), key="mode", bind="query-params",
                      help=HELP)
    layer = head = 0
    if mode == "random":
        side.select_slider("d_k (length of each query/key)", [2, 4, 8, 16, 32, 64, 128, 384], value=32, key="dk",
                           bind="query-params", help=HELP)
        side.number_input("Seed", 0, 9999, 0, key="seed", bind="query-params", help=HELP)
    if mode == "learned":
        columns = side.columns(2)
        layer = columns[0].selectbox("Layer", list(range(N_LAYERS)), index=1, key="layer", bind="query-params",
                                     help=HELP)
        head = columns[1].selectbox("Head", list(range(N_HEADS)), index=8, key="head", bind="query-params",
                                    help=HELP)
        # The app's head presets (ui/sidebar.py head_presets): a caption and a button with its tooltip each.
        side.caption("Or pick a head by what it does:")
        for name, (preset_layer, preset_head) in HEAD_PRESETS.items():
            side.button(f"{name}: layer {preset_layer}, head {preset_head}", key=f"preset-{preset_layer}-{preset_head}",
                        use_container_width=True, disabled=(layer, head) == (preset_layer, preset_head),
                        help=PRESET_HELP.get(name))
    special = side.checkbox("Show [CLS] and [SEP]", value=False, key="special", bind="query-params", help=HELP)
    tokens = words(sentence) or ["."]
    if special:
        tokens = ["[CLS]", *tokens, "[SEP]"]
    token = side.selectbox("Selected token (its row is explained)", list(range(len(tokens))),
                           format_func=lambda i: f"{i}: {tokens[i]}", key="token", bind="query-params", help=HELP)
    side.header("Display")
    teaching = side.toggle("Teaching mode (big fonts, clean slides)", key="teach", bind="query-params", help=HELP)
    with side.expander("Model"):
        st.text_input("Model name or local path (empty = bundled all-MiniLM-L6-v2)", value="", key="model",
                      help=HELP)
    return {"sentence": sentence, "tokens": tokens, "token": min(int(token or 0), len(tokens) - 1),
            "teaching": teaching, "layer": layer, "head": head}


PARAGRAPH = ("A floor paragraph as long as the app's: it stands where the app explains the matrix beside it, with a "
             "**bold** word and a number like 0.42, so the browser lays out the same amount of text. ") * 2


def prose(headings: int = 0, paragraphs: int = 0, expanders: int = 0, formulas: int = 0, alerts: int = 0,
          tables: int = 0, paragraph: str = "") -> None:
    """The app page's text elements, counted in Chromium (headings, paragraphs, expanders, KaTeX formulas,
    notices, tables): teaching text is part of the page, so the floor lays out as much of it (paragraph: a
    longer one where the app's paragraphs are longer than PARAGRAPH)."""
    paragraph = paragraph or PARAGRAPH
    for number in range(headings):
        st.subheader(f"A floor heading {number + 1}")
    for _ in range(paragraphs):
        st.markdown(paragraph)
    for _ in range(formulas):
        st.latex(r"\operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}")
    for _ in range(alerts):
        st.info(PARAGRAPH[:160])
    for number in range(expanders):
        with st.expander(f"A floor expander {number + 1}"):
            st.markdown(PARAGRAPH)
    for _ in range(tables):
        st.table([{"what": f"row {i}", "value": f"{i / 10:.2f}"} for i in range(6)])


def titled(step: str, short: bool = False, sentence: str | None = None) -> str:
    """The app's figure title (ui/figures/layout.py figure_title): the step, then the sentence and the view, which
    the figure draws as a subtitle (ui/view.py's label, or its short label in a half-width figure)."""
    view = layer_head_name(S["layer"], S["head"])
    return figures.figure_title(step, sentence or S["sentence"], view if short else f"learned weights, {view}")


def weights(n_rows: int, n_cols: int | None = None) -> np.ndarray:
    raw = rng.random((n_rows, n_cols or n_rows))
    return raw / raw.sum(axis=1, keepdims=True)


# The app's default (learned) view hides [CLS] and [SEP] from the rows and folds them into one last column of each
# matrix (ui/view.py: key_labels, score_keys, last_column); a list of every key of one row names them "(hidden)".
HIDDEN = "[CLS] + [SEP]"


def key_columns(tokens: list[str], kind: str = "weights") -> tuple[list[str], str]:
    """A matrix's columns and what its last one holds, as the app's learned view draws them."""
    if kind == "weights":
        return [*tokens, HIDDEN], "[CLS] and [SEP] added up"
    return [*tokens, "max([CLS], [SEP])"], "the larger [CLS]/[SEP] score"


def every_key(tokens: list[str]) -> list[str]:
    """Every key of one row, the hidden markers named (ui/view.py: base_key_labels)."""
    return ["[CLS] (hidden)", *tokens, "[SEP] (hidden)"]


def show(fig, name: str, key: str | None = None) -> None:
    figures.show(fig, name, S["teaching"], key=key)


def explained(text: str, fig, name: str) -> None:
    if S["teaching"]:
        show(fig, name, key=f"fig-{name}")
        return
    left, right = st.columns([1.15, 2])
    left.markdown(text)
    left.latex(r"w_{ij} = \operatorname{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right)")
    with right:
        show(fig, name, key=f"fig-{name}")


def downloads(name: str) -> None:
    left, right = st.columns(2)
    left.download_button("⬇️ This matrix as CSV", b"", file_name=f"{name}.csv", key=f"csv-{name}", on_click="ignore")
    right.download_button("⬇️ All intermediates (.npz)", b"", file_name=f"{name}.npz", key=f"npz-{name}",
                          on_click="ignore")


def step_header() -> None:
    st.success("✅ Matches the model: (floor: no model here).")
    token_chips()


def _pick_token() -> None:
    st.session_state["token"] = st.session_state.get("token_chips")


def token_chips() -> None:
    """The app's token chips: a click selects the token (the sidebar follows), as in the app."""
    if not S["teaching"] and len(S["tokens"]) <= 40:
        st.session_state["token_chips"] = S["token"]
        st.pills("Click a token to follow its row", list(range(len(S["tokens"]))), key="token_chips",
                 format_func=lambda j: S["tokens"][j], on_change=_pick_token)


def walkthrough() -> None:
    """The app's “Play the four steps” (ui/walkthrough.py's figure, its frames from random q, K, V), drawn once
    asked for as in the app, its text, download and expander."""
    tokens = [*S["tokens"], HIDDEN] if S["tokens"][0] != "[CLS]" else S["tokens"]
    n, i = len(tokens), S["token"]
    st.header(f"▶ Play the four steps for “{tokens[i]}”")
    if st.session_state.get("walkthrough_shown"):
        walk = walk_through(rng.standard_normal(D_HEAD) * 4, rng.standard_normal((n, D_HEAD)) * 4,
                            rng.standard_normal((n, D_HEAD)), i)
        fig = walkthrough_figure(walk, tokens, tokens, i, f"Play the four steps for “{tokens[i]}”",
                                 teaching=S["teaching"])
        if not S["teaching"]:
            st.markdown("A floor paragraph: press Play.")
        st.plotly_chart(fig, config=figures.download_config("walkthrough", S["teaching"]), key="fig-walkthrough")
        with st.expander(figures.FIGURE_TEXT_LABEL):
            st.html(frames_text_html(tokens[i], captions(walk, tokens, tokens, i), [f.step for f in walk.frames]))
    else:
        st.markdown("A floor paragraph: what the animation shows.")
        st.button(f"▶ Show the animation for “{tokens[i]}”", key="walkthrough-show", type="primary",
                  on_click=lambda: st.session_state.update(walkthrough_shown=True))
    if S["teaching"]:
        return
    st.download_button("⬇️ The animation as one HTML file", b"", file_name="walkthrough.html",
                       key="walkthrough-html", on_click="ignore")
    st.caption("A floor caption under the figure.")


def step_nav(previous: str, following: str) -> None:
    left, _, right = st.columns(3)
    left.button(f"← Previous: {previous}", key="nav-prev")
    right.button(f"Next: {following} →", key="nav-next")
    st.button("▶ Play the four steps for the selected token (on the start page)", key="nav-play")


def home():
    st.title("Self-attention, step by step")
    st.markdown("A floor page: the same layout as the app's start page, with random numbers.")
    tokens = S["tokens"]
    st.markdown(" · ".join(f"`{t}`" for t in tokens))
    follow_the_selected_token()
    for column, name in zip(st.columns(5), ("I am good.", "it", "river bank", "long", "more")):
        column.button(name, key=f"example-{name}")
    prose(headings=2, paragraphs=12, expanders=1, alerts=1)


@st.fragment
def follow_the_selected_token():
    """What follows the selected token on the start page: a fragment, as in the app (a chip click reruns only
    this; the app's fragment also redraws the sidebar's token list, one widget, which the floor leaves as is)."""
    follow_the_token()
    tokens = S["tokens"]
    st.markdown("A floor link to the walk-through below.")
    token_chips()
    keys, last = key_columns(tokens)
    # side by side as in the app (ui/start_page.py): a figure in a column is drawn once more
    left, right = st.columns([3, 2]) if not S["teaching"] else (st.container(), st.container())
    with left:
        show(figures.matrix_heatmap(weights(len(tokens), len(keys)), tokens, keys, titled("Attention weights"),
                                    kind="weights", highlight_row=S["token"], teaching=S["teaching"],
                                    last_column=last), "home")
    with right:
        show(figures.token_lines(weights(len(tokens), len(keys)), tokens, keys,
                                 titled("The same, as lines", short=True),
                                 selected=S["token"], teaching=S["teaching"]), "home_lines")
    walkthrough()


STEP_PROSE = {  # what each app step page has beyond the floor's title, paragraph and formula (Chromium counts;
    # the "More detail" boxes of issue 41 are expanders)
    "step1_scores": dict(headings=0, paragraphs=12, expanders=3, formulas=2),
    "step2_scaling": dict(headings=1, paragraphs=10, expanders=3, formulas=1),
    "step3_softmax": dict(headings=2, paragraphs=13, expanders=2, formulas=1),
    "step4_output": dict(headings=2, paragraphs=16, expanders=4, formulas=1),
}


FIGURE_TITLES = {"step1_scores": "Step 1 · raw scores Q·Kᵀ", "step2_scaling": "Step 2 · scaled Q·Kᵀ/√d_k",
                 "step3_softmax": "Step 3 · attention weights", "step4_output": "Step 4 · output = weights·V"}


def matrix_step(title: str, name: str, kind: str, extra=None):
    def page():
        st.title(title)
        follow_the_selected_token_on_a_step(name, title, kind, extra)
    page.__name__ = name  # st.Page names a callable's page after it
    return page


@st.fragment
def follow_the_selected_token_on_a_step(name: str, title: str, kind: str, extra) -> None:
    """A step page under its title, as the app's: a fragment (a chip click reruns only this part)."""
    follow_the_token()
    step_header()
    tokens = S["tokens"]
    n = len(tokens)
    cols, last = (None, None) if kind == "vectors" else key_columns(tokens, kind)
    explained("A floor paragraph beside the matrix.",
              figures.matrix_heatmap(weights(n, D_HEAD if kind == "vectors" else len(cols)), tokens, cols,
                                     titled(FIGURE_TITLES[name]),
                                     kind=kind, highlight_row=S["token"], teaching=S["teaching"],
                                     last_column=last), name)
    if extra:
        extra(tokens)
    prose(**STEP_PROSE[name])
    downloads(name)
    step_nav("previous step", "next step")


def vectors(tokens, name):
    title = {"Q": "Q (queries)", "K": "K (keys)", "V": "V (values, used in step 4)"}[name]
    return figures.matrix_heatmap(rng.standard_normal((len(tokens), D_HEAD)), tokens, None, titled(title, short=True),
                                  kind="vectors", highlight_row=S["token"], teaching=S["teaching"],
                                  x_title="number (dimension)", y_title="token")


def step1_extra(tokens):
    for column, name in zip(st.columns(2), "QK"):  # Q and K side by side
        with column:
            show(vectors(tokens, name), f"step1_{name}", key=f"fig-{name}")
    every = every_key(tokens)
    show(figures.query_meets_keys(rng.standard_normal((len(every), D_HEAD)), rng.standard_normal(len(every)),
                                  every, tokens[S["token"]],
                                  titled(f"q({tokens[S['token']]}) × each key", short=True),
                                  teaching=S["teaching"]), "step1_meets")
    with st.expander("The scores as a table, and the values V"):
        st.dataframe({"key token": tokens, "q·k score": rng.random(len(tokens))}, hide_index=True)
        show(vectors(tokens, "V"), "step1_V", key="fig-V")


def step2_extra(tokens):
    cols, last = key_columns(tokens, "signed")
    show(figures.matrix_heatmap(rng.standard_normal((len(tokens), len(cols))), tokens, cols,
                                titled("Step 1 · raw scores Q·Kᵀ", short=True), kind="signed",
                                teaching=S["teaching"], last_column=last),
         "step2_before", key="fig-before")  # steps 1 and 2 side by side
    dims = [2, 4, 8, 16, 32, 64, 128, 384]
    show(figures.line_chart(dims, {"q·k": rng.random(8), "q·k / √d_k": rng.random(8)}, "spread", "d_k", "std"),
         "step2_spread")
    keys, _ = key_columns(tokens)
    show(figures.compare_bars({"without": weights(1, len(keys))[0], "with": weights(1, len(keys))[0]}, keys,
                              "saturation"), "step2_saturation")


def step3_extra(tokens):
    every, (keys, _) = every_key(tokens), key_columns(tokens)
    left, right = st.columns([3, 2]) if not S["teaching"] else (st.container(), st.container())
    with left:  # every key of the row, [CLS] and [SEP] included, as the app's table
        show(figures.softmax_table(rng.random((len(every), 4)), every, ("s", "s - max", "e^", "/ sum"),
                                   f"Softmax of the row of “{tokens[S['token']]}”", teaching=S["teaching"],
                                   highlight=S["token"] + 1), "step3_row")
    right.markdown("A floor paragraph beside the table.")
    show(figures.token_lines(weights(len(tokens), len(keys)), tokens, keys, titled("Step 3 · attention as lines"),
                             selected=S["token"],
                             teaching=S["teaching"]), "step3_lines")
    with st.expander("Every row sums to 1 (computed)"):
        st.dataframe({"query token": tokens, "row sum": ["1.000000"] * len(tokens)}, hide_index=True)


def step4_extra(tokens):
    keys, _ = key_columns(tokens)  # one row per key, the hidden markers' column included, then the output
    rows = [f"{share:.1%} × v({key})" for share, key in zip(weights(1, len(keys))[0], keys)] + ["= output"]
    show(figures.matrix_heatmap(weights(len(rows), D_HEAD), rows, None,
                                titled(f"Output of “{tokens[S['token']]}” as a weighted sum"),
                                kind="vectors", teaching=S["teaching"], x_title="number (dimension)",
                                y_title="weighted value", highlight_row=len(keys)), "step4_sum")
    # The end of step 4: the attention before self-attention, drawn on the sentence's first words.
    show(figures.attention_history(tokens[1:7], f"Before and with self-attention · “{S['sentence']}” · a drawing",
                                   teaching=S["teaching"]),
         "step4_history")


def pronoun():
    st.title("Does “it” look at “dog”?")
    sentence = st.text_input("Sentence", value="The dog ate the food because it was hungry.", key="pron_sentence",
                             bind="query-params", max_chars=2000)
    tokens = ["[CLS]", *words(sentence), "[SEP]"]
    teaching = S["teaching"]
    short = sentence[:40]  # the app's titles, subtitles, highlighted head and colour-bar titles
    show(figures.weight_grid(rng.random((N_LAYERS, N_HEADS)), f"Weight “it”→dog · “{short}”",
                             teaching=teaching, highlight=(5, 11), colorbar_title="on dog"), "pronoun_weights")
    show(figures.layer_head_grid(rng.random((N_LAYERS, N_HEADS)), f"Share of “it”→dog vs food · “{short}”",
                                 teaching=teaching, zmid=0.5, bound=0.5, colorbar_title="dog share"), "pronoun_grid")
    show(figures.row_bars(weights(1, len(tokens))[0], tokens, f"Attention from “it”, {layer_head_name(5, 11)}",
                          teaching=teaching, highlight=tokens.index("it") if "it" in tokens else 0), "pronoun_row")
    show(figures.line_chart(range(N_LAYERS), {"dog": rng.random(N_LAYERS), "food": rng.random(N_LAYERS)},
                            "Weight from “it” per layer", "layer", "weight", teaching=teaching), "pronoun_layers")
    st.text_input("Contrast sentence", value="The dog ate the food because it was tasty.", key="pron_contrast")
    st.radio("In the first sentence, “it” means…", ["dog", "food"], horizontal=True, key="pron_answer")
    show(figures.layer_head_grid(rng.random((N_LAYERS, N_HEADS)) - 0.5, "Change of dog's share: contrast − first",
                                 teaching=teaching, colorbar_title="change"), "pronoun_contrast")
    show(figures.layer_head_grid(rng.random((N_LAYERS, N_HEADS)), "Accuracy of each head on the built-in pairs",
                                 teaching=teaching, zmid=0.5, bound=0.5, colorbar_title="accuracy"), "pronoun_testset")
    # The app's two tables: the test set's sentences (3 columns, 16 rows) in an expander, the baselines (3 columns,
    # 5 rows) open; prose() below draws no other.
    with st.expander("A floor expander with the test set"):
        st.table([{"sentence": PARAGRAPH[:60], "pronoun": "it", "means": "dog"} for _ in range(16)])
    st.table([{"who": f"baseline {i}", "sentences right": "8 of 16", "pairs fully right": "0 of 4"} for i in range(5)])
    for number in range(3):
        st.selectbox(f"Floor choice {number + 1}", ["dog", "food", "it"], key=f"pron_choice_{number}")
    st.multiselect("Floor candidates", ["dog", "food", "it"], default=["dog", "food"], key="pron_candidates")
    st.button("Use the sidebar's sentence", key="pron_use")
    prose(headings=7, paragraphs=15, expanders=2, formulas=1, alerts=1)


def meaning():
    """The meaning page: the word and its two groups (URL-bound), its four figures (the matrix with its 7 frames) at
    the built-in bank set's size (5 + 5 sentences), its buttons and its text."""
    st.title("A word's meaning comes from its sentence")
    teaching = S["teaching"]
    for column, name in zip(st.columns(4)[1:], ("bank", "bat", "spring")):
        column.button(name, key=f"meaning_set_{name}", use_container_width=True)
    st.text_input("The word", value="bank", key="word", bind="query-params", max_chars=40)
    left, right = st.columns(2)
    left.text_area("Meaning A", value="\n".join(["The river bank."] * 5), key="meaning_a", bind="query-params")
    right.text_area("Meaning B", value="\n".join(["The bank lends."] * 5), key="meaning_b", bind="query-params")
    layers, m = N_LAYERS + 1, 10
    word = "“bank”"  # the app's titles: the word in a subtitle; its sentence labels, and short ones for a phone
    show(meaning_figures.separation_chart(rng.random(layers), rng.random(layers),
                                          f"Separation of the two meanings by layer · {word}", teaching),
         "meaning_separation")
    similarity = rng.random((layers, m, m))
    labels = [f"{'river' if i < 5 else 'money'} {i % 5 + 1}" for i in range(m)]
    show(meaning_figures.similarity_frames(similarity, labels,
                                           f"How alike the word is in each pair of sentences · {word}", teaching,
                                           split=5, short_labels=[f"{'AB'[i // 5]}{i % 5 + 1}" for i in range(m)]),
         "meaning_similarity")
    show(meaning_figures.accuracy_chart(rng.random(layers), rng.random(layers), 0.44,
                                        f"Nearest-neighbour accuracy by layer · {word}", teaching), "meaning_accuracy")
    show(meaning_figures.head_cost_bars(rng.random(N_HEADS), 0, f"Separation lost when one head of "
                                        f"{layer_name(0)} is knocked out · {word}", teaching, marked=[1]),
         "meaning_heads")
    for head in range(3):
        st.button(f"Open layer 0, head {head} in the step pages", key=f"meaning_open_{head}")
    if not teaching:
        st.download_button("⬇️ The animation as one HTML file", b"", file_name="m.html", key="meaning-html",
                           on_click="ignore")
        st.download_button("⬇️ These numbers as CSV", b"", file_name="m.csv", key="meaning-csv", on_click="ignore")
    prose(headings=4, paragraphs=9, expanders=1, formulas=1)


def multihead():
    st.title("Multi-head attention: 12 heads side by side")
    layer = st.selectbox("Layer", range(N_LAYERS), index=S["layer"], key="mh_layer")
    tokens = ["[CLS]", *S["tokens"], "[SEP]"] if S["tokens"][0] != "[CLS]" else S["tokens"]
    n = len(tokens)
    teaching = S["teaching"]
    st.success("✅ Parity with the model (floor: no model here).")
    # the app's titles: each head's detected role and share, the layer and the sentence in a subtitle
    show(figures.small_multiples(list(weights(N_HEADS * n, n).reshape(N_HEADS, n, n)), tokens,
                                 [f"H{h}: spread out / mixed 30%" for h in range(N_HEADS)],
                                 f"{layer_name(layer, capital=True)}: attention weights of all 12 heads · "
                                 f"“{S['sentence'][:40]}”", teaching=teaching),
         "multihead_heads")
    # The app's flip-through (ui/head_flip.py): 72 frames of random weights, a link per frame, its text, its file.
    roles = [[("spread out / mixed", 0.3)] * N_HEADS for _ in range(N_LAYERS)]
    links = [[f"step3_softmax?layer={layer}&head={head}" for head in range(N_HEADS)] for layer in range(N_LAYERS)]
    show(head_flipbook(weights(N_LAYERS * N_HEADS * n, n).reshape(N_LAYERS, N_HEADS, n, n), tokens, roles,
                       S["sentence"], teaching, min(S["token"] + 1, n - 1), (S["layer"], S["head"]), links),
         "multihead_all_heads", key="fig-head-flip")
    if not teaching:
        st.download_button("⬇️ All 72 heads as one HTML file (opens offline, for class)", b"",
                           file_name="multihead_all_heads.html", key="head-flip-html", on_click="ignore")
    left, right = st.columns([1.3, 1])  # the app's distance map, beside its paragraph
    with left:
        show(figures.similarity_map(rng.random((N_HEADS, N_HEADS)), [f"H{h}" for h in range(N_HEADS)],
                                    f"{layer_name(layer, capital=True)}: distance between heads' attention",
                                    teaching=teaching), "multihead_similarity")
    right.markdown(PARAGRAPH)
    for tab, name in zip(st.tabs(["Concatenated head outputs", "After W_O", "Block output"]),
                         ("concat", "projected", "block")):
        with tab:
            show(figures.matrix_heatmap(rng.standard_normal((n, D_MODEL)), tokens, None,
                                        f"{layer_name(layer, capital=True)} · {name}", kind="vectors",
                                        teaching=teaching, y_title="token", x_title="dimension",
                                        column_groups=D_HEAD if name == "concat" else None),
                 f"multihead_{name}", key=f"mh-{name}")
    prose(headings=4, paragraphs=6, expanders=1, formulas=1)


def whatif():
    st.title("What-if lab")
    st.slider("Temperature (divides the scores before softmax; 1 = normal)", 0.1, 10.0, 2.0, 0.1, key="lab_temp")
    tokens = S["tokens"]
    for name in ("normal", "variant"):
        show(figures.matrix_heatmap(weights(len(tokens)), tokens, tokens, name, teaching=S["teaching"]),
             f"whatif_{name}", key=f"wi-{name}")


def compare():
    st.title("Compare two sentences")
    left, right = st.columns(2)
    # The app's default sentences (serving/shared.py COMPARE_DEFAULTS): figures of the same size as the app's.
    first = left.text_input("First sentence", value="I sat on the river bank and watched the water.",
                            key="compare_a")
    second = right.text_input("Second sentence", value="I opened an account at the bank downtown.", key="compare_b")
    st.selectbox("Word to follow (it is in both sentences)", ["bank"], key="compare_word")
    for column, sentence in zip(st.columns(2), (first, second)):
        tokens = words(sentence)
        keys, _ = key_columns(tokens)  # the app folds the hidden markers into one column
        row = tokens.index("bank") if "bank" in tokens else 0
        with column:
            show(figures.matrix_heatmap(weights(len(tokens), len(keys)), tokens, keys,
                                        figures.figure_title("Compare · attention weights", sentence, "layer 0 head 0"),
                                        kind="weights", highlight_row=row, teaching=S["teaching"]),
                 f"compare_{sentence}", key=f"cmp-{sentence}")
    st.button("Show layer 0, head 0", key="compare_show")
    prose(paragraphs=6)


def training_lab():
    st.title("Training lab: watch one head learn")
    left, middle, right = st.columns(3)
    left.selectbox("Task", ["previous", "copy", "marker"], key="train_task")
    middle.select_slider("d_k (length of each query/key)", [8, 16, 32, 64], value=32, key="train_dk")
    right.toggle("Divide scores by √d_k", value=True, key="train_scaled")
    teaching = S["teaching"]
    setting = "previous · d_k=32 · scaled"  # the app's titles and series names (ui/training_lab.py)
    show(figures.line_chart(np.arange(301), {"loss (each step's new sentences)": rng.random(301),
                                             "looking at every allowed word evenly": rng.random(301)},
                            f"Training loss · {setting}", "training step", "loss", teaching=teaching), "training_loss")
    words8 = [f"w{i}" for i in range(8)]
    show(figures.small_multiples([weights(8) for _ in range(5)], words8,
                                 ["before training", "after 20 steps", "after 60 steps", "after 300 steps",
                                  "the right answer"],
                                 f"One sentence's attention while the head learns · {setting}", columns=5,
                                 teaching=teaching), "training_snapshots")
    curves = {name: (rng.random(151), rng.random(151), rng.random(151))
              for name in ("÷√d_k (mean, band: lowest to highest seed)", "not scaled (mean and band)")}
    disguised = "not scaled, W_Q, W_K started d_k^¼ smaller, rate ÷ √d_k (seed 0)"
    show(figures.band_panels(np.arange(151), {f"d_k = {d}": {**curves, disguised: (rng.random(151), None, None)}
                                              for d in (8, 64, 512)},
                             "Training loss with and without ÷√d_k, 3 seeds · task: previous", "training step",
                             "loss (log scale)", teaching=teaching),
         "training_compare")  # the app's three panels: two bands (3 seeds) and one line each
    # the app's comparison table: 6 rows (three d_k, scaled or not) of 7 columns, as text
    st.dataframe({f"column {c}": [f"{rng.random():.3f} (0.1 to 0.2)" for _ in range(6)] for c in range(7)},
                 hide_index=True)
    tokens = S["tokens"]
    # a soft row's and a saturated row's, side by side as the app draws them (stacked in teaching mode)
    columns = st.columns(2) if not teaching else (st.container(), st.container())
    for column, kind in zip(columns, ("soft", "saturated")):
        with column:  # the app's titles and axis titles (a narrow place wraps them)
            every = every_key(tokens)  # the app's Jacobians are over every key of the row, [CLS] and [SEP] too
            show(figures.matrix_heatmap(rng.standard_normal((len(every), len(every))), every, every,
                                        f"Softmax Jacobian · {kind} row of “{tokens[0]}”, head {S['head']}"
                                        + (" without ÷√d_k" if kind == "saturated" else ""), kind="signed",
                                        teaching=teaching, x_title="score nudged (j)",
                                        y_title="weight that moves (i)", bound=0.25),
                 f"training_jacobian_{kind}", key=f"fig-{kind}")
    st.toggle("Run the comparison", value=True, key="train_compare")
    # The app's paragraphs here are longer than elsewhere (9,500 characters of text in all, counted in Chromium).
    prose(headings=4, paragraphs=13, expanders=1, formulas=1, paragraph=PARAGRAPH + PARAGRAPH[:250])


def quiz():
    st.title("Check yourself")
    for number in range(3):
        st.radio(f"Question {number + 1}", ["a", "b", "c"], index=None, key=f"quiz_{number}")


def glossary():
    st.title("Glossary")
    for term in ("attention", "query", "key", "value", "softmax", "head", "layer", "token"):
        st.markdown(f"**{term}**: a floor sentence.")


st.set_page_config(page_title="Floor: bare Streamlit", page_icon="🔎", layout="wide")
pages = {
    "Start": [st.Page(home, title="What self-attention does", url_path="home", default=True)],
    "The four steps": [
        st.Page(matrix_step("Step 1 · Query·Key scores", "step1_scores", "signed", step1_extra),
                title="1 · Query·Key scores", url_path="step1_scores"),
        st.Page(matrix_step("Step 2 · Scaling by √d_k", "step2_scaling", "signed", step2_extra),
                title="2 · Scaling by √d_k", url_path="step2_scaling"),
        st.Page(matrix_step("Step 3 · Softmax turns scores into attention weights", "step3_softmax", "weights",
                            step3_extra), title="3 · Softmax → weights", url_path="step3_softmax"),
        st.Page(matrix_step("Step 4 · Output = weights·V", "step4_output", "vectors", step4_extra),
                title="4 · Output = weights·V", url_path="step4_output"),
        st.Page(compare, title="Compare two sentences", url_path="compare"),
    ],
    "Going further": [
        st.Page(pronoun, title="Does “it” look at “dog”?", url_path="pronoun"),
        st.Page(meaning, title="A word's meaning comes from its sentence", url_path="meaning"),
        st.Page(multihead, title="Multi-head attention", url_path="multihead"),
        st.Page(whatif, title="What-if lab", url_path="whatif"),
        st.Page(training_lab, title="Training lab", url_path="training"),
        st.Page(quiz, title="Check yourself", url_path="quiz"),
        st.Page(glossary, title="Glossary", url_path="glossary"),
    ],
}
navigation = st.navigation(pages, position="hidden")  # the app's own page menu, as the app draws it
page_menu(pages)
S = sidebar()
# The same figure toolbar as the app's, and the same cell-value fitting (it also relays out a figure narrower than
# 520 px, e.g. the compare page's two half-width heatmaps, which is a second draw the floor must pay too).
st.sidebar.html(figures.SVG_EXPORT_HTML + figures.FIT_CELL_TEXT_HTML, unsafe_allow_javascript=True)
navigation.run()
