"""Spheria's games in the AI-research ecosystem, as optional extras the core never imports.

* :mod:`spheria.integrations.openspiel` — every game as an OpenSpiel Python game
  (``pip install 'spheria[openspiel]'``).
* :mod:`spheria.integrations.pettingzoo` — every game as a PettingZoo AEC environment
  (``pip install 'spheria[pettingzoo]'``).
* :mod:`spheria.integrations.ray_backend` — the arena's games on a Ray cluster
  (``pip install 'spheria[ray]'``, then ``spheria arena ... --backend ray``).

The OpenSpiel and PettingZoo adapters number a game's moves and build its features with the
game's codec, which the game offers through its kit (:mod:`spheria.kernel.codec`, plain
Python); they never name a game. Importing this package imports nothing from those
libraries; each module imports its own.
"""
