"""Every sentence the server words for a person: the details of its refusals (beside their stable
``code``), in one table for translation.

Each entry is a ``str.format`` template marked for the catalogue (:mod:`spheria.i18n`) and
translated where it is raised, in the language of the request or the websocket (set for the
whole request by :class:`spheria.server.app.Speaking`). The codes never change with the language.
Refusals only a program can meet (a body that is not JSON, a field the page never sends, a frame
of the wrong shape) stay English in the modules that raise them.
"""

from __future__ import annotations

from spheria.i18n import N_, N_plural

# -- what the server's terminal shows ---------------------------------------------------------------
OPEN_IN_BROWSER = N_("Spheria: open {url} in a browser (games kept in {db})")
RESUMED = N_plural("resumed {n} unfinished game", "resumed {n} unfinished games")

# -- several processes (spheria.server.cluster) ------------------------------------------------------
CLUSTER_UNAVAILABLE = N_(
    "this server cannot reach the other servers of the service just now (Redis): try again in a moment"
)

# -- positions (the editor, "play from here", a start position) ---------------------------------------
POSITION_NOT_TEXT = N_("the position (SPN) must be text")
POSITION_TOO_LONG = N_("the position is {length} characters long; SPN has at most {most}")
POSITION_NOT_ASCII = N_("the position may hold only printable ASCII characters (SPN is written with them)")
POSITION_OVER = N_("this position is already over: there is nothing left to play")
POSITION_HIDDEN = N_(
    "a set-up position of {title} shows every player's hidden balls to whoever set it up: "
    "start one with one person and agents in the other seats"
)
SYMMETRY = N_("symmetry must be a whole number 0 to {last}")

# -- games and seats -----------------------------------------------------------------------------
NO_GAME_WITH_ID = N_("no game with that id")
NO_GAME_CALLED = N_("no game called {name} (games: {games})")
NOT_FINISHED = N_("records and replays are for finished games")
TOO_MANY_NEW_GAMES = N_("too many new games from this address: wait a little")
SEAT_COUNT = N_("{title} with these options has {seats} seats; {given} given")
SEAT_NEEDS_AGENT = N_("seat {number}: an agent seat needs a spec such as 'random'")
SEAT_AGENT = N_("seat {number}: {error}")
BAD_INVITE = N_("that invite link is not valid for this game")
SEAT_TAKEN = N_("this seat was already taken by another browser")
NOT_OWNER = N_("only the game's creator may replace an invite")
INVITE_TAKEN = N_("this seat was already taken; its invite cannot be replaced")
NOT_A_SEAT_HOLDER = N_("this browser does not hold a seat in this game")
SPECTATOR = N_("spectators cannot play; open your seat's invite link")
SPECTATORS_FULL = N_("this game has as many spectators as it may")

# -- moves -------------------------------------------------------------------------------------------
STALE = N_("the game moved on since that move was chosen; look again")
GAME_OVER = N_("the game is over")
NOT_YOUR_TURN = N_("it is {name}'s turn, not yours")
NOTHING_TO_CHOOSE = N_("you have nothing to choose now")
ALREADY_CHOSEN = N_("you have already made your choice; wait for the reveal")
PREVIEW_NOT_YOURS = N_("previews are for the seat to move")
SERVER_ERROR = N_("the server could not do that; nothing was kept")
STORED_KEPT = N_("the server had trouble storing that, but it was kept")
STORED_NOT_KEPT = N_("the server could not store that; nothing was kept: try again")
TOO_MANY_FRAMES = N_("too many frames: slow down")

# -- hints ---------------------------------------------------------------------------------------------
HINTS_NEED_AGENTS = N_("hints are only for a game of one person against agents (every other seat an agent)")
HINTS_OFF = N_("this game was created without hints")
HINT_NOT_YOUR_TURN = N_("a hint is for the seat to move")
HINT_BUSY = N_("a hint is already being worked out for you")
HINT_TIMEOUT = N_("the engine found no hint in time; try again")
HINT_FAILED = N_("the engine could not work out a hint")
HINT_STALE = N_("the game moved on while the hint was worked out; ask again")

# -- the analysis board ----------------------------------------------------------------------------------
OPTIONS_TOO_LONG = N_("options too long: at most {most} characters")
SPN_TOO_LONG = N_("SPN too long: at most {most} characters")
TOO_MANY_MOVES = N_("too many moves: at most {most}")
BAD_SPN = N_("bad SPN for {game}: {error}")
MOVE_NOT_TEXT = N_("move {number} is not a move's text")
MOVE_AFTER_END = N_("move {number} ({move}): the game is already over")
MOVE_NOT_LEGAL = N_("move {number} ({move}) is not legal here: {error}")
ANALYSIS_BUSY = N_("at most {most} analyses at once per connection")
ANALYSIS_BUSY_ADDRESS = N_("at most {most} analyses at once from one address")
SERVER_BUSY = N_("the server is analysing as much as it can: try again soon")
BAD_TIME = N_("time must be a number of seconds above 0, not {value}")
ONE_SEAT_VIEW = N_("{game} is analysed from one seat's view: give 'seat' 0 to {last}")
ONLY_FINISHED = N_("only finished games are analysed move by move")

