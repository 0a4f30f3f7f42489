"""The languages and their catalogues: choosing a language, and a Korean catalogue that holds
every message the code marks, nothing else, with the same placeholders (docs/i18n.md)."""

from __future__ import annotations

import gettext
import io
import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from spheria.help import help_games, howto, howto_blocks, howto_source
from spheria.i18n import (
    LANGUAGES,
    LOCALE_DIR,
    N_plural,
    current_language,
    language_from_env,
    language_tag,
    negotiate,
    ngettext,
    translation,
    using,
)
from spheria.i18n.particles import Template, has_particles, particle, plain_template

SOURCE = Path(__file__).resolve().parents[2] / "src" / "spheria"
KEYWORDS = {"N_": None, "N_plural": (1, 2), "N_context": ((1, "c"), 2)}
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]


def catalogue(lang: str) -> Catalog:
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "spheria.po", "rb") as po:
        return read_po(po, locale=lang)


def marked_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every message the code marks for translation."""
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(SOURCE), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        msgid = message[0] if isinstance(message, tuple) else message
        found.add((context, msgid))
    return found


def entries(lang: str) -> list[Message]:
    return [message for message in catalogue(lang) if message.id]


def key(message: Message) -> tuple[str | None, str]:
    return message.context, forms(message.id)[0]


def placeholders(text: str) -> list[str]:
    """The ``str.format`` fields of ``text`` with their format specs, sorted (``{name|이}`` is ``{name}``)."""
    fields = string.Formatter().parse(plain_template(text))
    return sorted(f"{name}:{spec}" for _, name, spec, _ in fields if name is not None)


# -- choosing the language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "ko"),
        ("en-US,en;q=0.9,ko;q=0.8", "en"),
        ("fr-FR, ko;q=0.5", "ko"),
        ("fr-FR, de;q=0.5", "en"),
        ("en;q=0.2, ko;q=0.8", "ko"),
        ("ko;q=0, en", "en"),
        ("ko;q=0", "en"),
        ("KO", "ko"),
        ("ko;q=oops, en;q=0.1", "en"),
        ("ko;q=2", "en"),  # out of range: refused like an unreadable value
        ("*", "en"),
        ("", "en"),
        (None, "en"),
        (";;,,", "en"),
        ("en;q=0.5, ko;q=0.5", "en"),  # a tie goes to the one listed first
        ("ko;q=0.5, en;q=0.5", "ko"),
    ],
)
def test_negotiate_reads_accept_language_with_q_values(header: str | None, expected: str) -> None:
    assert negotiate(header) == expected


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "ko_KR.UTF-8"}, "ko"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({}, "en"),
        ({"LC_MESSAGES": "ko_KR", "LANG": "en_US.UTF-8"}, "ko"),
        ({"LC_ALL": "en_GB.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"}, "en"),
        ({"LANGUAGE": "fr:ko", "LANG": "en_US.UTF-8"}, "ko"),
        ({"LANGUAGE": "fr:de", "LANG": "ko_KR.UTF-8"}, "ko"),  # nothing supported listed: the next variable decides
        ({"LANGUAGE": "", "LC_ALL": "", "LANG": "ko_KR.eucKR"}, "ko"),
        ({"LANG": "ko_KR@euro"}, "ko"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_language_from_env_follows_gettext_order(environ: dict[str, str], expected: str) -> None:
    assert language_from_env(environ) == expected


def test_language_tags() -> None:
    assert [language_tag(t) for t in ("ko-KR", "ko_KR.UTF-8", "EN", "en-GB", "kok", "")] == [
        "ko",
        "ko",
        "en",
        "en",
        None,
        None,
    ]


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"'fr'.*en, ko"):
        translation("fr")
    with pytest.raises(ValueError, match="'xx'"), using("xx"):
        pass
    assert current_language() == "en"


def test_using_sets_the_language_inside_the_block_only() -> None:
    legal = N_plural("{n} legal move: {moves}", "{n} legal moves: {moves}")
    assert ngettext(legal, 1) == "{n} legal move: {moves}"
    with using("ko"):
        assert current_language() == "ko"
        assert ngettext(legal, 1) == ngettext(legal, 3) != legal.singular  # Korean has one form
    assert current_language() == "en"
    assert ngettext(legal, 3) == "{n} legal moves: {moves}"


def test_english_is_the_fallback_for_a_missing_string() -> None:
    assert translation("ko").gettext("a sentence no catalogue holds") == "a sentence no catalogue holds"
    assert translation("en").gettext("level {level}") == "level {level}"
    assert translation("ko").gettext("level {level}") == "{level}층"


# -- the catalogues --------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_marked_message_is_translated_and_no_entry_is_unused(lang: str) -> None:
    marked = marked_messages()
    listed = {key(message) for message in entries(lang)}
    assert marked - listed == set(), "marked in the code but missing from the catalogue"
    assert listed - marked == set(), "in the catalogue but no longer marked anywhere in the code"
    untranslated = [key(m) for m in entries(lang) if not all(forms(m.string))]
    assert untranslated == []
    assert not [key(m) for m in entries(lang) if m.fuzzy]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_are_the_same_in_every_language(lang: str) -> None:
    for message in entries(lang):
        ids, strings = forms(message.id), forms(message.string)
        expected = placeholders(ids[-1])
        assert placeholders(ids[0]) == expected, ids
        for text in strings:
            assert placeholders(text) == expected, (ids[0], text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogue_matches_its_source(lang: str) -> None:
    compiled_now = io.BytesIO()
    write_mo(compiled_now, catalogue(lang))
    compiled_now.seek(0)
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "spheria.mo", "rb") as mo:
        committed = gettext.GNUTranslations(mo)
    assert committed._catalog == gettext.GNUTranslations(compiled_now)._catalog  # type: ignore[attr-defined]


def forms(text: object) -> tuple[str, ...]:
    """A message's id or string as a tuple of forms (one, or one per plural form)."""
    if isinstance(text, str):
        return (text,)
    assert isinstance(text, (tuple, list))
    return tuple(str(form) for form in text)


