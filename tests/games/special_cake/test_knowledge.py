"""benchmarks/cake_eval.py: the held-out AUC, the features, the fit, and its need for the mint table."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import cake_eval
from spheria.engine.board import TOP
from spheria.games.special_cake.eating_table import EatingTableProbe


def test_auc_counts_the_pairs_ranked_right_and_ties_half() -> None:
    assert cake_eval.auc([3.0, 2.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0])["auc"] == 1.0
    assert cake_eval.auc([0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 0.0, 0.0])["auc"] == 0.0
    assert cake_eval.auc([1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0])["auc"] == 0.5
    # one lost cake above one of two won cakes and below the other: half the pairs
    result = cake_eval.auc([2.0, 3.0, 1.0], [1.0, 0.0, 0.0])
    assert result["auc"] == 0.5 and result["low"] < 0.5 < result["high"] and result["lost"] == 1.0


def test_features_read_colours_and_mixed_segments() -> None:
    white, black = 0b01, 0b10  # 0a1 mint, 0a2 liquorice: the segments from 0a1 along the row hold both
    x = cake_eval.features((white, black, 0))
    assert len(x) == 1 + TOP + len(cake_eval.SEGMENT_MASKS)
    assert x[:3] == [1.0, 1.0, -1.0]
    mixed = [m for m, v in zip(cake_eval.SEGMENT_MASKS, x[1 + TOP :], strict=True) if v]
    assert mixed == [0b11, 0b111, 0b1111]


def test_the_fit_learns_a_separable_rule() -> None:
    rows = [[1.0, float(v)] for v in (-1, -1, 1, 1, -1, 1)]
    labels = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    weights = cake_eval.fit(rows, labels, epochs=200)
    assert cake_eval.auc([cake_eval.score(weights, x) for x in rows], labels)["auc"] == 1.0
    assert weights[1] > 0


def test_without_the_mint_table_it_says_what_to_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cake_eval, "shared_probe", lambda: EatingTableProbe(tmp_path))
    with pytest.raises(SystemExit, match="spheria tablebase build --variant mint"):
        cake_eval.mint_cakes(3, 0)
