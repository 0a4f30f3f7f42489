"""The browser's catalogues (src/spheria/web/i18n/<lang>.json) against the pages that use them.

Every key the JavaScript and HTML use is in en.json, every en.json key is in every other
catalogue (the test names a missing one), no catalogue has a key nothing uses, the placeholders
of a text are the same in every language, the names the page words by id (generic agents, error
codes) each have their text, the server words each game's own words (its options and their
choices, agents, analysis methods, position fields and phases) in every language, and no English
sentence is both the server's (its gettext catalogue: refusals, game titles, seat names, option
help, each game's words, colour and level words, sent translated from ``/api/words`` and in its
refusals) and the page's.
"""

from __future__ import annotations

import importlib
import itertools
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from spheria.agents.registry import agent_names
from spheria.kernel.game import Game
from spheria.kernel.registry import game_class, game_names, load_game
from spheria.server import views
from spheria.server.app import create_app
from spheria.server.limits import Limits
from tests.kernel.test_architecture import pile_registered  # noqa: F401  (a fixture)

WEB = Path(__file__).resolve().parents[2] / "src" / "spheria" / "web"
SERVER = WEB.parent / "server"
LANGUAGES = ("en", "ko")
#: The Intl.PluralRules categories a plural text may have ("other" always).
PLURAL_CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
#: Texts that are the same in every language by design (a separator, a title pattern).
SAME_IN_EVERY_LANGUAGE = {"page.game", "list.comma"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each written once: a key written twice (one silently wins)."""
    keys = [key for key, _ in pairs]
    assert len(set(keys)) == len(keys), f"keys written twice: {sorted({k for k in keys if keys.count(k) > 1})}"
    return dict(pairs)


@cache
def catalogue(lang: str) -> dict[str, Any]:
    """The page catalogue of ``lang``; a key written twice in it fails (two branches each added one)."""
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    assert isinstance(data, dict)
    return data


def forms(text: Any) -> list[str]:
    """The texts of one entry: itself, or each plural form."""
    return list(text.values()) if isinstance(text, dict) else [text]


def sources() -> dict[str, str]:
    files = sorted((WEB / "js").glob("*.js")) + sorted(WEB.glob("*.html"))
    return {path.name: path.read_text(encoding="utf-8") for path in files}


def prefixes() -> set[str]:
    return {key.split(".")[0] for key in catalogue("en")}


def literal_keys() -> dict[str, str]:
    """Keys written out in the pages (string literals with a catalogue prefix, data-t* attributes), by file."""
    found: dict[str, str] = {}
    known = prefixes()
    for name, text in sources().items():
        for literal in re.findall(r"\"([A-Za-z_-]+\.[A-Za-z0-9_.-]+)\"", text):
            if literal.split(".")[0] in known and not literal.endswith(".js") and not literal.endswith(".json"):
                found.setdefault(literal, name)
        if name.endswith(".html"):
            for literal in re.findall(r"data-t(?:-[a-z-]+)?=\"([^\"]+)\"", text):
                found.setdefault(literal, name)
    return found


def dynamic_patterns() -> list[re.Pattern[str]]:
    """The families of keys the pages build (template literals with a catalogue prefix), as patterns."""
    patterns = []
    known = prefixes()
    for text in sources().values():
        for template in re.findall(r"`([a-z_-]+\.[^`]*\$\{[^`]*)`", text):
            if template.split(".")[0] not in known:
                continue
            parts = re.split(r"\$\{(?:[^{}]|\{[^{}]*\})*\}", template)
            patterns.append(re.compile(".+".join(re.escape(part) for part in parts)))
    return patterns


def test_every_key_the_pages_use_is_in_the_english_catalogue() -> None:
    missing = {key: where for key, where in literal_keys().items() if key not in catalogue("en")}
    assert not missing, f"keys used but not in en.json: {missing}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_english_key_is_in_the_other_catalogues_and_nothing_else(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"keys missing from {lang}.json"
    assert sorted(set(other) - set(english)) == [], f"keys in {lang}.json that en.json lacks"


def test_no_catalogue_has_a_key_nothing_uses() -> None:
    used = set(literal_keys())
    patterns = dynamic_patterns()
    assert len(patterns) >= 10, "the pages' key families were not found"
    unused = [key for key in catalogue("en") if key not in used and not any(p.fullmatch(key) for p in patterns)]
    assert unused == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_texts_are_strings_or_plural_forms_with_the_same_placeholders_as_english(lang: str) -> None:
    for key, text in catalogue(lang).items():
        if isinstance(text, dict):
            assert text and set(text) <= PLURAL_CATEGORIES and "other" in text, key
        assert all(isinstance(form, str) and form for form in forms(text)), key
        english = {name for form in forms(catalogue("en")[key]) for name in PLACEHOLDER.findall(form)}
        for form in forms(text):
            assert set(PLACEHOLDER.findall(form)) == english, f"{lang}.json {key!r}: {form!r}"
        if isinstance(text, dict):  # a plural text counts something
            assert "count" in english, key


def test_korean_is_written_in_korean() -> None:
    english, korean = catalogue("en"), catalogue("ko")
    copied = [key for key in korean if key not in SAME_IN_EVERY_LANGUAGE and korean[key] == english[key]]
    assert copied == [], "Korean texts left in English"
    without_hangul = [
        key
        for key, text in korean.items()
        if key not in SAME_IN_EVERY_LANGUAGE and not any(HANGUL.search(f) for f in forms(text))
    ]
    assert without_hangul == []


def test_the_static_text_of_the_html_is_the_english_catalogue() -> None:
    """What a page shows before its script runs is the English text of its key."""
    english = catalogue("en")
    for path in sorted(WEB.glob("*.html")):
        html = path.read_text(encoding="utf-8")
        for key, shown in re.findall(r"data-t=\"([^\"]+)\"[^>]*>([^<]*)<", html):
            assert shown == english[key], f"{path.name}: {key}"
        for attribute in ("title", "aria-label"):
            for tag in re.findall(rf"<[^>]*data-t-{attribute}=\"[^\"]+\"[^>]*>", html):
                key = re.search(rf"data-t-{attribute}=\"([^\"]+)\"", tag)
                value = re.search(rf"\s{attribute}=\"([^\"]+)\"", tag)
                assert key and value and value.group(1) == english[key.group(1)], f"{path.name}: {tag}"


# -- what the server words: each sentence in one catalogue ---------------------------------


def every_option_set(name: str) -> list[dict[str, Any]]:
    specs = [spec for spec in game_class(name).option_specs if spec.choices]
    sets = []
    for values in itertools.product(*(spec.choices for spec in specs)):
        sets.append({spec.name: value for spec, value in zip(specs, values, strict=True)})
    return sets


def family(prefix: str) -> set[str]:
    return {key[len(prefix) :] for key in catalogue("en") if key.startswith(prefix)}


def names_sent() -> set[str]:
    """Every seat and side name the server sends in English, for every game with every choice of its options."""
    names = set()
    for game in game_names():
        for options in every_option_set(game):
            try:
                facts = load_game(game, **options).describe()
            except ValueError:
                continue  # a combination the game refuses
            names |= {seat["name"] for seat in facts["seats"]} | set(facts["sides"])
    return names


#: The modules whose sentences the server words for a person (beside what the games mark in their classes).
SERVER_MESSAGE_MODULES = (
    "spheria.server.messages",
    "spheria.kernel.messages",
    "spheria.agents.messages",
    "spheria.analysis.messages",
    *(f"spheria.games.{name.replace('-', '_')}.messages" for name in game_names()),
)
#: Entries of en.json whose English happens to be spelt as a server sentence in another sense.
HOMONYMS: dict[str, str] = {}


def normal(text: str) -> str:
    """A sentence with case, punctuation and the names of its placeholders left out."""
    text = re.sub(r"\{[^{}]*\}|%\(\w+\)s", "{}", text.lower())
    return " ".join(re.findall(r"[^\W_]+|\{\}", text))


def game_words_declared(name: str) -> list[str]:
    """The English of every word the game ``name`` declares for the pages: its options' labels and
    choices, its analysis methods, its own agents, its position fields, phases and turns."""
    cls = game_class(name)
    kit = cls.kit()
    words = [text for spec in cls.option_specs for text in (spec.label, *spec.words) if text]
    words += list(kit.analyse.methods.values()) if kit.analyse else []
    words += [*kit.words.agents.values(), *kit.words.fields, *kit.words.phases.values(), *kit.words.turns.values()]
    return words


def server_sentences() -> dict[str, str]:
    """Every English sentence the server words (its message modules, the games' titles, seat
    names and option help), by its normal form."""
    texts: list[str] = []
    for module in SERVER_MESSAGE_MODULES:
        for name, value in vars(importlib.import_module(module)).items():
            if not name.isupper():
                continue
            entries = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else (value,)
            texts += [entry for entry in entries if isinstance(entry, str)]
    for name in game_names():
        cls = game_class(name)
        texts += [cls.title, *(spec.help for spec in cls.option_specs)]
        texts += game_words_declared(name)
    texts += sorted(names_sent())
    # A text of placeholders only ("{n} {color}") is a pattern, not a sentence.
    return {normal(text): text for text in texts if re.search(r"[^\W\d_]", normal(text).replace("{}", ""))}


def test_no_english_sentence_is_both_the_servers_and_the_pages() -> None:
    """A sentence lives in one catalogue: what the server words (refusals, names, colour and level
    words) is the gettext catalogue's, sent translated; en.json holds only the page's own words."""
    sentences = server_sentences()
    assert len(sentences) > 200 and normal("It is {name}'s turn, not yours.") in sentences
    twice = {
        key: (form, sentences[normal(form)])
        for key, text in catalogue("en").items()
        for form in forms(text)
        if normal(form) in sentences and key not in HOMONYMS
    }
    assert twice == {}, "sentences in both the server's catalogue and en.json"
    assert all(normal(catalogue("en")[key]) in sentences for key in HOMONYMS), "a homonym no longer collides"


def test_the_duplicate_finder_catches_a_sentence_written_differently() -> None:
    """Case, final punctuation and placeholder names do not hide a duplicate."""
    sentences = server_sentences()
    for page_text in (
        "The game is over.",
        "Special Cake",
        "mint",
        "This seat was already taken by another browser!",
        "Phase",
    ):
        assert normal(page_text) in sentences, page_text
    assert normal("{who} holds {count} balls") in sentences  # Spagyric's "{name} holds {n} balls."
    assert normal("Your balls in hand") not in sentences


def test_the_server_words_every_title_seat_name_option_help_colour_and_level(client: TestClient) -> None:
    english = client.get("/api/words?lang=en").json()
    korean = client.get("/api/words?lang=ko").json()
    assert english["lang"] == "en" and korean["lang"] == "ko"
    assert english["games"] == {name: game_class(name).title for name in game_names()}
    helps = {spec.help for name in game_names() for spec in game_class(name).option_specs}
    assert set(english["names"]) == names_sent() | helps == set(korean["names"])
    assert all(english["names"][text] == text for text in english["names"])
    assert english["colors"] == {"w": "white", "b": "black", "r": "red"}
    assert set(english["levels"]) == set(korean["levels"]) == {"1", "2", "3", "4", "5"}
    for words in (korean["games"], korean["names"], korean["colors"], korean["levels"]):
        assert all(HANGUL.search(text) for text in words.values()), words
    assert korean["names"]["Mint"] == "민트" and korean["games"]["special-cake"] == "스페셜 케이크"
    by_header = client.get("/api/words", headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    assert by_header.json() == korean and by_header.headers["vary"] == "Accept-Language"
    refused = client.get("/api/words?lang=fr")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_lang"


def test_the_server_words_every_option_choice_method_agent_and_editor_field_of_every_game(
    client: TestClient,
) -> None:
    """Each game's words come from the game, translated by the server: the page catalogue holds none."""
    english = client.get("/api/words?lang=en").json()
    korean = client.get("/api/words?lang=ko").json()
    specs = [spec for name in game_names() for spec in game_class(name).option_specs]
    for words in (english, korean):
        assert set(words["options"]) == {spec.name for spec in specs}
        for spec in specs:
            chosen = {str(choice) for choice in spec.choices if isinstance(choice, str)}
            assert set(words["options"][spec.name]["choices"]) == chosen, spec.name
        kits = {name: game_class(name).kit() for name in game_names()}
        assert set(words["agents"]) == {agent for kit in kits.values() for agent in kit.agents}
        assert set(words["methods"]) == {code for kit in kits.values() if kit.analyse for code in kit.analyse.methods}
        assert set(words["notes"]) == {code for kit in kits.values() if kit.analyse for code in kit.analyse.notes}
        for name in game_names():
            state = load_game(name).new_initial_state(seed=1)
            fields = state.game.spn_fields(state.to_spn())[1:]  # after the board
            assert len(words["fields"][name]) == len(fields), name
    # An option's label and choices, a method, an agent, a field: the game's English, and real Korean.
    assert english["options"]["line_rule"] == {
        "label": "line rule",
        "choices": {"mixed": "mixed", "any": "any", "same": "same"},
    }
    assert korean["options"]["variant"] == {
        "label": "변형",
        "choices": {"mint": "민트", "sugar": "설탕 사탕", "poisoned": "독이 든 사탕"},
    }
    assert english["methods"]["solver"] == "the eating-phase solver" and korean["methods"]["solver"] == "먹기 단계 솔버"
    # A note's parameters stay as they are typed (the command names the variant as typed).
    note = {"variant": "poisoned", "disk": "4.5 GiB", "minutes": 20}
    worded = english["notes"]["eating_table_missing"].format(**note)
    assert "spheria tablebase build --variant poisoned: 4.5 GiB of disk" in worded
    assert "디스크 4.5 GiB" in korean["notes"]["eating_table_missing"].format(**note)
    assert english["agents"]["spagyric"] == "Spagyric strategy" and korean["agents"]["spagyric"] == "스파기릭 전략"
    assert english["fields"]["spinca"] == ["To move", "Locked sites"] and korean["fields"]["spinca"] == [
        "둘 차례",
        "잠긴 칸",
    ]
    assert korean["phases"]["special-cake"] == {"place": "사탕 놓기", "eat": "사탕 먹기"}
    assert korean["turns"]["special-cake"]["place"].format(name="민트") == "민트 차례: 사탕 놓기"
    every_korean = [
        *(text for option in korean["options"].values() for text in (option["label"], *option["choices"].values())),
        *korean["agents"].values(),
        *korean["methods"].values(),
        *korean["notes"].values(),
        *(text for words in korean["fields"].values() for text in words),
        *(text for group in ("phases", "turns") for words in korean[group].values() for text in words.values()),
    ]
    assert every_korean and all(HANGUL.search(text) for text in every_korean), every_korean


def test_a_game_package_from_outside_brings_its_own_option_words(
    pile_registered: type[Game],  # noqa: F811
    client: TestClient,
) -> None:
    """A new game (tests/plugin_games/pile) words its option on the pages with no page catalogue edited."""
    views._words.cache_clear()  # the words were gathered before the game came
    try:
        for lang in LANGUAGES:
            sent = client.get(f"/api/words?lang={lang}").json()
            assert sent["options"]["stones"] == {"label": "stones to begin with", "choices": {}}  # not translated
            assert sent["games"]["test-pile"] == "Pile" and "stones" not in catalogue(lang)
    finally:
        views._words.cache_clear()
    assert not [key for key in catalogue("en") if "stones" in key or "pile" in key]


def test_no_page_catalogue_words_a_games_option_agent_method_or_field() -> None:
    """A new game with options needs no edit of the page catalogues: the page keeps its own words only."""
    kits = [game_class(name).kit() for name in game_names()]
    own_agents = {agent for kit in kits for agent in kit.agents}
    methods = {code for kit in kits if kit.analyse for code in kit.analyse.methods}
    for lang in LANGUAGES:
        keys = set(catalogue(lang))
        assert not {key for key in keys if key.startswith("option.")}
        assert {key for key in keys if key.startswith("value.")} == {"value.true", "value.false"}  # a yes or no
        assert not {f"agent.{agent}" for agent in own_agents} & keys
        assert not {f"analysis.method.{code}" for code in methods} & keys
        assert not {key for key in keys if re.fullmatch(r"editor\.(field|value|status)\.[a-z-]+\.\w+", key)}


def test_every_agent_has_a_name() -> None:
    """A generic agent by the page's words, each game's own agent by the game's (sent by the server)."""
    own = {agent for name in game_names() for agent in game_class(name).kit().words.agents}
    assert own == {agent for name in game_names() for agent in game_class(name).kit().agents}
    assert family("agent.") == (set(agent_names()) - own) | {"level"}


#: Codes whose refusal the server words whole in the page's language: the page shows its message.
SERVER_WORDED_CODES = {
    "not_finished",
    "rate_limited",
    "seat_taken",
    "bad_credential",
    "stale",
    "game_over",
    "already_chosen",
    "spectator",
    "spectators_full",
    "server_error",
    "server_busy",
    "not_your_turn",
    # accounts and sessions
    "bad_csrf",
    "bad_login",
    "bad_name",
    "bad_password",
    "bad_password_form",
    "name_taken",
    "not_account",
    "not_signed_in",
    "reserved_name",
    # challenges
    "challenge_closed",
    "challenge_taken",
    "not_for_you",
    "not_poster",
    "not_your_seat",
    "own_challenge",
    "rated_needs_account",
    "unknown_challenge",
    # profiles, resign and rematch
    "not_seat_holder",
    "rematch_made",
    "unknown_player",
    # chat
    "bad_chat_text",
    "chat_too_long",
    "no_message",
    "own_message",
    "wrong_room",
    # several processes (issue 39)
    "cluster_unavailable",
}


def test_every_error_code_the_server_sends_has_a_text() -> None:
    """The page words a code (then shows the server's detail), or shows the server's translated message."""
    code = re.compile(
        r"(?:GameError|JobFailed|error_frame|error_response|_refuse)\(\s*(?:\d+,\s*)?\"([a-z_]+)\""
        r"|return \d+, \"([a-z_]+)\""
    )
    codes = set()
    for path in SERVER.glob("*.py"):
        codes |= {a or b for a, b in code.findall(path.read_text(encoding="utf-8"))}
    codes |= set(re.findall(r"^\s+code = \"([a-z_]+)\"", (SERVER / "protocol.py").read_text(encoding="utf-8"), re.M))
    assert len(codes) > 20, codes
    assert codes >= SERVER_WORDED_CODES and not family("error.") & SERVER_WORDED_CODES
    assert family("error.") | SERVER_WORDED_CODES == codes
    # Each of those is raised with a translated sentence of the server's message table.
    for path in SERVER.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"(?:GameError|error_frame)\(\s*\"([a-z_]+)\",\s*([^)]*)\)", text):
            if found.group(1) in SERVER_WORDED_CODES:
                assert found.group(2).startswith(("_(M.", "_(MESSAGES[")), (path.name, found.group(0))


