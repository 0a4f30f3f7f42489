"""Korean particles that fit the word they follow (민트가, 감초는, 0층을 ...).

A Korean template in the catalogue writes a particle after a placeholder as ``{name|이}``
(also ``{name|은}``, ``{name|을}``, ``{name|과}``, ``{name|으로}``); the translation hands out
such templates as :class:`Template`, whose :meth:`Template.format` fills the placeholder and
then picks the particle from the last syllable of what was filled in. English templates never
carry the mark, so nothing changes for them.

>>> particle("민트", "이"), particle("감초", "은"), particle("0층", "은"), particle("칸", "으로")
('가', '는', '은', '으로')
>>> particle("줄", "으로"), particle("level:3", "을"), particle("AB", "과")
('로', '을(를)', '과(와)')
>>> Template("{name|이} 먼저 먹습니다.").format(name="감초")
'감초가 먼저 먹습니다.'
"""

from __future__ import annotations

import re
from typing import Any

#: Each particle as written in a template, with its form after a final consonant, after a
#: vowel, and when the word does not end in Hangul (a digit, a Latin letter): both, as "이(가)".
PARTICLES: dict[str, tuple[str, str, str]] = {
    "이": ("이", "가", "이(가)"),
    "은": ("은", "는", "은(는)"),
    "을": ("을", "를", "을(를)"),
    "과": ("과", "와", "과(와)"),
    "으로": ("으로", "로", "(으)로"),
}

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_FINALS = 28
_FINAL_RIEUL = 8  # ㄹ: takes 로, not 으로 (줄로, 칼로)

_MARKED = re.compile(r"\{([^{}|]*)\|(" + "|".join(sorted(PARTICLES, key=len, reverse=True)) + r")\}")
_SEPARATOR = "\x1f"  # stands between a filled value and its particle until the particle is chosen
_FILLED = re.compile(f"(.?){_SEPARATOR}([^{_SEPARATOR}]+){_SEPARATOR}", re.DOTALL)


def particle(word: str, written: str) -> str:
    """The form of particle ``written`` (이, 은, 을, 과, 으로) that follows ``word``."""
    after_consonant, after_vowel, either = PARTICLES[written]
    last = word[-1:] if word else ""
    if not last or not _HANGUL_FIRST <= ord(last) <= _HANGUL_LAST:
        return either
    final = (ord(last) - _HANGUL_FIRST) % _FINALS
    if final == 0 or (written == "으로" and final == _FINAL_RIEUL):
        return after_vowel
    return after_consonant


def has_particles(template: str) -> bool:
    """Whether ``template`` writes a particle after a placeholder (``{name|이}``)."""
    return _MARKED.search(template) is not None


def plain_template(template: str) -> str:
    """``template`` with each ``{name|이}`` written as ``{name}`` (to compare placeholders)."""
    return _MARKED.sub(r"{\1}", template)


class Template(str):
    """A translated template whose :meth:`format` chooses each marked particle by its word."""

    def format(self, *args: Any, **kwargs: Any) -> str:
        return _choose(_mark(self).format(*args, **kwargs))

    def format_map(self, mapping: Any, /) -> str:
        return _choose(_mark(self).format_map(mapping))


def _mark(template: str) -> str:
    return _MARKED.sub(lambda m: "{" + m[1] + "}" + _SEPARATOR + m[2] + _SEPARATOR, template)


def _choose(filled: str) -> str:
    return _FILLED.sub(lambda m: m[1] + particle(m[1], m[2]), filled)
