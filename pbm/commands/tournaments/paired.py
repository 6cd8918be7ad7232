"""Paired games in a tournament's commands and mails: `--paired` (and a knockout's
`--decider=pair|seed`) at creation, the rounds players see, the games to start, and what a round
mail says of a pairing (pbm.tournaments.paired pairs them).

Decisions:
- A round robin or Swiss counts its games' rounds two a pairing round (pbm.tournaments.paired);
  players, mails and pages see pairing rounds: round 2 of 5 is the games' rounds 3 and 4.
- `--paired` goes with every system but not with `--double` (a paired round robin already plays
  everyone twice, both games at once), nor with a Swiss director's `--accelerated`, `--late` and
  `--byes`, which count single rounds.
- A knockout's tied pair is decided by another pair (`--decider=pair`, the default), again until
  one is won; a pair with a double forfeit (both withdrew) sends the higher seed through, as an
  unpaired knockout does.
"""
from __future__ import annotations

from babel.support import LazyProxy

from pbm import catalogue
from pbm.commands import wording
from pbm.commands.base import CommandError
from pbm.i18n import _, lazy
from pbm.model.play.tournaments import Played, Tournament
from pbm.tournaments import Entrant, Game, Pairing, paired


def option(options: dict[str, str], system: str, double: bool,
           directed: tuple[bool, int, int]) -> str:
    """--paired and --decider taken out of `options`: "" for single games, else the decider of a
    tied knockout pair ("pair" for the other systems, which have none)."""
    wanted = "paired" in options
    if options.pop("paired", ""):
        raise CommandError(_("--paired stands alone, without a value: every pairing is then two "
                             "games started together, colours reversed."))
    decider = options.pop("decider", None)
    if decider is not None and (system != "knockout" or not wanted
                                or decider.lower() not in paired.DECIDERS):
        raise CommandError(_("--decider={given}: a paired knockout (--system=knockout --paired) "
                             "decides a tied pair by --decider=pair, a further pair of games "
                             "(the default), or --decider=seed, the higher seed going "
                             "through.").format(given=decider))
    if wanted and (double or any(directed)):
        raise CommandError(_("--paired does not go with --double, --accelerated, --late or "
                             "--byes: a paired round robin already plays everyone twice, and "
                             "the Swiss director's choices count single games."))
    return (decider or "pair").lower() if wanted else ""


def described(t: Tournament) -> list[str]:
    """What a player should know of paired games before joining."""
    if not t.paired:
        return []
    found = [_("Paired games: every pairing is two games started together, colours reversed; it "
               "scores the points of both games (1.5-0.5 and so on).")]
    if t.system == "knockout":
        found.append(_("A match goes to the higher total of the pair; a tie is decided by a "
                       "further pair of games, again until one is won.") if t.paired == "pair"
                     else _("A match goes to the higher total of the pair; on a tie the higher "
                            "seed goes through."))
    return found


def per_round(t: Tournament) -> int:
    """The games' rounds in one round as players see it: two in a paired round robin or Swiss."""
    return 2 if t.paired and t.system != "knockout" else 1


