"""Type stub of the compiled search (``_cakesolver.c``)."""

from collections.abc import Callable, Sequence

def init(
    above: Sequence[int],
    chains: Sequence[Sequence[int]],
    segments: Sequence[Sequence[int]],
    symmetries: Sequence[Sequence[int]],
) -> None: ...

class Search:
    """A solver for one rule set (variant 0 mint, 1 sugar, 2 poisoned; line_rule 0 mixed, 1 any, 2 same)."""

    def __init__(self, variant: int, line_rule: int, max_table_bits: int = 26) -> None: ...
    def value(
        self,
        white: int,
        black: int,
        red: int,
        time_limit: float = -1.0,
        progress: Callable[[int], object] | None = None,
    ) -> int: ...
    def children(self, white: int, black: int, red: int) -> list[tuple[int, int, int]]: ...
    def canonical(self, white: int, black: int, red: int) -> tuple[int, int, int]: ...
    def clear(self) -> None: ...
    @property
    def positions(self) -> int: ...
    @property
    def table_entries(self) -> int: ...
    @property
    def table_capacity(self) -> int: ...
