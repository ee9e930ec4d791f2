"""Relabelling cards in engine rows and feature vectors: the mechanics both games'
symmetry modules (:mod:`pasur_env.pasur.symmetry`, :mod:`pasur_env.rummy.symmetry`)
share. Which relabellings are symmetries is each game's own rule; how a permutation
moves bits of a card set and columns of a one-hot card plane is the same for both.

A permutation ``perm`` maps card ``c`` to ``perm[c]`` (``len(perm)`` cards: 52 in
Pasur, 56 in Persian Rummy).
"""

from __future__ import annotations

import numpy as np

__all__ = ["relabel_masks", "relabel_ids", "relabel_states", "plane_permutation"]


def relabel_masks(masks: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Card sets (int64 bit masks, any shape) with every card ``c`` moved to ``perm[c]``."""
    masks = np.asarray(masks, dtype=np.int64)
    new = np.zeros_like(masks)
    for c, d in enumerate(np.asarray(perm, dtype=np.int64)):
        new |= ((masks >> c) & 1) << d
    return new


def relabel_ids(ids: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Card ids (any shape) relabelled by ``perm``; negative entries (no card) stay."""
    ids = np.asarray(ids, dtype=np.int64)
    perm = np.asarray(perm, dtype=np.int64)
    return np.where(ids >= 0, perm[np.clip(ids, 0, perm.size - 1)], ids)


def relabel_states(states: np.ndarray, perm: np.ndarray, mask_cols: np.ndarray,
                   id_cols: np.ndarray) -> np.ndarray:
    """A copy of engine rows ``states`` (n, NCOL) whose card-set columns ``mask_cols``
    and card-id columns ``id_cols`` are relabelled by ``perm``; the other columns stay."""
    out = np.array(states, dtype=np.int64, copy=True)
    out[:, mask_cols] = relabel_masks(states[:, mask_cols], perm)
    out[:, id_cols] = relabel_ids(states[:, id_cols], perm)
    return out


def plane_permutation(size: int, offsets: list[int], perm: np.ndarray) -> np.ndarray:
    """Column index ``ix`` (``size``,) that relabels the one-hot card planes starting at
    ``offsets`` of a feature vector: ``new = old[..., ix]`` puts ``old[o + c]`` at
    ``new[o + perm[c]]``; other columns stay."""
    perm = np.asarray(perm, dtype=np.int64)
    ix = np.arange(size, dtype=np.int64)
    for o in offsets:
        ix[o + perm] = o + np.arange(perm.size)
    return ix
