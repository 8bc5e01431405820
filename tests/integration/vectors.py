"""Unit vectors at chosen closeness, for tests that place memories by hand in the vector space."""

from __future__ import annotations

import numpy as np

DIM = 384


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def near(base: np.ndarray, seed: int, weight: float) -> np.ndarray:
    """A vector at a chosen closeness to `base` (weight 1: the same; 0: unrelated)."""
    vector = weight * base + (1 - weight) * unit(seed)
    return (vector / np.linalg.norm(vector)).astype(np.float32)