def shown(t: Tournament, round_no: int) -> int:
    """The round players see for the games' round `round_no`."""
    return -(-round_no // per_round(t))


def current(t: Tournament) -> set[int]:
    """The games' rounds of the round being played."""
    return set(range(t.round - per_round(t) + 1, t.round + 1))


def grouped(t: Tournament, rows: list[Played]) -> list[Played]:
    """The current round's rows; paired, with each pairing's games together, in the order the
    pairings were made, a bye once."""
    if not t.paired:
        return rows
    order: dict[tuple[str, str | None], int] = {}
    for p in rows:
        order.setdefault(players(p.game), len(order))
    seen: set[tuple[str, str | None]] = set()
    found = []
    for p in sorted(rows, key=lambda p: order[players(p.game)]):
        if p.game.bye and players(p.game) in seen:
            continue
        seen.add(players(p.game))
        found.append(p)
    return found


def score_line(values: dict, last: Played) -> list[str]:
    """After the last game of a pairing among the current round's boards, once all its games are
    decided, the pairing's score, its first game's White first (a board line of its own)."""
    t: Tournament = values["tournament"]
    mine = [p.game for p in values["current"] if players(p.game) == players(last.game)]
    if not t.paired or last.game.bye or mine[-1] != last.game:
        return []
    found = paired.pairing_score(mine[0].white, mine)
    if found is None:
        return []
    _opponent, first, second = found
    score = _("the pairing: {white}-{black}").format(white=f"{first:g}", black=f"{second:g}")
    return [f"{'':>3}  {mine[0].white:<17} {mine[0].black:<17} {score}"]


def players(game: Game) -> tuple[str, str | None]:
    """Who plays `game`, in an order that is the same for both games of a pairing."""
    return (game.white, None) if game.black is None else tuple(sorted((game.white, game.black)))


def rounds_needed(t: Tournament, n_entrants: int) -> int:
    """The games' rounds of a paired tournament of `n_entrants` (pbm.tournaments.paired); a
    Swiss's `rounds` count games' rounds from its creation on."""
    return paired.rounds_needed(t.system, n_entrants, t.rounds and t.rounds // 2)


def next_pairings(t: Tournament, entrants: list[Entrant], played: list[Game],
                  withdrawn: set[str]) -> list[Pairing]:
    """The games of the next pairing round, both games of each pairing; none once it is over."""
    if t.system == "knockout":
        return paired.next_knockout(entrants, played, withdrawn, t.paired)
    if t.round >= (t.rounds or 0) or (t.system == "swiss" and len(entrants) - len(withdrawn) < 2):
        return []
    return paired.pair_round(t.system, entrants, played, t.round + 1, withdrawn=withdrawn,
                             rounds=t.rounds)


def owed(t: Tournament, entrants: list[Entrant], played: list[Game],
         withdrawn: set[str]) -> list[Pairing]:
    """A paired knockout's decider pairs owed in the current round."""
    if t.system != "knockout":
        return []
    return paired.deciders(entrants, played, t.round, withdrawn, t.paired)


def game_of(t: Tournament, pairing: Pairing, before: list[Game]) -> int:
    """Which game of its pairing `pairing` is (1, 2; 3 and 4 a knockout's first decider pair),
    `before` the games started before it."""
    if t.system != "knockout":
        return 2 - pairing.round % 2
    return 1 + sum(1 for g in before if g.round == pairing.round
                   and {g.white, g.black} == {pairing.white, pairing.black})


def scores(t: Tournament, user: str, played: list[Game]) -> list[str]:
    """`user`'s result in the pairing round just finished (before the current one)."""
    last = shown(t, t.round) - 1
    found = paired.pairing_score(user, [g for g in played if shown(t, g.round) == last])
    if found is None:
        return []
    opponent, mine, theirs = found
    return [_("Your pairing of round {number} against {user}: {mine}-{theirs}.").format(
        number=last, user=opponent, mine=f"{mine:g}", theirs=f"{theirs:g}")]


def headline(t: Tournament, pairing: Pairing, before: list[Game]) -> LazyProxy:
    """The first line of a paired game's first mail, written in its reader's language (`lazy`)."""
    game = game_of(t, pairing, before)
    return lazy(lambda: _(
        "Round {round} of the {title} tournament {name}, board {board}, game {game} of the "
        "pairing {white} against {black} (paired games: colours reversed in the other). The game "
        "counts from now: both clocks run, and resigning is a loss.").format(
        round=shown(t, pairing.round), title=wording.name(catalogue.title(t.variant)),
        name=t.name, board=pairing.board, game=game, white=pairing.white, black=pairing.black))


def games_line(values: dict, user: str) -> list[str]:
    """`user`'s games (or bye) in the current round of a paired tournament: both in one line."""
    t: Tournament = values["tournament"]
    mine = [p for p in values["current"] if user in (p.game.white, p.game.black)]
    if any(p.game.bye for p in mine):
        return [_("You have a bye in round {number}.").format(number=shown(t, t.round))]
    running = [p for p in mine if p.game.result is None]
    if not running:
        return []
    games_text = _("; ").join(_("{title} Board {number}, you play {side}").format(
        title=values["title"], number=p.number,
        side=wording.name(values["sides"][0 if user == p.game.white else 1])) for p in running)
    return [_("Your games against {user}: {games}.").format(
        user=running[0].game.opponent(user), games=games_text)]
