"""A Swiss director's tools: Baku acceleration, late entries, half-point byes asked for in advance,
and results corrected after the fact (`GAME tournament bye|correct ...`; `--accelerated`,
`--late=N`, `--byes=N` at creation).

Decisions:
- `--accelerated` pairs by FIDE's Baku method (C.04.5.1: pbm.tournaments.acceleration).  It does
  not go with `--late`: Baku's two groups are drawn from the list at the start.
- `--late=N`: players may still join until round N is paired (N at least 2); as FIDE's Swiss
  regulations (C.04.2, late entries) say, they score nothing for the rounds before and get their
  pairing number when first paired (by rating among the players paired, as at the start).
- `--byes=N`: a player may ask for up to N half-point byes, each for a round not yet paired, not
  the last one (where a half point could decide a prize unseen); the round is paired without them.
- `correct` (the director or an administrator): a decided result of a round already paired is
  changed; the standings and tie-breaks follow from it, the rating change of a rated game is
  taken back and the new result rated, and the rounds paired since stay as they are (the mail
  says so), as an arbiter does with a result entered wrongly.
"""
from __future__ import annotations

from pbm import catalogue
from pbm.commands.base import CommandError, Context
from pbm.commands.games import turns
from pbm.commands.tournaments import paired, rounds
from pbm.i18n import _, lazy, ngettext
from pbm.model.play import games, tournaments
from pbm.model.play.tournaments import Tournament
from pbm.model.players import ratings
from pbm.tournaments.model import POINTS


def options(given: dict[str, str], system: str) -> tuple[bool, int, int]:
    """--accelerated, --late=N and --byes=N taken out of `given`: (accelerated, late, byes)."""
    accelerated = "accelerated" in given
    if given.pop("accelerated", "") != "":
        raise CommandError(_("--accelerated (alone, without a value) pairs a Swiss by FIDE's Baku "
                             "acceleration."))
    late, byes = (_number(given, key) for key in ("late", "byes"))
    if (accelerated or late or byes) and system != "swiss":
        raise CommandError(_("--accelerated, --late and --byes are for Swiss tournaments."))
    if late == 1:
        raise CommandError(_("--late=1 would change nothing: everyone entered by the start plays "
                             "round 1. Write --late=N with N at least 2, the last round a late "
                             "entry is paired in."))
    if accelerated and late:
        raise CommandError(_("--accelerated and --late do not go together: Baku's acceleration "
                             "splits the players entered at the start into its two groups."))
    return accelerated, late, byes


def _number(given: dict[str, str], key: str) -> int:
    value = given.pop(key, None)
    if value is None:
        return 0
    if not value.isdigit() or not 0 < int(value) <= 50:
        raise CommandError(_("--{key}={value} is not a number of rounds: write --{key}=N, N from 1 "
                             "to 50.").format(key=key, value=value))
    return int(value)


def described(t: Tournament) -> list[str]:
    """The director's choices worth telling a player before they join."""
    found = []
    if t.accelerated:
        found.append(_("Paired with FIDE's Baku acceleration: in the first half of the rounds the "
                       "top half of the field is paired as if it had a point more (half a point "
                       "later)."))
    if t.late:
        found.append(_("Players may still join after the start, until round {number} is paired; "
                       "they score nothing for the rounds before.").format(number=t.late))
    if t.byes:
        found.append(ngettext(
            "A player may ask for {n} half-point bye, for a round not yet paired: {command}",
            "A player may ask for up to {n} half-point byes, each for a round not yet paired: "
            "{command}", t.byes).format(
            n=t.byes, command=f"{t.variant} tournament bye {t.name} USERID PASSWORD ROUND"))
    return found


def late_entry(t: Tournament) -> bool:
    """Whether a running tournament still takes entries (round `late` not yet paired)."""
    return t.status == tournaments.RUNNING and t.round < t.late


