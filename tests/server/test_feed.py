"""What the lobby reads of time controls, and a player's Atom feed of the games waiting for their
move (issue 38, items 1 and 3; spheria.server.waiting)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from starlette.applications import Starlette
from starlette.testclient import TestClient

from spheria.server.waiting import feed
from tests.server.people import account, app, browser, make_app, send
from tests.server.test_challenges import accept, posted

__all__ = ["app", "make_app"]  # the fixtures, shared with the challenges' tests

ATOM = "{http://www.w3.org/2005/Atom}"
FIVE_THREE = {"base": 300, "increment": 3}


def started(poster: TestClient, taker: TestClient, opponent: str, **fields: object) -> tuple[str, str]:
    """A private challenge from ``poster`` (the first seat) to ``opponent``, taken by ``taker``: the
    game's id and the taker's invite."""
    challenge = posted(poster, seat=0, opponent=opponent, **fields)
    answer = accept(taker, challenge).json()
    return answer["game_id"], answer["invite"]


def entries(client: TestClient, name: str, **headers: str) -> tuple[ET.Element, list[ET.Element]]:
    response = client.get(f"/@/{name}/feed.atom", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)  # well-formed XML, or this raises
    assert root.tag == f"{ATOM}feed"
    return root, root.findall(f"{ATOM}entry")


def linked(entry: ET.Element) -> str:
    link = entry.find(f"{ATOM}link")
    assert link is not None
    return link.attrib["href"]


def test_the_time_controls_offered_are_each_game_s_presets_and_the_limits(app: Starlette) -> None:
    offered = browser(app).get("/api/time-controls").json()
    assert [c["control"] for c in offered["games"]["spline"]] == ["untimed", "3+2", "5+3", "10+5", "1d", "3d", "7d"]
    assert offered["games"]["spline"][2]["clock"] == {"base": 300, "increment": 3}
    assert offered["games"]["spline"][0]["clock"] is None
    assert (offered["base"], offered["increment"], offered["days"]) == ([1, 10800], 60, [1, 3, 7])


def test_the_clocks_of_games_in_play_and_of_your_games(app: Starlette) -> None:
    mina, joon = account(app, "Mina"), account(app, "Joon")
    timed, _ = started(mina, joon, "Joon", clock=FIVE_THREE)
    untimed, _ = started(mina, joon, "Joon")
    listed = mina.get("/api/clocks").json()["games"]
    assert listed[timed] == {"clock": FIVE_THREE, "control": "5+3"}
    assert untimed not in listed
    assert browser(app).get("/api/my/clocks").json()["error"]["code"] == "not_signed_in"
    mine = mina.get("/api/my/clocks").json()["games"]
    assert set(mine) == {timed}  # the untimed game has no clock
    assert mine[timed]["running"] == [0] and 290_000 < mine[timed]["left"][0] <= 300_000


def test_a_feed_lists_only_the_games_waiting_for_that_player_and_no_invite(app: Starlette) -> None:
    mina, joon, sora = account(app, "Mina"), account(app, "Joon"), account(app, "Sora")
    waiting, mina_joon_invite = started(mina, joon, "Joon", clock=FIVE_THREE)  # Mina (first seat) to move
    theirs, sora_joon_invite = started(sora, joon, "Joon", clock={"days": 3})  # Sora to move: not Mina's
    # Joon's move in a game with Mina: Joon posts and holds the first seat.
    joons, mina_invite = started(joon, mina, "Mina")

    root, found = entries(mina, "Mina")
    assert {linked(e).rsplit("/", 1)[-1] for e in found} == {waiting}
    title = root.find(f"{ATOM}title")
    assert title is not None and title.text == "Spheria: games waiting for Mina"
    (entry,) = found
    summary = entry.find(f"{ATOM}summary")
    assert summary is not None and summary.text is not None
    assert "Special Cake: your move as Mint" in summary.text and "left on your clock" in summary.text
    assert linked(entry) == f"http://testserver/game/{waiting}"

    # Another player reads Mina's feed: the same games, and never a seat's credential of anyone.
    stranger = browser(app)
    text = stranger.get("/@/Mina/feed.atom").text
    assert waiting in text and theirs not in text and joons not in text
    for invite in (mina_joon_invite, sora_joon_invite, mina_invite):
        assert invite.split("#", 1)[1] not in text
    assert "#" not in "".join(linked(e) for e in found)

    # Joon waits in the other two games and moves in his own; Sora's feed holds hers.
    assert {linked(e).rsplit("/", 1)[-1] for e in entries(joon, "Joon")[1]} == {joons}
    assert {linked(e).rsplit("/", 1)[-1] for e in entries(sora, "Sora")[1]} == {theirs}


def test_a_feed_speaks_the_reader_s_language_and_names_nobody_unknown(app: Starlette) -> None:
    mina, joon = account(app, "Mina"), account(app, "Joon")
    started(mina, joon, "Joon", clock=FIVE_THREE)
    root, (entry,) = entries(joon, "Mina", **{"Accept-Language": "ko"})
    title = root.find(f"{ATOM}title")
    assert title is not None and title.text == "Spheria: Mina 님의 차례를 기다리는 게임"
    summary = entry.find(f"{ATOM}summary")
    assert summary is not None and summary.text is not None and "내 시계에" in summary.text
    response = joon.get("/@/Nobody_here/feed.atom")
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_player"


def test_every_text_of_a_feed_is_escaped() -> None:
    text = feed(
        'http://host/"><x>',
        "Mi<na>&",
        [{"id": "a<b", "plies": 3, "title": "T<&>'\"", "summary": "</summary><script>", "updated": 0.0}],
        0.0,
    )
    root = ET.fromstring(text)
    (entry,) = root.findall(f"{ATOM}entry")
    assert entry.findtext(f"{ATOM}title") == "T<&>'\""
    assert entry.findtext(f"{ATOM}summary") == "</summary><script>"
    assert linked(entry) == 'http://host/"><x>/game/a<b'
    assert "<script>" not in text and root.findtext(f"{ATOM}author/{ATOM}name") == "Mi<na>&"


def test_a_move_made_leaves_the_feed(app: Starlette) -> None:
    mina, joon = account(app, "Mina"), account(app, "Joon")
    game_id, _ = started(mina, joon, "Joon")
    assert len(entries(joon, "Mina")[1]) == 1
    resigned = send(mina, "POST", f"/api/games/{game_id}/resign")
    assert resigned.status_code == 200, resigned.text
    assert entries(joon, "Mina")[1] == []
