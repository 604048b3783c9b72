"""Self-attention itself, in numpy: the mechanism (core.py) and access to the model (model.py, bert.py). Small
enough to read in a minute; what the lessons measure with it lives one layer up, in lessons/. The bottom layer:
it imports none of the app's other folders."""

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
