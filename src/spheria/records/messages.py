"""The sentences the records layer shows a person who opens a file that is not a good record, in
one table for translation (marked for the catalogue, translated where raised, in the current
language). The field-by-field checks of a record edited by hand stay English in record.py; a
record Spheria wrote never meets them."""

from __future__ import annotations

from spheria.i18n import N_

NOT_AN_OBJECT = N_("a record is a JSON object, not {kind}")
NOT_A_RECORD = N_("not a Spheria record: 'format' must be {format}, found {found}")
UNSUPPORTED_VERSION = N_("record version {version} is not supported (this Spheria reads version {supported})")
MISSING_FIELDS = N_("record has no {fields} field")
NOT_JSON = N_("not valid JSON: {error} at line {line}, column {column}")
NOT_TEXT = N_("not a text file (a record is UTF-8 JSON)")
SEAT_COUNT = N_("{game} has {seats} seats but the record names {players}")
MOVE = N_("move {number} ({entry}): {error}")
