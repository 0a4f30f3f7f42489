"""Every sentence Pile shows a person (a real game's are translated; this one stays English)."""

from __future__ import annotations

from spheria.i18n import N_

STONES_LEFT = N_("{stones} stones left")
TAKE = N_("take 1 or 2 stones, e.g. 1")
TOOK_LAST = N_("{name} took the last stone and wins.")
#: Its option's label for the pages (the server sends it; no page catalogue names it).
OPTION_STONES = N_("stones to begin with")
