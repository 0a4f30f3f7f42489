"""The pyramid as an RGB image (numpy only): what PettingZoo's ``render_mode="rgb_array"`` returns.

Seen from above: the 4x4 balls of level 0, each higher level's balls over the gaps of the one
below and drawn over them, as on the table. An empty site of level 0 shows as a dark hollow;
an empty site above shows nothing.

>>> image = pyramid_image(Board.from_spn("w.............../........./..../."))
>>> image.shape, image.dtype.name
((200, 200, 3), 'uint8')
>>> image[-MARGIN - CELL // 2, MARGIN + CELL // 2].tolist()  # the white ball on 0a1, bottom left
[236, 234, 224]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spheria.engine.board import LEVEL_SIZES, NUM_SITES, SITE_COORDS, Board

#: Colours (RGB) of the table, a hollow, an outline and the white, black and red balls.
TABLE = (176, 134, 96)
HOLLOW = (120, 86, 58)
OUTLINE = (40, 30, 20)
BALLS = ((236, 234, 224), (34, 34, 38), (196, 36, 44))

CELL = 48
MARGIN = 4


def board_of(state: Any) -> Board:
    """The board of any Spheria state (the first field of its SPN)."""
    return Board.from_spn(state.to_spn().split()[0])


def _disk(image: np.ndarray, center: tuple[float, float], radius: float, color: tuple[int, int, int]) -> None:
    cx, cy = center
    top, bottom = int(cy - radius), int(cy + radius) + 1
    left, right = int(cx - radius), int(cx + radius) + 1
    ys, xs = np.ogrid[top:bottom, left:right]
    inside = (xs - cx) ** 2 + (ys - cy) ** 2 <= radius**2
    image[top:bottom, left:right][inside] = color


def pyramid_image(board: Board, cell: int = CELL) -> np.ndarray:
    """An ``(H, W, 3)`` ``uint8`` picture of ``board``; each level-0 site is ``cell`` pixels wide."""
    size = LEVEL_SIZES[0] * cell + 2 * MARGIN
    image = np.empty((size, size, 3), np.uint8)
    image[:, :] = TABLE
    radius = cell * 0.47
    for site in range(NUM_SITES):  # sites run level by level, so higher balls are drawn on top
        level, row, col = SITE_COORDS[site]
        center = (MARGIN + (col + 0.5 + level / 2) * cell, MARGIN + (row + 0.5 + level / 2) * cell)
        color = board.color_at(site)
        if color is None:
            if level == 0:
                _disk(image, center, radius * 0.55, HOLLOW)
            continue
        _disk(image, center, radius, OUTLINE)
        _disk(image, center, radius - max(1.0, cell / 24), BALLS[color])
    return image[::-1].copy()  # rank 1 at the bottom, as the diagrams print it


__all__ = ["BALLS", "board_of", "pyramid_image"]
