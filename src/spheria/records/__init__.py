"""Game records (versioned JSON) and replay; the format is described in ``docs/records.md``."""

from spheria.records.record import FORMAT, VERSION, Record, RecordError, ReplayStep, start_position

__all__ = ["FORMAT", "VERSION", "Record", "RecordError", "ReplayStep", "start_position"]
