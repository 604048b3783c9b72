"""The self-attention explainer's computation, in numpy: the core (core.py), model access (model.py, bert.py) and
the measurements and verdicts the pages show (explain, heads, whatif, walkthrough, pronoun, training, training_lab,
questions). The bottom layer: it imports none of the app's other folders."""

from .core import (MASKED, AttentionInputError, AttentionSteps, HeadWeights, attention, attention_rollout,
                   causal_mask, identity_projection, layer_norm, learned_projection, merge_heads, multi_head,
                   padding_mask, project, random_projection, random_weights, raw_scores, row_entropy, run_steps,
                   scale_scores, softmax, split_heads, weighted_sum)

__all__ = [
    "MASKED", "AttentionInputError", "AttentionSteps", "HeadWeights", "attention", "attention_rollout",
    "causal_mask", "identity_projection", "layer_norm", "learned_projection", "merge_heads", "multi_head",
    "padding_mask", "project", "random_projection", "random_weights", "raw_scores", "row_entropy",
    "run_steps", "scale_scores", "softmax", "split_heads", "weighted_sum",
]