# -- what the server serves: the catalogues, and How to play in the asked language ----------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(allowed_hosts=("testserver",))  # Starlette's test client calls the server "testserver"
    app = create_app(str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(1), agent_delay=0, limits=limits)
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_server_serves_each_catalogue(client: TestClient, lang: str) -> None:
    response = client.get(f"/static/i18n/{lang}.json")
    assert response.status_code == 200 and response.json() == catalogue(lang)


def test_how_to_play_comes_in_the_language_asked_for_else_of_accept_language(client: TestClient) -> None:
    korean = client.get("/api/howto/special-cake?lang=ko").json()
    english = client.get("/api/howto/special-cake?lang=en").json()
    assert korean["lang"] == "ko" and english["lang"] == "en"
    prose = [b["text"] for b in korean["blocks"] if b["kind"] == "paragraph"]
    assert prose and all(HANGUL.search(text) for text in prose)
    assert not any(HANGUL.search(b["text"]) for b in english["blocks"] if b["kind"] == "paragraph")
    # The positions are the same in every language (boards and moves are not words).
    assert [(b.get("board"), b.get("move")) for b in korean["blocks"] if b["kind"] == "position"] == [
        (b.get("board"), b.get("move")) for b in english["blocks"] if b["kind"] == "position"
    ]
    by_header = client.get("/api/howto/special-cake", headers={"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.8"})
    assert by_header.json() == korean and by_header.headers["vary"] == "Accept-Language"
    assert client.get("/api/howto/special-cake", headers={"Accept-Language": "fr"}).json() == english
    refused = client.get("/api/howto/special-cake?lang=fr")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_lang"
