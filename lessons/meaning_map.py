"""The meaning page's 2-D map: the word's vector in every sentence, after every layer, drawn as a point on a plane.

How the map is made (the page says so beside it):
1. every vector is scaled to length 1, since the page compares the word's vectors by direction (cosine);
2. each layer's vectors are shifted so that their mean is at the centre: the map shows how the sentences differ
   from each other within a layer, not how the whole cloud drifts from layer to layer (that drift is most of the
   vectors' spread, and a map fitted to it showed little else);
3. ONE principal component analysis (PCA) is fitted on every layer's and every sentence's vectors together, the
   model's and the control's (self-only attention) alike, so the two axes stay the same in every frame and neither
   run chooses them alone. The axes are the two directions along which these vectors spread the most; everything
   in the other directions is dropped. The share of the spread the axes keep is measured for all the vectors (the
   PCA's explained variance), and for each run on its own: a run whose vectors vary in directions the axes miss
   looks tighter on the map than it is. (Fitted on the model's vectors alone, the axes kept 8-11 % of the
   control's spread on the built-in words, against 19-26 % pooled, for about the same share of the model's.)

Pure numpy; computed by lessons/meaning.py measure() from the vectors it already has (no extra model pass); the
page's words about it are in ui/sections/meaning_map.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

AXES = 2
# On the map the two groups "move apart" when the distance between their centres after the last layer is at least
# this many times the embedding's, and larger, measured against the spread of each group, than in the embedding.
APART_FACTOR = 2.0


@dataclass
class MeaningMap:
    points: np.ndarray        # [n_layers + 1, m, 2] the model's vectors on the map
    control: np.ndarray       # [n_layers + 1, m, 2] the control's vectors on the same map
    axis_shares: np.ndarray   # [2] the PCA's explained variance: each axis' share of the spread of every vector fitted
    model_kept: float         # the share of the model's own spread the two axes keep
    control_kept: float       # the share of the control's own spread the two axes keep

    @property
    def kept(self) -> float:
        """The share of the spread of every vector fitted that the two axes keep together; the rest is off the map."""
        return float(self.axis_shares.sum())


def prepared(vectors: np.ndarray) -> np.ndarray:
    """Steps 1 and 2: [n_layers + 1, m, d] -> every vector of length 1, each layer centred on its mean."""
    vectors = np.asarray(vectors, dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)
    return unit - unit.mean(axis=1, keepdims=True)


def fit_map(vectors: np.ndarray, control: np.ndarray) -> MeaningMap:
    """Step 3: one PCA of both runs' prepared vectors pooled over every layer and sentence; both placed with it.

    The pooled vectors' mean is 0 already (each layer of each run is centred), so the axes are the top right
    singular vectors of the pooled matrix. Each axis' sign is chosen so its largest loading is positive (a fixed
    choice: a PCA's sign is arbitrary)."""
    model_prepared, control_prepared = prepared(vectors), prepared(control)
    pooled = np.concatenate([model_prepared.reshape(-1, model_prepared.shape[-1]),
                             control_prepared.reshape(-1, control_prepared.shape[-1])])
    _, singular, rows = np.linalg.svd(pooled, full_matrices=False)
    axes = rows[:AXES]
    axes = axes * np.where(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)] < 0, -1.0, 1.0)[:, None]
    total = float((singular ** 2).sum())
    shares = singular[:AXES] ** 2 / total if total > 0 else np.zeros(AXES)
    points, placed = model_prepared @ axes.T, control_prepared @ axes.T
    return MeaningMap(points=points, control=placed, axis_shares=np.asarray(shares, dtype=np.float64),
                      model_kept=_kept(points, model_prepared), control_kept=_kept(placed, control_prepared))


def _kept(on_map: np.ndarray, prepared_vectors: np.ndarray) -> float:
    total = float((prepared_vectors ** 2).sum())
    return float((on_map ** 2).sum() / total) if total > 0 else 0.0


def centre_gaps(points: np.ndarray, meaning: np.ndarray) -> np.ndarray:
    """[n_layers + 1]: per layer, the distance on the map between the two groups' centres (their mean points)."""
    meaning = np.asarray(meaning)
    return np.linalg.norm(points[:, meaning == 0].mean(axis=1) - points[:, meaning == 1].mean(axis=1), axis=-1)


def group_spreads(points: np.ndarray, meaning: np.ndarray) -> np.ndarray:
    """[n_layers + 1]: per layer, the mean distance of a point from its own group's centre."""
    meaning = np.asarray(meaning)
    spreads = np.zeros(points.shape[0])
    for group in (0, 1):
        own = points[:, meaning == group]
        spreads += np.linalg.norm(own - own.mean(axis=1, keepdims=True), axis=-1).sum(axis=1)
    return spreads / len(meaning)


def distinct_dots(points: np.ndarray) -> int:
    """[m, 2] -> how many separate dots m points make: the same vector (the same word at the same place, before
    attention or in the control) lands on the same spot, and those dots lie on top of each other."""
    scale = max(float(np.abs(points).max()), 1e-12)
    return len({tuple(row) for row in np.round(points / scale, 6)})


def moves_apart(points: np.ndarray, meaning: np.ndarray) -> bool:
    """Whether, on the map, the two groups end farther apart than they start: the centres' distance after the last
    layer at least APART_FACTOR times the embedding's, and larger against each group's spread."""
    gaps, spreads = centre_gaps(points, meaning), np.maximum(group_spreads(points, meaning), 1e-12)
    return bool(gaps[-1] >= APART_FACTOR * gaps[0] and gaps[-1] / spreads[-1] > gaps[0] / spreads[0])


# --- what the map shows, against the full measurement ----------------------------------------------

@dataclass(frozen=True)
class MapFacts:
    """The map's numbers the page states, and how the map agrees with the measurement on every number."""
    gaps: np.ndarray                 # [n_layers + 1] the distance between the groups' centres, the model
    control_gaps: np.ndarray         # the same, the control
    top: int                         # the hidden state where the model's centres are farthest apart
    sentences: int
    first_dots: int                  # separate dots in the embedding (the same word at the same place: one dot)
    control_last_dots: int           # separate dots of the control after the last layer
    on_map: bool                     # the model's groups move apart on the map (moves_apart)
    separates: bool                  # the model's separation grows, measured on every number
    control_on_map: bool
    control_separates: bool

    @property
    def last(self) -> int:
        return len(self.gaps) - 1

    @property
    def dots_overlap(self) -> bool:
        return self.first_dots < self.sentences


def map_facts(word_map: MeaningMap, meaning, separates: bool, control_separates: bool) -> MapFacts:
    """separates, control_separates: whether the model's and the control's separation grows, measured on every
    number (lessons/meaning.py)."""
    gaps = centre_gaps(word_map.points, meaning)
    return MapFacts(gaps=gaps, control_gaps=centre_gaps(word_map.control, meaning), top=int(np.argmax(gaps)),
                    sentences=len(meaning), first_dots=distinct_dots(word_map.points[0]),
                    control_last_dots=distinct_dots(word_map.control[-1]),
                    on_map=moves_apart(word_map.points, meaning), separates=bool(separates),
                    control_on_map=moves_apart(word_map.control, meaning), control_separates=bool(control_separates))
