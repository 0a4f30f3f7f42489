"""The Shibumi sandbox: a free board on which people play by the rules they agree on."""

from spheria.games.sandbox.rules import Sandbox

__all__ = ["Sandbox"]
