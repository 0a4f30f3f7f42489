"""How to play each game, for people who have never seen a Shibumi set.

The API (stable; the terminal's ``help rules`` and the browser's "How to play" panel use it):

``help_games()``
    The names of the games whose kit has a how-to, as ``spheria games`` lists them.
``howto(game_name, width=78, lang="en") -> str``
    The whole text as plain text: headings underlined, paragraphs wrapped to ``width``,
    pictures of positions drawn as ``spheria play`` draws the board. ``game_name`` may be
    written as its title, with ``_`` or with ``-`` (see :func:`help_key`); an unknown name raises
    ``ValueError``. ``lang`` is one of :data:`spheria.i18n.LANGUAGES` (another raises
    ``ValueError``); a section the catalogue lacks is shown in English.
``howto_blocks(game_name, lang="en") -> list[HelpBlock]``
    The same text as blocks, for an interface that lays text out itself. Each block has a
    ``kind``: ``"heading"``, ``"paragraph"``, ``"item"`` (one list item), ``"pre"`` (keep
    line breaks and spacing) or ``"position"``. Its ``text`` is unwrapped prose (an item's
    starts with its marker, ``"- "`` or ``"1. "``), or for ``"pre"`` and ``"position"`` the
    lines to show as they are. A ``"position"`` block also
    carries ``spn`` (the position, in the game's notation with its default options) and
    ``move`` (the move shown being played from it, or ``None``); ``after_spn`` is the
    position after that move. Its ``text`` draws the position, the move and the result.
``howto_source(game_name, lang="en") -> str``
    The markup the blocks are read from, translated (see below).
``render_block(block, width=78) -> str``
    One block as ``howto`` writes it (for an interface that styles headings or pictures).

Each game offers its English text through its kit (:attr:`spheria.kernel.kit.GameKit.howto`,
in the game's ``howto.py``), section by section: each section, from one ``# `` heading to the
next, is one ``N_``-marked message of the catalogue, translated when shown (see docs/i18n.md);
nothing here holds prose. The texts are read in the terminal and in the browser alike, so they
never say "type" or "click": a move is described by how it is written. Their light markup:

- ``# Title`` starts a section;
- a run of lines is one paragraph; ``- `` starts a list item (continued by indented lines);
- lines indented by four spaces are drawn as they are (a small table);
- ``[[board SPN]]`` draws that position of the game as Spheria draws it;
- ``[[play SPN | MOVE]]`` draws the position, the move, and the position after it.

Positions and moves inside ``[[...]]`` are notation, not prose: a translation keeps them as they
are, and they are the same in every language. The tests play every one of them with the engine,
so the pictures cannot drift from the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from spheria.i18n import translation, using
from spheria.i18n.width import display_width, fill
from spheria.kernel.game import State
from spheria.kernel.registry import game_class, game_classes, load_game


#: The games whose kit offers a how-to, by name.
def help_games() -> tuple[str, ...]:
    """The names of the games whose kit has a how-to, in the registry's order."""
    return tuple(cls.name for cls in game_classes() if cls.kit().howto)


BlockKind = Literal["heading", "paragraph", "item", "pre", "position"]


@dataclass(frozen=True)
class HelpBlock:
    """One piece of a how-to text; see the module docstring."""

    kind: BlockKind
    text: str
    spn: str | None = None
    move: str | None = None
    after_spn: str | None = None


_POSITION = re.compile(r"^\[\[(board|play) ([^|\]]+?)(?: \| ([^\]]+))?\]\]$")
_ITEM = re.compile(r"^(- |\d+\. )")
_PRE_INDENT = "    "


def help_key(game_name: str) -> str:
    """A game's title, or its name with ``_`` or ``-``, as its name.

    >>> help_key(" Tic Tac Toe"), help_key("tic_tac_toe"), help_key("tic-tac-toe")
    ('tic-tac-toe', 'tic-tac-toe', 'tic-tac-toe')
    """
    return "-".join(game_name.strip().lower().replace("_", " ").split())


