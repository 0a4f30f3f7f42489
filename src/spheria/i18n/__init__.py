"""The languages Spheria speaks, and the translations of every text a person reads.

The English text of each layer stays in that layer's one message table, marked for extraction
with :func:`N_` (a plural pair with :func:`N_plural`, a word needing context with
:func:`N_context`); it is translated where it is shown, through the chosen language's
:func:`translation` (Python's :mod:`gettext`, catalogues in ``spheria/locale``; see
docs/i18n.md). English is the fallback for every string a catalogue lacks.

Machine-readable text (JSON, records, SPN, move notation, game ids, option names) is never
translated.

>>> negotiate("ko-KR,ko;q=0.9,en-US;q=0.8"), negotiate("fr, en;q=0.5"), negotiate(None)
('ko', 'en', 'en')
>>> language_from_env({"LANG": "ko_KR.UTF-8"}), language_from_env({"LANG": "C"})
('ko', 'en')
>>> translation("ko").ngettext("{n} legal move: {moves}", "{n} legal moves: {moves}", 2)
'가능한 수 {n}개: {moves}'
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gettext as _gettext
import os
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Generic, NamedTuple, ParamSpec, TypeVar

from spheria.i18n.particles import Template, has_particles, particle

#: Every language with a catalogue, English (the source language) first.
LANGUAGES: tuple[str, ...] = ("en", "ko")
DEFAULT_LANGUAGE = "en"
DOMAIN = "spheria"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

#: The environment variables that name the language of messages, in the order gettext reads them.
ENVIRONMENT_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


class Plural(NamedTuple):
    """A message with a singular and a plural form; :func:`ngettext` picks by count."""

    singular: str
    plural: str


class InContext(NamedTuple):
    """A message with a context that tells a translator which sense is meant."""

    context: str
    message: str


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it (it is translated when shown)."""
    return message


def N_plural(singular: str, plural: str) -> Plural:
    """Mark a message with plural forms for the catalogue (translated when shown, by count)."""
    return Plural(singular, plural)


def N_context(context: str, message: str) -> InContext:
    """Mark a message with a context for the catalogue (translated when shown)."""
    return InContext(context, message)


def language_tag(text: str) -> str | None:
    """The supported language ``text`` names (``ko-KR``, ``ko_KR.UTF-8``, ``EN``), or ``None``."""
    primary = text.strip().split(".")[0].split("@")[0].replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def negotiate(accept_language: str | None) -> str:
    """The best supported language for an HTTP ``Accept-Language`` header (``"en"`` if none fits).

    Languages are taken by their q-value (1 when left out), the earlier one first on a tie;
    ``q=0`` refuses a language. ``*`` stands for English.
    """
    best: tuple[float, int, str] | None = None
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, parameters = part.partition(";")
        quality = _quality(parameters)
        language = DEFAULT_LANGUAGE if tag.strip() == "*" else language_tag(tag)
        if language is None or quality <= 0:
            continue
        if best is None or (quality, -position) > (best[0], best[1]):
            best = (quality, -position, language)
    return best[2] if best else DEFAULT_LANGUAGE


