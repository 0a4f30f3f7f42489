"""The retrograde solution of Special Cake mint: an eating-phase table built level by level.

Every eating position of mint (a stable shape coloured with at most 15 mint and 15 liquorice
candies) gets one bit, "the player to move wins", computed in order of candy count: a move
eats one to four candies, so each level reads only the four below it. The builder is a C
program (``tbbuild.c``) compiled on first use by :mod:`spheria.games.special_cake.tablebase.build` and run by
``spheria tablebase build``; it checkpoints each finished level and resumes from them.
:mod:`spheria.games.special_cake.tablebase.layout` numbers the positions and reads the level files in pure
Python, and :mod:`spheria.games.special_cake.tablebase.verify` checks them against the search solver.
See docs/tablebase.md.
"""