# -- the how-to texts ----------------------------------------------------------------------------

NOTATION = re.compile(r"\[\[[^\]]*\]\]")


@pytest.mark.parametrize("game", help_games())
def test_a_translated_how_to_keeps_every_position_and_move(game: str) -> None:
    english, korean = howto_source(game), howto_source(game, "ko")
    assert NOTATION.findall(korean) == NOTATION.findall(english)
    assert [b.spn for b in howto_blocks(game, "ko")] == [b.spn for b in howto_blocks(game) if b.kind != "pre"] or [
        (b.spn, b.move) for b in howto_blocks(game, "ko") if b.kind == "position"
    ] == [(b.spn, b.move) for b in howto_blocks(game) if b.kind == "position"]
    assert korean.count("\n# ") == english.count("\n# ")


@pytest.mark.parametrize("game", help_games())
def test_the_korean_how_to_is_korean(game: str) -> None:
    text = howto(game, lang="ko")
    assert "0층" in text and "level 0" not in text  # the drawn boards' headings too
    prose = [b.text for b in howto_blocks(game, "ko") if b.kind in ("heading", "paragraph", "item")]
    for paragraph in prose:
        assert re.search("[가-힣]", paragraph), paragraph
        assert untranslated_words(paragraph) == [], paragraph


def test_the_korean_how_to_wraps_by_terminal_columns() -> None:
    from spheria.i18n.width import display_width

    for game in help_games():
        pictures = {
            line for b in howto_blocks(game, "ko") if b.kind in ("position", "pre") for line in b.text.splitlines()
        }
        for line in howto(game, width=60, lang="ko").splitlines():
            assert display_width(line) <= 60 or line in pictures, line


#: ASCII words a Korean text may hold besides notation and numbers: option names and values, agent
#: names, the program's own name and the commands one types.
ALLOWED_WORDS = frozenset(["Spheria", "spheria", "line_rule", "SPN", "MCTS", "mcts", "json"])
#: Moves written as words (the sandbox's actions): notation, typed the same in every language.
MOVE_WORDS = frozenset(["end", "back", "offer", "draw", "accept", "decline"])
SITES = r"[0-3][a-d][1-4]"
NOTATION_TOKEN = re.compile(rf"^(?:{SITES}(?:[+-]{SITES})*\+?|[0-9x.,:%+-]+|[A-Za-z])$")


def untranslated_words(text: str) -> list[str]:
    """ASCII words in ``text`` that are neither notation (sites, moves), numbers, single letters
    (colour and file letters) nor an allowed name: English left untranslated."""
    tokens = (token.strip(".,:;()'\"") for token in re.findall(r"[A-Za-z0-9_:+\-.,'\"()]+", text))
    return [
        token
        for token in tokens
        if re.search("[A-Za-z]{2,}", token)
        and token not in ALLOWED_WORDS | MOVE_WORDS
        and not NOTATION_TOKEN.match(token)
    ]


