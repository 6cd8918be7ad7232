"""The choices a director makes when creating a tournament beyond its system: the tie-breaks
(`--tiebreaks`, FIDE's abbreviations in order), the rating band of the entry (`--band=MIN-MAX`:
a player whose rating in that game, 1500 for a new player, is outside may not join; `--sure`:
nor may one whose rating is not sure, with or without a band) and the theme
(`--theme=MOVES`: every game starts from the position after these moves, in any notation the
server reads, kept as coordinates; the games stay rated, and their records show the moves as book
with the position they start from)."""
from __future__ import annotations

import re

import rules
from pbm import catalogue
from pbm.commands import wording
from pbm.commands.games import play
from pbm.commands.base import CommandError
from pbm.i18n import _
from pbm.model.play.tournaments import Tournament
from pbm.ratings import correspondence
from pbm.ratings.glicko2 import Glicko
from pbm.tournaments import tiebreaks as fide

BAND = re.compile(r"(\d{1,4})-(\d{1,4})")


def tiebreaks(options: dict[str, str], system: str) -> tuple[str, ...] | None:
    """--tiebreaks taken out of `options`: FIDE's abbreviations in order (None: the defaults)."""
    given = options.pop("tiebreaks", None)
    if given is None:
        return None
    if system == "knockout":
        raise CommandError(_("--tiebreaks is for round robins and Swiss tournaments: a knockout "
                             "ranks its players by the round they reached."))
    codes = tuple(code.strip().upper() for code in given.split(","))
    usable = [c for c in fide.NAMES if system != "roundrobin"
              or c not in fide.NOT_IN_ROUND_ROBINS]
    for code in codes:
        if code in fide.NOT_IN_ROUND_ROBINS and system == "roundrobin":
            raise CommandError(_("--tiebreaks={given}: {code} is a Buchholz, which FIDE's rules do "
                                 "not use in a round robin, where everyone meets everyone. Choose "
                                 "from: {codes}.").format(given=given, code=code,
                                                          codes=",".join(usable)))
        if code not in fide.NAMES or codes.count(code) > 1:
            raise CommandError(_("--tiebreaks={given}: \"{code}\" is not a tie-break pbm knows, or "
                                 "it is there twice. Give FIDE's abbreviations, each once, in "
                                 "order, for example --tiebreaks={example}; from: {codes}.").format(
                given=given, code=code, example="BH-C1,BH,SB" if system == "swiss" else "SB,DE",
                codes=",".join(usable)))
    return codes


def band(options: dict[str, str]) -> tuple[tuple[int, int] | None, bool]:
    """--band=MIN-MAX and --sure taken out of `options`: the lowest and highest rating that may
    join (None: any), and whether only sure ratings may."""
    sure = "sure" in options
    if options.pop("sure", ""):
        raise CommandError(_("--sure stands alone, without a value: it lets in only players whose "
                             "rating is sure (deviation at most {sure}), for example --band=1600-1900 "
                             "--sure.").format(sure=round(correspondence.SURE)))
    given = options.pop("band", None)
    if given is None:
        return None, sure
    found = BAND.fullmatch(given.strip())
    if found is None or int(found[1]) > int(found[2]):
        raise CommandError(_("--band={given} is not a rating band: write --band=MIN-MAX, the lowest "
                             "and the highest rating that may join, for example --band=1400-1800."
                             ).format(given=given))
    return (int(found[1]), int(found[2])), sure


def check_band(t: Tournament, user: str, rating: Glicko, sure: bool) -> None:
    """Refuse `user`'s entry when their rating (as of now) is outside the tournament's band, or,
    `sure` (--sure), not sure."""
    command = f"{t.variant} tournaments"
    if t.band is not None and not t.band[0] <= round(rating.rating) <= t.band[1]:
        raise CommandError(_("{name} takes players rated {low} to {high} in {title}, and the rating of "
                             "{user} is {rating}. Tournaments that take everyone: {command}").format(
            name=t.name, low=t.band[0], high=t.band[1], title=catalogue.title(t.variant), user=user,
            rating=correspondence.shown(rating), command=command))
    if sure and not correspondence.sure(rating):
        raise CommandError(_("{name} takes only players whose {title} rating is sure: deviation at "
                             "most {sure}, shown as ± {twice} or less. The rating of {user} is "
                             "{rating}; it grows surer with every rated game. Tournaments that take "
                             "everyone: {command}").format(
            name=t.name, title=catalogue.title(t.variant), sure=round(correspondence.SURE),
            twice=round(2 * correspondence.SURE), user=user, rating=correspondence.shown(rating),
            command=command))


def described(t: Tournament, sure: bool) -> list[str]:
    """The choices worth telling whoever reads about the tournament before it starts."""
    found = []
    if t.band is not None:
        found.append(_("Players rated {low} to {high} in {title} may join (a new player counts "
                       "as {start}).").format(low=t.band[0], high=t.band[1],
                                              title=catalogue.title(t.variant),
                                              start=round(correspondence.START.rating)))
    if sure:
        found.append(_("Only sure ratings may join: deviation at most {sure}, shown as ± {twice} or "
                       "less.").format(sure=round(correspondence.SURE),
                                       twice=round(2 * correspondence.SURE)))
    if t.theme:
        found.append(_("A thematic tournament: every game starts after {moves}.").format(
            moves=book(t)))
    return found


def theme(options: dict[str, str], variant: str, params: dict) -> tuple[str, ...] | None:
    """--theme=MOVES taken out of `options`, played from the start: the moves as coordinates."""
    given = options.pop("theme", None)
    if given is None:
        return None
    game = play.opening(variant, params)[0]
    texts = [text.strip() for text in given.split(",") if text.strip()]
    for i, text in enumerate(texts, start=1):
        try:
            game.play(text)
        except rules.RulesError as e:
            raise CommandError(_("--theme={given}: move {i}, {move}, cannot be played: {why} Give "
                                 "the moves from the start, comma-separated, for example "
                                 "--theme=h3e3,h10g8.").format(given=given, i=i, move=text,
                                                              why=wording.refusal(e))) from None
    if not texts or game.result != "*":
        raise CommandError(_("--theme={given} leaves no game to play: give the opening moves, "
                             "comma-separated, after which every game starts, for example "
                             "--theme=h3e3,h10g8.").format(given=given))
    return tuple(game.moves)


def themed(t: Tournament) -> rules.Game:
    """The game of the tournament's variant and parameters after its theme."""
    game = play.opening(t.variant, t.params)[0]
    for move in t.theme or ():
        game.play(move)
    return game


def book(t: Tournament) -> str:
    """The theme as the game's notation writes it, numbered (1. h3e3 h10g8)."""
    notation = themed(t).notation
    return " ".join(f"{i // 2 + 1}. {n}" if i % 2 == 0 else n for i, n in enumerate(notation))