def _quality(parameters: str) -> float:
    """The q-value of ``;q=0.8`` (1 when absent, 0 when unreadable)."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = float(value)
            except ValueError:
                return 0.0
            return quality if 0.0 <= quality <= 1.0 else 0.0
    return 1.0


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it (``"en"`` if none is supported).

    The first of ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
    that is set decides; ``C`` and ``POSIX`` mean English.
    """
    env = os.environ if environ is None else environ
    for variable in ENVIRONMENT_VARIABLES:
        value = env.get(variable, "").strip()
        if not value:
            continue
        for name in value.split(":"):
            language = language_tag(name)
            if language:
                return language
        if variable != "LANGUAGE":  # LANGUAGE lists preferences; the others decide outright
            return DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def check_language(lang: str) -> str:
    """``lang`` if it is one of :data:`LANGUAGES`; else ``ValueError`` naming them."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
    return lang


class CatalogueTranslations(_gettext.GNUTranslations):
    """A compiled catalogue whose templates that mark a particle (``{name|이}``) fit it to the word."""

    def gettext(self, message: str) -> str:
        return _with_particles(super().gettext(message))

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return _with_particles(super().ngettext(msgid1, msgid2, n))

    def pgettext(self, context: str, message: str) -> str:
        return _with_particles(super().pgettext(context, message))

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return _with_particles(super().npgettext(context, msgid1, msgid2, n))


def _with_particles(text: str) -> str:
    return Template(text) if has_particles(text) else text


@functools.cache
def translation(lang: str) -> _gettext.NullTranslations:
    """The translations of ``lang`` (``gettext``, ``ngettext``, ``pgettext``, ``npgettext``).

    English returns the messages as they are; a missing string falls back to English. A
    translated template's marked particles (``{name|이}``) are chosen when it is formatted.
    """
    if check_language(lang) == DEFAULT_LANGUAGE:
        return _gettext.NullTranslations()
    return _gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[lang], fallback=True, class_=CatalogueTranslations
    )


_current: ContextVar[str] = ContextVar("spheria_language", default=DEFAULT_LANGUAGE)


def current_language() -> str:
    """The language texts are shown in here (``"en"`` unless :func:`set_language` or :func:`using`)."""
    return _current.get()


def set_language(lang: str) -> None:
    """Show texts in ``lang`` from now on in this context (the terminal sets it once, at start)."""
    _current.set(check_language(lang))


@contextlib.contextmanager
def using(lang: str) -> Iterator[None]:
    """Show texts in ``lang`` inside the ``with`` block."""
    token = _current.set(check_language(lang))
    try:
        yield
    finally:
        _current.reset(token)


_P = ParamSpec("_P")
_T = TypeVar("_T")


def speaking_now(func: Callable[_P, _T]) -> Callable[_P, _T]:
    """``func``, run in the language current here wherever it is called: a worker thread (an
    executor's) starts in English, since a :class:`~contextvars.ContextVar` does not follow a call
    handed to another thread."""
    lang = current_language()

    @functools.wraps(func)
    def speaking(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        with using(lang):
            return func(*args, **kwargs)

    return speaking


@contextlib.contextmanager
def argparse_speaking() -> Iterator[None]:
    """Inside the block, argparse's own texts ("invalid choice: ...") come in the current language.

    argparse looks its texts up with :func:`gettext.gettext` in the default domain, which reads the
    language from the environment alone; here its module's two lookups are ours (our catalogue
    carries argparse's messages), and they are put back when the block ends.
    """
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._ = gettext  # type: ignore[attr-defined]
    argparse.ngettext = _argparse_ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


class ArgumentType(Generic[_T]):
    """An argparse ``type=`` that converts like ``convert`` and is named in the current language:
    argparse words a refusal ``invalid %(type)s value: 'x'`` with the type's ``__name__``, which is
    ``int`` for :class:`int` in every language; this one's name comes from the catalogue."""

    def __init__(self, convert: Callable[[str], _T], name: InContext) -> None:
        self.convert = convert
        self.name = name

    def __call__(self, text: str) -> _T:
        return self.convert(text)

    @property
    def __name__(self) -> str:
        return pgettext(self.name)

    def __repr__(self) -> str:
        return self.name.message


#: The longest time limit a command takes (a week): a larger one, like ``nan`` or ``inf``, is no limit.
MOST_SECONDS = 7 * 24 * 3600.0


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0 and at most :data:`MOST_SECONDS`."""
    value = float(text)
    if not 0 < value <= MOST_SECONDS:  # also refuses nan
        raise ValueError(f"{text!r} is not a number of seconds above 0 and at most {MOST_SECONDS:g}")
    return value


#: ``type=`` of an option taking a whole number, and a number (argparse's ``int`` and ``float``).
INTEGER = ArgumentType(int, N_context("the type of an option's value", "int"))
FLOAT = ArgumentType(float, N_context("the type of an option's value", "float"))
#: ``type=`` of a time limit: seconds above 0 and at most a week (argparse refuses ``nan``, ``-1``, ``1e308``).
SECONDS = ArgumentType(_seconds, N_context("the type of an option's value", "seconds (above 0, at most a week)"))


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    return translation(current_language()).ngettext(singular, plural, n)


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translation(current_language()).gettext(message)


def ngettext(message: Plural, n: int) -> str:
    """The form of ``message`` for ``n`` in the current language."""
    return translation(current_language()).ngettext(message.singular, message.plural, n)


def pgettext(message: InContext) -> str:
    """``message`` (with its context) in the current language."""
    return translation(current_language()).pgettext(message.context, message.message)


_ = gettext

__all__ = [
    "DEFAULT_LANGUAGE",
    "FLOAT",
    "INTEGER",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "ArgumentType",
    "InContext",
    "N_context",
    "N_plural",
    "Plural",
    "Template",
    "argparse_speaking",
    "check_language",
    "current_language",
    "gettext",
    "language_from_env",
    "language_tag",
    "negotiate",
    "ngettext",
    "particle",
    "pgettext",
    "set_language",
    "speaking_now",
    "translation",
    "using",
]