def _key(game_name: str) -> str:
    key = help_key(game_name)
    if key not in help_games():
        raise ValueError(f"no how-to for {game_name!r}; games: {', '.join(help_games())}")
    return key


def howto_source(game_name: str, lang: str = "en") -> str:
    """The how-to markup of ``game_name`` in ``lang``, section by section from the catalogue."""
    sections = game_class(_key(game_name)).kit().howto
    gettext = translation(lang).gettext
    return "\n\n".join(gettext(section).strip("\n") for section in sections) + "\n"


def howto_blocks(game_name: str, lang: str = "en") -> list[HelpBlock]:
    """The text of ``game_name`` in ``lang`` as blocks (see the module docstring)."""
    key = _key(game_name)
    source = howto_source(key, lang)
    blocks: list[HelpBlock] = []
    lines: list[str] = []
    kind: BlockKind = "paragraph"

    def flush() -> None:
        if lines:
            if kind == "pre":
                blocks.append(HelpBlock("pre", "\n".join(line[len(_PRE_INDENT) :] for line in lines)))
            else:
                blocks.append(HelpBlock(kind, " ".join(line.strip() for line in lines)))
            lines.clear()

    for line in source.splitlines():
        position = _POSITION.match(line.strip())
        if not line.strip():
            flush()
        elif line.startswith("# "):
            flush()
            blocks.append(HelpBlock("heading", line[2:].strip()))
        elif position:
            flush()
            with using(lang):  # the board's level headings in the text's language
                blocks.append(_position_block(key, position.group(2).strip(), position.group(3)))
        elif line.startswith(_PRE_INDENT):
            if kind != "pre":
                flush()
            kind = "pre"
            lines.append(line)
        elif _ITEM.match(line) or kind == "pre" or (kind == "item" and not line.startswith(" ")):
            flush()
            kind = "item" if _ITEM.match(line) else "paragraph"
            lines.append(line)
        else:
            if not lines:
                kind = "paragraph"
            lines.append(line)
    flush()
    return blocks


def _position_block(game_name: str, spn: str, move: str | None) -> HelpBlock:
    """Draw ``spn`` (and the effect of ``move``) with the engine, as the terminal draws a game."""
    state: State[Any] = load_game(game_name).state_from_spn(spn)
    before = str(state)
    if move is None:
        return HelpBlock("position", before, spn=spn)
    move = move.strip()
    state.apply_notation(move)
    arrow = f"        |  {move}\n        v"
    return HelpBlock("position", f"{before}\n{arrow}\n{state}", spn=spn, move=move, after_spn=state.to_spn())


def howto(game_name: str, width: int = 78, lang: str = "en") -> str:
    """The how-to of ``game_name`` in ``lang`` as plain text wrapped to ``width`` columns."""
    parts: list[str] = []
    previous = ""
    for block in howto_blocks(game_name, lang):
        if block.kind == "item" and previous == "item":  # a list stays one paragraph
            parts[-1] += "\n" + render_block(block, width)
        else:
            parts.append(render_block(block, width))
        previous = block.kind
    return "\n\n".join(parts) + "\n"


def render_block(block: HelpBlock, width: int = 78) -> str:
    """One block as plain text: a heading underlined, prose wrapped to ``width``, pictures as drawn."""
    if block.kind == "heading":
        return f"{block.text}\n{'-' * display_width(block.text)}"
    if block.kind == "paragraph":
        return fill(block.text, width)
    if block.kind == "item":
        marker = _ITEM.match(block.text)
        indent = " " * (len(marker.group(1)) if marker else 2)
        return fill(block.text, width, subsequent_indent=indent)
    return block.text


__all__ = ["HelpBlock", "help_games", "help_key", "howto", "howto_blocks", "howto_source", "render_block"]