# -- docs/rules.ko.md --------------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: The code spans of docs/rules.md that describe (field names, error messages) rather than notate:
#: the only ones rules.ko.md writes in Korean.
DESCRIBED = {
    "{level}{file}{rank}",
    "<board> <phase> <seat> <supply 1> <supply 2> <stunned> <bag 1> <bag 2>",
    "<board> <player to move: 1 or 2>",
    "<board> <player to move: 1 or 2> <phase: place or eat>",
    "<board> <player to move: 1..N> <locked sites, comma-separated, or ->",
    "phase",
    "seat",
    "stunned",
    "supply 1",
    "supply 2",
    "bag 1",
    "bag 2",
    "white,black,red",
    "from-to",
    "0a1 is locked",
    "0a1 is pinned",
    ", ",
}


def test_the_korean_rules_keep_every_section_and_every_piece_of_notation() -> None:
    english, korean = (
        (DOCS / "rules.md").read_text(encoding="utf-8"),
        (DOCS / "rules.ko.md").read_text(encoding="utf-8"),
    )

    def headings(text: str) -> list[int]:
        return [len(line) - len(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")]

    def spans(text: str) -> set[str]:
        return set(re.findall(r"`([^`\n]+)`", text))

    assert headings(korean) == headings(english)
    assert spans(english) - spans(korean) - DESCRIBED == set()  # sites, moves, SPN, options stay as they are
    assert "주류" not in korean and "양주" not in korean  # liquorice is 감초 (docs/glossary.ko.md)
    for term in (
        "스페셜 케이크",
        "스파기릭",
        "스핑카",
        "스플라인",
        "고정",
        "떨어짐",
        "기절",
        "잠금",
        "신전",
        "면",
        "줄",
    ):
        assert term in korean


# -- Korean particles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "written", "expected"),
    [
        ("민트", "이", "가"),
        ("감초", "이", "가"),
        ("민트", "은", "는"),
        ("감초", "을", "를"),
        ("민트", "과", "와"),
        ("0층", "이", "이"),
        ("3층", "은", "은"),
        ("0층", "으로", "으로"),
        ("줄", "으로", "로"),
        ("흰색", "을", "을"),
        ("플레이어 1", "이", "이(가)"),
        ("level:3", "은", "은(는)"),
        ("mcts", "을", "을(를)"),
        ("감초 사탕(b)", "과", "과(와)"),
        ("", "이", "이(가)"),
    ],
)
def test_a_particle_fits_the_last_syllable_of_its_word(word: str, written: str, expected: str) -> None:
    assert particle(word, written) == expected


def test_a_korean_template_fits_each_particle_to_the_name_filled_in() -> None:
    cake_complete = translation("ko").gettext("The cake is complete. {name} eats first.")
    assert cake_complete.format(name="민트") == "케이크가 완성되었습니다. 민트가 먼저 먹습니다."
    assert cake_complete.format(name="감초") == "케이크가 완성되었습니다. 감초가 먼저 먹습니다."
    assert cake_complete.format(name="플레이어 1") == "케이크가 완성되었습니다. 플레이어 1이(가) 먼저 먹습니다."
    wins = translation("ko").gettext("{color} wins with {line} on level {level}.")
    assert wins.format(color="흰색", line="w w w", level=0) == "흰색이 0층의 w w w 줄로 이겼습니다."
    assert wins.format_map({"color": "검은색", "line": "b b", "level": 2}) == "검은색이 2층의 b b 줄로 이겼습니다."


def test_a_marked_particle_keeps_the_placeholder_conversion_and_english_stays_as_it_is() -> None:
    assert Template("{seat!r|은} 없습니다").format(seat="감초") == "'감초'은(는) 없습니다"
    assert Template("{n:,|을} 셉니다").format(n=1200) == "1,200을(를) 셉니다"
    english = translation("en").gettext("The cake is complete. {name} eats first.")
    assert type(english) is str
    assert english.format(name="Mint") == "The cake is complete. Mint eats first."


def test_every_korean_particle_after_a_placeholder_is_marked() -> None:
    texts = [text for message in catalogue("ko") if message.id for text in forms(message.string)]
    both_forms = re.compile(r"\}(이\(가\)|은\(는\)|을\(를\)|과\(와\)|\(으\)로)")
    assert [text for text in texts if both_forms.search(text)] == []
    assert sum(has_particles(text) for text in texts) > 50
