"""``spheria tablebase``: build, inspect and verify the retrograde tables of Special Cake mint and poisoned.

``build`` compiles the builder and runs it (or resumes it) in the cache directory, printing
its progress, then checks the shipped set-up table against the build; ``status`` lists the
finished levels; ``verify`` compares the finished levels with the search solver on random
positions; ``pack`` writes the shipped set-up table from a build (or, ``--check``, only
compares them). See docs/tablebase.md and docs/solver.md.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from spheria.cli.common import CliError
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER, N_
from spheria.i18n import gettext as _

MESSAGES = {
    "help": N_("build and check the retrograde tables of Special Cake mint and poisoned"),
    "description": N_(
        "The eating-phase tables of Special Cake mint and poisoned, computed level by level (see docs/tablebase.md)."
    ),
    "build_help": N_("build the table, or resume an interrupted build"),
    "status_help": N_("list the finished levels of a build"),
    "verify_help": N_("compare finished levels with the search solver on random positions"),
    "variant_help": N_("the variant: mint or poisoned (default: mint)"),
    "rule_help": N_("the line rule (default: mixed)"),
    "cache_help": N_("where builds live (default: %(default)s)"),
    "threads_help": N_("threads to compute with (default: 2)"),
    "upto_help": N_("stop after this level (candies on the cake)"),
    "per_level_help": N_("positions to check in each level (default: %(default)s)"),
    "levels_help": N_("the levels to check, e.g. 0-20 (default: every finished level)"),
    "against_help": N_(
        "what to compare with: 'search' (the search solver) or 'step' (one move deep into the "
        "table's level below, by the Python move generator; cheap on the largest levels) (default: %(default)s)"
    ),
    "seed_help": N_("the random seed of the positions checked (default: %(default)s)"),
    "journal_help": N_(
        "write each checked position to this file and, run again with the same options, go on "
        "from where it stopped (for runs of hours)"
    ),
    "workers_help": N_("processes that run the search solver (default: %(default)s)"),
    "workers_need_search": N_("--workers is for --against search; the step check runs in this process"),
    "bad_journal": N_("--journal: {error}"),
    "verify_progress": N_("level {level:2d}  {done}/{total} positions to check are checked"),
    "no_table_variant": N_("only mint and poisoned have a table, not {variant}"),
    "step_only_mint": N_("--against step checks mint tables; check poisoned against the search solver"),
    "bad_levels": N_("{option} wants N or A-B, not {text!r}"),
    "no_levels": N_("no finished level in {directory}; run 'spheria tablebase build' first"),
    "status_head": N_("{directory}: levels with {positions:,} positions in all, {done} of {total} levels finished"),
    "status_line": N_("level {level:2d}  {positions:>14,} positions  {won:>14,} won  {seconds}"),
    "status_missing": N_("level {level:2d}  not built"),
    "status_setup": N_("set-up: {done} of {total} levels finished"),
    "status_setup_line": N_("setup {level:2d}  {positions:>14,} positions  {won:>14,} won by Mint  {seconds}"),
    "status_seconds": N_("{seconds:9.1f} s"),
    "status_no_time": N_("time not recorded"),
    "status_value": N_("from the empty table, {winner} wins with perfect play"),
    "mint": N_("Mint"),
    "liquorice": N_("Liquorice"),
    "setup_verify_help": N_(
        "check the set-up table instead, on positions with A to B free sites (e.g. 1-4), "
        "against minimax over the placements left with the solver on the full cakes"
    ),
    "no_setup": N_("the set-up table of {directory} is not finished for {empty} free sites"),
    "setup_line": N_("{empty} free  {checked:>6} checked  {won:>6} won by Mint  {mismatches} disagree"),
    "verify_line": N_("level {level:2d}  {checked:>6} checked  {won:>6} won  {mismatches} disagree"),
    "verify_bad": N_("the table disagrees with the solver on {count} positions (listed above)"),
    "verify_time": N_(
        "{checked} positions checked ({kept} of them by an earlier run of this journal) in {seconds:.1f} s"
    ),
    "mismatch": N_(
        "level {level:2d}  white {white:#x} black {black:#x}: the table says {table}, the check the opposite"
    ),
    "mismatch_poisoned": N_(
        "level {level:2d}  white {white:#x} black {black:#x} cherry {cherry:#x}: the table says {table}, "
        "the check the opposite"
    ),
    "setup_mismatch": N_("set-up white {white:#x} black {black:#x}: the table says {winner} wins, the check the other"),
    "won": N_("won"),
    "lost": N_("lost"),
    "verify_ok": N_("all {checked} positions agree with the search solver"),
    "verify_bad_step": N_("the table disagrees with its level below on {count} positions (listed above)"),
    "step_needs_below": N_("the step check of level {level} reads level {below}, which is not finished"),
    "verify_ok_step": N_("all {checked} positions agree with one move into the level below"),
    "build_failed": N_("the build failed: {error}"),
    "level_progress": N_(
        "level {level} of {last} finished: {elapsed:.0f} s so far, about {remaining:.0f} s left at this rate"
    ),
    "backend_help": N_(
        "where to compute: 'local' (this machine) or 'ray' (each level's chunks as tasks on a Ray "
        "cluster; the cache must be on a file system every node sees) (default: %(default)s)"
    ),
    "chunks_help": N_(
        "compute each level in this many chunks, each saved as it finishes (default: 1 locally, 4 per Ray worker)"
    ),
    "ray_workers_help": N_("CPUs of the local Ray started when no --address is given (default: %(default)s)"),
    "address_help": N_("the Ray cluster to join (default: RAY_ADDRESS, or a local Ray)"),
    "ray_only": N_("{option} is for --backend ray"),
    "reachable_help": N_(
        "also count the set-up positions an alternating order of placements reaches, and the full "
        "cakes among them Mint wins (a minute or two)"
    ),
    "needs_extra": N_("the ray build needs the ray extra: pip install 'spheria[ray]' ({error})"),
    "pack_help": N_("pack the set-up table for shipping, or check the shipped one against the build"),
    "output_help": N_("where to write the packed table (default: the one shipped in the package)"),
    "check_help": N_("only compare the shipped table with the build (no writing)"),
    "pack_needs_setup": N_("the set-up table of {directory} is not finished; run 'spheria tablebase build' first"),
    "pack_written": N_("wrote {path} ({size:,} bytes, SHA-256 {digest})"),
    "shipped_checksum_bad": N_("{path} does not match its checksum file {checksum}"),
    "shipped_differs": N_("the shipped set-up table differs from the build at levels {levels}"),
    "shipped_ok": N_("the shipped set-up table ({path}, checksum verified) agrees with the build at every level"),
    "shipped_only_mixed": N_("only mint and poisoned with mixed lines have a shipped set-up table"),
}


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("tablebase", help=_(MESSAGES["help"]), description=_(MESSAGES["description"]))
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    build = actions.add_parser("build", help=_(MESSAGES["build_help"]), description=_(MESSAGES["build_help"]))
    _add_common(build)
    build.add_argument("--threads", metavar="N", type=INTEGER, default=2, help=_(MESSAGES["threads_help"]))
    build.add_argument("--upto", metavar="LEVEL", type=INTEGER, help=_(MESSAGES["upto_help"]))
    build.add_argument("--backend", choices=("local", "ray"), default="local", help=_(MESSAGES["backend_help"]))
    build.add_argument("--chunks", metavar="K", type=INTEGER, help=_(MESSAGES["chunks_help"]))
    build.add_argument("--workers", metavar="N", type=INTEGER, default=2, help=_(MESSAGES["ray_workers_help"]))
    build.add_argument("--address", metavar="ADDR", help=_(MESSAGES["address_help"]))
    build.set_defaults(handler=cmd_build)

    pack = actions.add_parser("pack", help=_(MESSAGES["pack_help"]), description=_(MESSAGES["pack_help"]))
    _add_common(pack)
    pack.add_argument("--output", metavar="FILE", type=Path, help=_(MESSAGES["output_help"]))
    pack.add_argument("--check", action="store_true", help=_(MESSAGES["check_help"]))
    pack.set_defaults(handler=cmd_pack)

    status = actions.add_parser("status", help=_(MESSAGES["status_help"]), description=_(MESSAGES["status_help"]))
    _add_common(status)
    status.add_argument("--reachable", action="store_true", help=_(MESSAGES["reachable_help"]))
    status.set_defaults(handler=cmd_status)

    verify = actions.add_parser("verify", help=_(MESSAGES["verify_help"]), description=_(MESSAGES["verify_help"]))
    _add_common(verify)
    verify.add_argument("--per-level", metavar="N", type=INTEGER, default=200, help=_(MESSAGES["per_level_help"]))
    verify.add_argument("--levels", metavar="A-B", help=_(MESSAGES["levels_help"]))
    verify.add_argument("--seed", metavar="N", type=INTEGER, default=1, help=_(MESSAGES["seed_help"]))
    verify.add_argument("--against", choices=("search", "step"), default="search", help=_(MESSAGES["against_help"]))
    verify.add_argument("--journal", metavar="FILE", type=Path, help=_(MESSAGES["journal_help"]))
    verify.add_argument("--workers", metavar="N", type=INTEGER, default=1, help=_(MESSAGES["workers_help"]))
    verify.add_argument("--setup", metavar="A-B", help=_(MESSAGES["setup_verify_help"]))
    verify.set_defaults(handler=cmd_verify)


def _add_common(parser: argparse.ArgumentParser) -> None:
    from spheria.games.special_cake.tablebase.build import DEFAULT_CACHE

    parser.add_argument("--variant", default="mint", help=_(MESSAGES["variant_help"]))
    parser.add_argument("--line-rule", choices=("mixed", "same"), default="mixed", help=_(MESSAGES["rule_help"]))
    parser.add_argument("--cache", metavar="DIR", type=Path, default=DEFAULT_CACHE, help=_(MESSAGES["cache_help"]))
    parser.set_defaults(no_color=False)


def _spec(args: argparse.Namespace) -> Any:
    from spheria.games.special_cake.tablebase.build import VARIANTS, TableSpec

    if args.variant not in VARIANTS:
        raise CliError(_(MESSAGES["no_table_variant"]).format(variant=args.variant))
    return TableSpec(line_rule=args.line_rule, variant=args.variant)


def _table(directory: Path, spec: Any) -> Any:
    """The reader of the build in ``directory``: a mint or a poisoned table."""
    from spheria.games.special_cake.tablebase.verify import EatingTable, PoisonedEatingTable

    return PoisonedEatingTable(directory, spec) if spec.cherry else EatingTable(directory, spec)


def cmd_build(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.games.special_cake.tablebase.build import BuildError, build_distributed, run_builder

    spec = _spec(args)
    threads, workers = max(args.threads, 1), max(args.workers, 1)
    try:
        if args.backend == "ray":
            chunks = max(args.chunks or 4 * workers, 1)
            directory = build_distributed(
                spec,
                args.cache,
                "ray",
                chunks=chunks,
                workers=workers,
                address=args.address,
                threads=threads,
                upto=args.upto,
                output=term.say,
                progress=lambda report: term.say(
                    _(MESSAGES["level_progress"]).format(
                        level=report.level, last=report.last, elapsed=report.elapsed, remaining=report.remaining
                    )
                ),
            )
        else:
            if args.address is not None:
                raise CliError(_(MESSAGES["ray_only"]).format(option="--address"))
            chunks = max(args.chunks or 1, 1)
            directory = run_builder(spec, args.cache, threads=threads, upto=args.upto, chunks=chunks, output=term.say)
    except BuildError as error:
        raise CliError(_(MESSAGES["build_failed"]).format(error=error)) from None
    except ImportError as error:
        raise CliError(_(MESSAGES["needs_extra"]).format(error=error)) from None
    if spec.line_rule == "mixed" and args.upto is None:
        _check_shipped(_setup_reader(directory, spec), spec.variant, term)
    return 0


def _setup_reader(directory: Path, spec: Any) -> Callable[[int], bytes]:
    """``bits(k)``: set-up level ``k`` of the build, read whole (and dropped after)."""
    from spheria.games.special_cake.tablebase.layout import SETUP

    table = _table(directory, spec)
    for k in range(table.layout.top + 1):
        if not table.has_level(k, SETUP):
            raise CliError(_(MESSAGES["pack_needs_setup"]).format(directory=directory))

    def bits(k: int) -> bytes:
        level: bytes = _table(directory, spec).level_file(k, SETUP).bits
        return level

    return bits


def _check_shipped(bits: Callable[[int], bytes], variant: str, term: Terminal) -> None:
    from spheria.games.special_cake.solver.setup_table import (
        PackedSetupTable,
        check_file,
        compare_with_build,
        default_checksum_path,
        default_pack_path,
    )

    path, checksum = default_pack_path(variant), default_checksum_path(variant)
    if not check_file(path, checksum):
        raise CliError(_(MESSAGES["shipped_checksum_bad"]).format(path=path, checksum=checksum))
    differ = compare_with_build(PackedSetupTable(path), bits, term.say)
    if differ:
        raise CliError(_(MESSAGES["shipped_differs"]).format(levels=", ".join(map(str, differ))))
    term.say(_(MESSAGES["shipped_ok"]).format(path=path))


def cmd_pack(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.games.special_cake.solver.setup_table import SHIPPED_VARIANTS, default_pack_path, pack_levels
    from spheria.games.special_cake.tablebase.build import build_dir

    spec = _spec(args)
    if spec.line_rule != "mixed" or spec.variant not in SHIPPED_VARIANTS:
        raise CliError(_(MESSAGES["shipped_only_mixed"]))
    directory = build_dir(args.cache, spec)
    bits = _setup_reader(directory, spec)
    if args.check:
        _check_shipped(bits, spec.variant, term)
        return 0
    path = args.output or default_pack_path(spec.variant)
    digest = pack_levels(bits, _table(directory, spec).layout.top, path, term.say)
    term.say(_(MESSAGES["pack_written"]).format(path=path, size=path.stat().st_size, digest=digest))
    return 0


def cmd_status(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.games.special_cake.tablebase.build import build_dir
    from spheria.games.special_cake.tablebase.layout import EATING, SETUP, build_times

    spec = _spec(args)
    table = _table(build_dir(args.cache, spec), spec)
    times = build_times(table.directory)

    def took(kind: str, n: int, in_header: float | None) -> str:
        seconds = times.get((kind, n), in_header)
        return (
            _(MESSAGES["status_no_time"]) if seconds is None else _(MESSAGES["status_seconds"]).format(seconds=seconds)
        )

    levels = range(table.layout.top + 1)
    done = [n for n in levels if table.has_level(n)]
    total = sum(table.layout.level(n).positions for n in levels)
    term.say(
        _(MESSAGES["status_head"]).format(directory=table.directory, positions=total, done=len(done), total=len(levels))
    )
    for n in levels:
        if n in done:
            level_file = table.header(n)
            positions = table.layout.level(n).positions
            term.say(
                _(MESSAGES["status_line"]).format(
                    level=n, positions=positions, won=level_file.wins, seconds=took(EATING, n, level_file.seconds)
                )
            )
        else:
            term.say(_(MESSAGES["status_missing"]).format(level=n))
    setup_done = [k for k in levels if table.has_level(k, SETUP)]
    term.say(_(MESSAGES["status_setup"]).format(done=len(setup_done), total=len(levels)))
    for k in setup_done:
        level_file = table.header(k, SETUP)
        term.say(
            _(MESSAGES["status_setup_line"]).format(
                level=k,
                positions=table.layout.setup_level(k).positions,
                won=level_file.wins,
                seconds=took(SETUP, k, level_file.seconds),
            )
        )
    if 0 in setup_done:
        winner = _(MESSAGES["mint"]) if table.mint_wins_setup(0, 0) else _(MESSAGES["liquorice"])
        term.say(_(MESSAGES["status_value"]).format(winner=winner))
    if args.reachable:
        from spheria.games.special_cake.tablebase.build import BuildError, count_reachable

        if table.layout.top not in setup_done:
            raise CliError(_(MESSAGES["pack_needs_setup"]).format(directory=table.directory))
        try:
            count_reachable(spec, args.cache, output=term.say)
        except BuildError as error:
            raise CliError(_(MESSAGES["build_failed"]).format(error=error)) from None
    return 0


def _parse_levels(text: str | None, finished: list[int], option: str = "--levels") -> list[int]:
    if text is None:
        return finished
    try:
        low, _dash, high = text.partition("-")
        first, last = int(low), int(high or low)
    except ValueError:
        raise CliError(_(MESSAGES["bad_levels"]).format(option=option, text=text)) from None
    return [n for n in finished if first <= n <= last]


def _verify_setup(args: argparse.Namespace, table: Any, term: Terminal) -> int:
    from spheria.games.special_cake.tablebase.layout import SETUP
    from spheria.games.special_cake.tablebase.verify import check_setup, poisoned_solver_leaf, solver_leaf

    top = table.layout.top
    empties = _parse_levels(args.setup, list(range(1, top + 1)), "--setup")
    for empty in empties:
        if not table.has_level(top - empty, SETUP):
            raise CliError(_(MESSAGES["no_setup"]).format(directory=table.directory, empty=empty))
    rule = table.spec.line_rule
    leaf = poisoned_solver_leaf(rule, table.spec.universe) if table.spec.cherry else solver_leaf(rule)
    results = check_setup(table, empties, max(args.per_level, 1), random.Random(args.seed), leaf)
    bad = [position for result in results for position in result.mismatches]
    for empty, result in zip(empties, results, strict=True):
        term.say(
            _(MESSAGES["setup_line"]).format(
                empty=empty, checked=result.checked, won=result.won, mismatches=len(result.mismatches)
            )
        )
    for white, black in bad:
        says = _(MESSAGES["mint"]) if table.mint_wins_setup(white, black) else _(MESSAGES["liquorice"])
        term.say(_(MESSAGES["setup_mismatch"]).format(white=white, black=black, winner=says))
    if bad:
        raise CliError(_(MESSAGES["verify_bad"]).format(count=len(bad)))
    term.say(_(MESSAGES["verify_ok"]).format(checked=sum(result.checked for result in results)))
    return 0


def cmd_verify(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.games.special_cake.tablebase.build import build_dir
    from spheria.games.special_cake.tablebase.verify import (
        Journal,
        check_levels,
        poisoned_solver_value,
        solver_value,
        step_value,
    )

    spec = _spec(args)
    table = _table(build_dir(args.cache, spec), spec)
    if args.setup is not None:
        return _verify_setup(args, table, term)
    finished = [n for n in range(table.layout.top + 1) if table.has_level(n)]
    levels = _parse_levels(args.levels, finished)
    if not levels:
        raise CliError(_(MESSAGES["no_levels"]).format(directory=table.directory))
    if args.against == "step":
        if spec.cherry:
            raise CliError(_(MESSAGES["step_only_mint"]))
        if args.workers > 1:
            raise CliError(_(MESSAGES["workers_need_search"]))
        for n in levels:
            if n > 0 and not table.has_level(n - 1):
                raise CliError(_(MESSAGES["step_needs_below"]).format(level=n, below=n - 1))
    per_level = max(args.per_level, 1)
    journal = None
    if args.journal is not None:
        header = {
            "variant": spec.variant,
            "levels": levels,
            "per_level": per_level,
            "seed": args.seed,
            "against": args.against,
            "line_rule": spec.line_rule,
        }
        try:
            journal = Journal(args.journal, header)
        except (OSError, ValueError) as error:
            raise CliError(_(MESSAGES["bad_journal"]).format(error=error)) from None
    kept = len(journal.outcomes) if journal is not None else 0
    rng = random.Random(args.seed)
    if args.against == "step":
        value = step_value(table)
    else:
        value = poisoned_solver_value(spec.line_rule) if spec.cherry else solver_value(spec.line_rule)
    start = time.monotonic()
    with _evaluator(args.workers) as evaluate_all:
        checked, bad = 0, []
        for n in levels:
            [result] = check_levels(
                table, [n], per_level, rng, value, journal=journal, evaluate_all=_reporting(evaluate_all, n, term)
            )
            checked += result.checked
            bad += [(n, position) for position in result.mismatches]
            term.end_transient()
            term.say(
                _(MESSAGES["verify_line"]).format(
                    level=n, checked=result.checked, won=result.won, mismatches=len(result.mismatches)
                )
            )
    term.say(_(MESSAGES["verify_time"]).format(checked=checked, kept=kept, seconds=time.monotonic() - start))
    for n, position in bad:
        white, black, *cherry = position
        says = _(MESSAGES["won"]) if table.wins(*position) else _(MESSAGES["lost"])
        if cherry:
            line = _(MESSAGES["mismatch_poisoned"]).format(
                level=n, white=white, black=black, cherry=cherry[0], table=says
            )
        else:
            line = _(MESSAGES["mismatch"]).format(level=n, white=white, black=black, table=says)
        term.say(line)
    suffix = "" if args.against == "search" else "_step"
    if bad:
        raise CliError(_(MESSAGES["verify_bad" + suffix]).format(count=len(bad)))
    term.say(_(MESSAGES["verify_ok" + suffix]).format(checked=checked))
    return 0


@contextlib.contextmanager
def _evaluator(workers: int) -> Iterator[Callable[..., Iterable[int]]]:
    """``map``, or a process pool's ordered ``imap`` over ``workers`` processes."""
    if workers <= 1:
        yield map
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield lambda function, jobs: pool.imap(function, jobs, chunksize=1)


def _reporting(evaluate_all: Callable[..., Iterable[int]], level: int, term: Terminal) -> Callable[..., Iterable[int]]:
    """``evaluate_all`` with a progress line on a terminal while the values come in."""

    def evaluate(function: Callable[..., int], jobs: list[Any]) -> Iterator[int]:
        for done, result in enumerate(evaluate_all(function, jobs), 1):
            term.end_transient()
            term.transient(_(MESSAGES["verify_progress"]).format(level=level, done=done, total=len(jobs)))
            yield result

    return evaluate
