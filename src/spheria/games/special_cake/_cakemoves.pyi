"""Type stub of the compiled eating-move generator (``_cakemoves.c``)."""

from collections.abc import Sequence
from typing import Any

def init(
    above: Sequence[int], chains: Sequence[Sequence[int]], segments: Sequence[Sequence[int]], moves: tuple[Any, ...]
) -> None: ...
def eating_moves(white: int, black: int, red: int, cherry: bool, rule: int) -> dict[Any, tuple[int, int, int]]: ...