# -- accounts and sessions (docs/server.md, Accounts) ------------------------------------------------------
NAME_FORM = N_("a name has {least} to {most} letters, digits, '-' or '_' (no spaces or other signs)")
NAME_RESERVED = N_("the name {name} is kept for Spheria's agents and levels or its own use: choose another")
NAME_TAKEN = N_("the name {name} is taken: choose another")
PASSWORD_FORM = N_("a password has {least} to {most} characters")
BAD_LOGIN = N_("wrong name or password")
BAD_PASSWORD = N_("that is not your password")
NOT_SIGNED_IN = N_("you are not signed in (as a guest or with an account)")
GUESTS_HAVE_NO_ACCOUNT = N_("a guest has no account or password: register one first")
BAD_CSRF = N_("this request lacks the page's anti-forgery token: reload the page")
TOO_MANY_LOGINS = N_("too many attempts: try again in {seconds} seconds")
TOO_MANY_SIGNUPS = N_("too many new players from this address: try again in {seconds} seconds")
NO_CHALLENGE = N_("no open challenge has that id")
UNKNOWN_GAME_NAMED = N_("there is no game called {name}")
CHALLENGE_SEAT = N_('seat must be a seat\'s number, 0 to {last}, or "random"')
RATED_NEEDS_ACCOUNT = N_("rated games are for registered players: register, or make the challenge casual")
OPPONENT_RESERVED = N_(
    "{name} is an agent's or Spheria's own name, not a player's: challenge a level as level:1 to level:5"
)
OWN_CHALLENGE = N_("you cannot accept your own challenge")
NOT_FOR_YOU = N_("this challenge is for another player")
NOT_POSTER = N_("only the player who posted a challenge can cancel it")
CHALLENGE_CLOSED = N_("this challenge was already taken, cancelled or expired")
NO_SEAT_HELD = N_("you hold no seat of this challenge")
POSTER_CANCELS = N_("you posted this challenge: cancel it rather than leave your seat")
TOO_MANY_CHALLENGES = N_("too many challenges: try again in {seconds} seconds")
TOO_MANY_OPEN = N_("you have {most} open challenges already: cancel one first")
NOT_YOUR_SEAT = N_("this seat is held by another player: sign in as that player to take it")

# -- profiles, resign, abort and rematch (docs/server.md, Profiles) ----------------------------------------
RESIGNED = N_("{name} resigned.")
ABORTED_BY = N_("{name} left before every seat had moved: the game is aborted and unrated.")
REMATCH_NOT_OVER = N_("a rematch is offered once the game is over")
REMATCH_MADE = N_("the rematch has been made already")
NO_PLAYER = N_("no player of that name")
QUERY_RANGE = N_("{name} must be a whole number from {least} to {most}")
PREFIX_FORM = N_("a name prefix has 1 to {most} letters, digits, '-' or '_'")
TOO_MANY_SEARCHES = N_("too many searches from this address: try again in {seconds} seconds")

# -- chat (docs/server.md, Chat) ----------------------------------------------------------------------------
CHAT_EMPTY = N_("a message needs some text")
CHAT_TOO_LONG = N_("a message has at most {most} characters")
CHAT_CONTROL = N_("a message may not hold control characters or direction overrides")
CHAT_WRONG_ROOM = N_("you cannot write in that room: players and spectators each have their own")
CHAT_SIGN_IN = N_("spectators chat under a name: sign in or choose a guest name first")
CHAT_TOO_FAST = N_("too many messages: wait {seconds} seconds")
CHAT_NO_MESSAGE = N_("no such message in a chat you have read")
CHAT_MUTE_SELF = N_("you cannot mute yourself")
TOO_MANY_REPORTS = N_("too many reports: try again in {seconds} seconds")

# -- clocks (docs/server.md, Clocks) ------------------------------------------------------------------------
LOST_ON_TIME = N_("{name} ran out of time.")
OUT_OF_TIME = N_("too late: the time ran out before this move")

# -- a player's feed of the games waiting for their move (spheria.server.waiting) ------------------------------
FEED_TITLE = N_("Spheria: games waiting for {name}")
FEED_ENTRY = N_("{game}: your move as {seat}")
FEED_LEFT = N_("{left} left on your clock")

# -- the store (spheria.server.migrations) ---------------------------------------------------------------------
DATABASE_TOO_NEW = N_(
    "the database is at schema version {version}, newer than this Spheria knows (up to {newest}): "
    "run the newer Spheria that wrote it, or restore a backup taken before it"
)
