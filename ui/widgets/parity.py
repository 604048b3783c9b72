"""The parity badge: how close a page's numbers are to the model's own, and the on-demand PyTorch check."""

from __future__ import annotations

import logging

import streamlit as st

from attention.model import ModelLoadError, pytorch_allowed
from lessons import explain
from serving.models import reference_model
from ui.text import layer_head_name, plain_small
from ui.view import View

_LOGGER = logging.getLogger(__name__)


def parity_badge(view: View) -> None:
    """One line a student can read; the exact statement and the PyTorch check in an expander. Not on slides."""
    s = view.settings
    if view.is_toy:
        st.info(f"**Toy numbers.** Q, K and V come from {view.label}, not from the model's attention: the same "
                "four steps, over the words shown. Choose “learned” in the sidebar for the model's own numbers.")
        return
    if s.teaching:
        return
    ok = view.parity <= 1e-5
    where = layer_head_name(s.layer, s.head, view.model.n_layers)
    (st.success if ok else st.warning)(
        f"✓ The same numbers as the model ({where})." if ok else
        f"⚠️ These numbers differ from the model's own ({where}) by {view.parity:.5f}.")
    with st.expander("What exactly is compared?"):
        st.markdown(
            f"The page computes the four steps itself: the model's learned W_Q, W_K and W_V for {where}, "
            f"applied to the vectors that enter that layer, over the whole sentence with [CLS] and [SEP]. "
            f"Its attention weights are compared with the attention probabilities the model reports for the "
            f"same layer and head. Largest difference over all {view.analysis.n_tokens} × "
            f"{view.analysis.n_tokens} weights: {plain_small(view.parity)} ({view.parity:.1e}).")
        if view.model.backend == "numpy":
            if pytorch_allowed():
                st.markdown("Here the model itself runs as a short numpy program (attention/bert.py) with its own "
                            "trained weights. The button runs the original model with PyTorch "
                            "(sentence-transformers) instead, an independent reference.")
                pytorch_check_button(view)
            else:  # PyTorch would stay in the server's memory (+500 MB) after one click
                st.markdown("Here the model itself runs as a short numpy program (attention/bert.py) with its own "
                            "trained weights. The check against the original model in PyTorch is switched off "
                            "on this server; whoever runs it can turn it on with ATTENTION_PYTORCH=on.")


def pytorch_gap(view: View) -> float:
    """Max |this page's weights - PyTorch's attention| for the view's sentence, layer and head."""
    s = view.settings
    reference = reference_model(s.model_name)  # the same allow-list as the page's model
    return explain.reference_gap(reference, view.analysis.sentence, s.layer, s.head, view.full.weights)


def pytorch_check_button(view: View) -> None:
    """Run the independent PyTorch reference on demand; remember the result for this sentence/layer/head."""
    s = view.settings
    checks = st.session_state.setdefault("_pytorch_checks", {})
    key = (s.model_name, view.analysis.sentence, s.layer, s.head)
    if st.button("Check against PyTorch now", key="pytorch-check"):
        with st.spinner("Loading PyTorch and the original model (the first time takes up to a minute)…"):
            try:
                checks[key] = pytorch_gap(view)
            except ModelLoadError as error:
                _LOGGER.warning("the PyTorch check could not load its model: %s", error)  # details: the log only
                st.error("PyTorch or the original model could not be loaded on this server, so this check "
                         "cannot run here.")
    if key in checks:
        gap = checks[key]
        (st.success if gap <= 1e-5 else st.warning)(
            f"PyTorch's own attention for this sentence, {layer_head_name(s.layer, s.head, view.model.n_layers)} differs from this "
            f"page's weights by {plain_small(gap, at_most=True)} ({gap:.1e}).")
