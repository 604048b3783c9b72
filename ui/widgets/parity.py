"""The parity badge: how close a page's numbers are to the model's own, and the on-demand PyTorch check."""

from __future__ import annotations

import logging

import streamlit as st

from attention.model import ModelLoadError, pytorch_allowed
from lessons import explain
from serving.models import reference_model
from ui.content import words
from ui.text import layer_head_name, plain_small
from ui.view import View

_LOGGER = logging.getLogger(__name__)


def parity_badge(view: View) -> None:
    """One line a student can read; the exact statement and the PyTorch check in an expander. Not on slides."""
    s = view.settings
    if view.is_toy:
        st.info(words("parity.toy", projection=view.label))
        return
    if s.teaching:
        return
    ok = view.parity <= 1e-5
    where = layer_head_name(s.layer, s.head, view.model.n_layers)
    (st.success if ok else st.warning)(
        words("parity.same", head_name=where) if ok else
        words("parity.differ", head_name=where, gap=f"{view.parity:.5f}"))
    with st.expander(words("parity.what_box")):
        st.markdown(words("parity.what_compared", head_name=where, n_tokens=view.analysis.n_tokens,
                          gap_plain=plain_small(view.parity), gap_exp=f"{view.parity:.1e}"))
        if view.model.backend == "numpy":
            if pytorch_allowed():
                st.markdown(words("parity.numpy_runs"))
                pytorch_check_button(view)
            else:  # PyTorch would stay in the server's memory (+500 MB) after one click
                st.markdown(words("parity.numpy_runs_no_pytorch"))


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
    if st.button(words("parity.check_button"), key="pytorch-check"):
        with st.spinner(words("parity.check_loading")):
            try:
                checks[key] = pytorch_gap(view)
            except ModelLoadError as error:
                _LOGGER.warning("the PyTorch check could not load its model: %s", error)  # details: the log only
                st.error(words("parity.check_failed"))
    if key in checks:
        gap = checks[key]
        (st.success if gap <= 1e-5 else st.warning)(
            words("parity.check_result", head_name=layer_head_name(s.layer, s.head, view.model.n_layers),
                  gap_plain=plain_small(gap, at_most=True), gap_exp=f"{gap:.1e}"))