def bye(ctx: Context, t: Tournament, user: str, words: list[str]) -> None:
    """A half-point bye asked for in advance."""
    entry = next((e for e in tournaments.entries(ctx.db, t) if e.user == user), None)
    if entry is None or entry.withdrawn or t.status not in (tournaments.OPEN, tournaments.RUNNING):
        raise CommandError(_("You are not playing in {name}.").format(name=t.name))
    if not t.byes:
        raise CommandError(_("{name} gives no half-point byes on request; its director set none "
                             "at creation (--byes=N).").format(name=t.name))
    first, word = t.round + 1, words[0]
    if not word.isdigit() or not first <= int(word) < (t.rounds or 0):
        raise CommandError(_("Round \"{word}\": a half-point bye is for a round not yet paired and "
                             "not the last one; write its number, for example {command}.").format(
            word=word, command=f"{t.variant} tournament bye {t.name} {user} PASSWORD {first}"))
    asked = tournaments.byes_asked(ctx.db, t).get(user, set())
    if int(word) in asked:
        raise CommandError(_("You have already asked for a half-point bye in round {number}.").format(
            number=int(word)))
    if len(asked) >= t.byes:
        raise CommandError(ngettext(
            "{name} gives each player at most {n} half-point bye, and you have asked for it "
            "(round {rounds}).",
            "{name} gives each player at most {n} half-point byes, and you have asked for them "
            "(rounds {rounds}).", t.byes).format(name=t.name, n=t.byes,
                                                 rounds=", ".join(map(str, sorted(asked)))))
    tournaments.ask_bye(ctx.db, t, user, int(word), ctx.now)
    ctx.answer(_("{title} tournament {name}").format(title=catalogue.title(t.variant), name=t.name),
               "note.j2", lines=[_("You will not be paired in round {number} of {name}: you get "
                                   "half a point for it.").format(number=int(word), name=t.name)])


def correct(ctx: Context, t: Tournament, user: str, words: list[str]) -> None:
    """The director changes a decided result of a round already paired."""
    if user != t.director and user not in (a.lower() for a in ctx.config.admins.users):
        raise CommandError(_("Only the director of {name}, {director}, can correct its "
                             "results.").format(name=t.name, director=t.director))
    board_word, result = words[0], words[1]
    row = next((p for p in tournaments.played(ctx.db, t)
                if p.number is not None and str(p.number) == board_word), None)
    if row is None:
        raise CommandError(_("Board {board} is not a game of {name}; the boards are in its round "
                             "mails and in: {command}").format(
            board=board_word, name=t.name, command=f"{t.variant} tournament show {t.name}"))
    if result not in POINTS or row.game.result is None:
        raise CommandError(_("{result} is not a result to give Board {board}: it must be decided "
                             "already, and the result is one of {results} (White first).").format(
            result=result, board=board_word, results=", ".join(POINTS)))
    board, was = games.get(ctx.db, row.game_id), row.game.result

    def first(given: str) -> float:           # the points of the game's first player (player1)
        return POINTS[given][0 if row.game.white == board.player1 else 1]
    # the game's own record follows the director's result (a double forfeit keeps its record and
    # is no longer rated), and the ratings are rated again from that game on
    winner = None if result == "--" or first(result) == 0.5 else \
        board.player1 if first(result) == 1 else board.player2
    games.correct_result(ctx.db, board, winner, board.result if result == "--" else
                         turns.result_for(board, winner), board.rated and result != "--")
    if board.rated and board.accepted:
        ratings.rerate_from(ctx.db, t.variant, board.id)
    tournaments.correct(ctx.db, t, row, result, user, ctx.now)
    games.add_event(ctx.db, board, "corrected", user, f"{t.name}: {was} -> {result}", ctx.now)
    title = catalogue.title(t.variant)
    rounds.mail_everyone(ctx, t, lazy(lambda: _("{title} tournament {name}: a result corrected").format(
        title=title, name=t.name)), [lazy(lambda: _(
            "{user}, the director, corrected the result of round {round}, Board {board} ({white} "
            "against {black}) from {was} to {now}. The standings, tie-breaks and ratings below "
            "follow from it; the rounds paired since stay as they are.").format(
            user=user, round=paired.shown(t, row.game.round), board=board_word, white=row.game.white,
            black=row.game.black, was=was, now=result))])
