"""Names and endings in the reader's language: game titles, side and piece names, how a game ended,
and the legend under the ASCII board.

The rules core and the database speak English (a game's reason is stored as the rules wrote it:
`perpetual check by Black`, `alice resigned`); these are translated when shown.  A text not known
here (an administrator's own words) is shown as it is.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import rules
from pbm import i18n
from pbm.i18n import N_, _
from rules.named import piece_of_record
from rules.game import REPEATING
from rules.said import Said, said
from rules.variant import Arrangement

# Names that come from data (rules.variant, catalogue), marked here for the catalogs.
TITLES = (N_("Xiangqi"), N_("Janggi"), N_("Padwar qi"), N_("Gi-Qi-Game"))
SIDES = (N_("Red"), N_("Black"), N_("Cho"), N_("Han"), N_("White"))
PIECES = (N_("king"), N_("advisor"), N_("elephant"), N_("horse"), N_("rook"), N_("chariot"),
          N_("cannon"), N_("soldier"),
          # Gi-Qi-Game's (a promotion's headline names the piece promoted to)
          N_("bodyguard"), N_("lance"), N_("knight"), N_("bishop"), N_("peasant"), N_("foot soldier"),
          N_("yeoman"), N_("warrior"), N_("arrow"), N_("heavy cavalry"), N_("dragon rook"),
          N_("dragon knight"), N_("dragon bishop"), N_("marshal"), N_("queen"), N_("adjutant"),
          # Padwar qi's
          N_("chief"), N_("padwar"), N_("thoat"), N_("dwar"), N_("Martian cannon"), N_("pathan"))

# What the letters of the ASCII board mean, for readers of another language than English (the
# English legend is the rules core's); the letters stay, so that the board keeps its columns.
LEGENDS = {
    "xiangqi": N_("r = Red (moves first), b = Black.  K general, G advisor, E elephant, "
                  "H horse, R chariot, C cannon, S soldier."),
    "janggi": N_("c = Cho (moves first), h = Han.  K general, G guard, E elephant, H horse, "
                 "R chariot, C cannon, S soldier."),
    "padwarqi": N_("r = Red (moves first), b = Black.  C chief, W warrior, P padwar, T thoat, D dwar, "
                   "M Martian cannon, N pathan.  Every piece walks exactly its number of steps through "
                   "empty points: \"padwarqi help\" shows the walks."),
    "giqi": N_("w = White (moves first), b = Black; + after a letter: promoted.  K king, G bodyguard "
               "(G+ warrior), E elephant (E+ arrow), H horse (H+ heavy cavalry), L lance (L+ cannon), "
               "R rook (R+ dragon rook), N knight (N+ dragon knight), B bishop (B+ dragon bishop), "
               "P peasant (P+ marshal), F foot soldier (F+ queen), Y yeoman (Y+ adjutant).  Row 5 is "
               "the river: * marks a strong square (a piece there has crossed), ~ a weak one."),
}


def name(text: str) -> str:
    """A title, side or piece name in the reader's language."""
    return _(text)


def legend(variant: str) -> str:
    """The board's legend in the reader's language ("" for a game without one here)."""
    return _(LEGENDS[variant]) if variant in LEGENDS else ""


_MARGIN = re.compile(r"(?<=   )(Red|Black|Cho|Han|White|river)$")     # after a row's last column
_HAND = re.compile(r"In (\w+)'s hand: (.*)$")
RIVER = N_("river")


def board(game: rules.Game, turned: bool, variant: str, english: bool) -> str:
    """The ASCII board; for a reader of another language, the words beside it (side names, the
    river, the hands) and its legend in theirs.  The grid keeps its letters, and so its columns."""
    text = game.board(turned)
    if english or not legend(variant):
        return text
    kept = game.variant.legend
    lines = text.split("\n")
    if kept:
        lines = lines[:-len(kept) - 1]
    while lines and not lines[-1]:
        lines.pop()
    lines = [hand(_MARGIN.sub(lambda m: name(m[1]), line)) for line in lines]
    return "\n".join(lines) + "\n\n" + legend(variant)


def hand(line: str) -> str:
    """A line of the rules core's `In White's hand: ...` in the reader's language (others as they are)."""
    return _HAND.sub(lambda m: _("In {side}'s hand: {pieces}").format(side=name(m[1]), pieces=m[2]), line)


_COUNT = re.compile(r"(\w+) ([\d.]+) - (\w+) ([\d.]+)")


def _count(text: str) -> str:
    """`Cho 72 - Han 73.5` with the side names translated."""
    return _COUNT.sub(lambda m: f"{name(m[1])} {m[2]} - {name(m[3])} {m[4]}", text)


_CHASE = re.compile(r"perpetual chase of the (?P<piece>[\w ]+) on (?P<square>\w+) by (?P<side>\w+)$")


def _chase(m: re.Match, variant: str | None) -> str:
    """`perpetual chase of the cannon on b7 by Red`, the chased piece named in the reader's notation
    where the game is known (Red's chase is of Black's piece)."""
    piece = said("the {piece} on {square}", piece=said(m["piece"]), square=m["square"])
    if variant:
        v = rules.get_variant(variant)
        if m["side"] in v.side_names and any(p.name == m["piece"] for p in v.pieces):
            owner = v.side_names[1 - v.side_names.index(m["side"])]
            piece = piece_of_record(v, m["square"], m["piece"], owner)
    return _("perpetual chase of {piece} by {side}").format(side=name(m["side"]), piece=said_in(piece))


# stored reason -> its words in the reader's language
_REASONS: tuple[tuple[str, Callable[[re.Match], str]], ...] = (
    (r"checkmate", lambda m: _("checkmate")),
    (r"stalemate", lambda m: _("stalemate")),
    (r"by agreement", lambda m: _("by agreement")),
    (r"repetition(: draw)?", lambda m: _("repetition")),
    (r"bikjang", lambda m: _("bikjang")),
    (r"two passes in a row", lambda m: _("two passes in a row")),
    (r"every move would repeat an earlier position",
     lambda m: _("every move would repeat an earlier position")),
    (r"neither side can capture the other's king",
     lambda m: _("neither side can capture the other's king")),
    (r"perpetual check by (?P<side>\w+)", lambda m: _("perpetual check by {side}").format(
        side=name(m["side"]))),
    (r"(?P<n>\d+) plies without capture", lambda m: _("{n} plies without capture").format(n=m["n"])),
    (r"(?P<why>.+): drawn on points, (?P<count>.+)", lambda m: _(
        "{why}: drawn on points, {count}").format(why=reason(m["why"]), count=_count(m["count"]))),
    (r"(?P<why>.+): decided on points, (?P<count>.+)", lambda m: _(
        "{why}: decided on points, {count}").format(why=reason(m["why"]), count=_count(m["count"]))),
    (r"(?P<user>\w+) resigned", lambda m: _("{user} resigned").format(user=m["user"])),
    (r"(?P<user>\w+) declined the challenge", lambda m: _("{user} declined the challenge").format(
        user=m["user"])),
    (r"(?P<user>\w+) withdrew the challenge", lambda m: _("{user} withdrew the challenge").format(
        user=m["user"])),
    (r"(?P<user>\w+) did not move within (?P<days>[\d.]+) days?", lambda m: i18n.ngettext(
        "{user} did not move within {days} day", "{user} did not move within {days} days",
        float(m["days"])).format(user=m["user"], days=m["days"])),
    (r"(?P<user>\w+) did not move within (?P<hours>\d+) hours?", lambda m: i18n.ngettext(
        "{user} did not move within {hours} hour", "{user} did not move within {hours} hours",
        int(m["hours"])).format(user=m["user"], hours=m["hours"])),
    (r"(?P<user>\w+) ran out of time", lambda m: _("{user} ran out of time").format(user=m["user"])),
    (r"(?P<user>\w+) ran out of time, and (?P<opponent>\w+) could not win", lambda m: _(
        "{user} ran out of time, and {opponent} could not win").format(user=m["user"],
                                                                       opponent=m["opponent"])),
    (r"(?P<user>\w+) did not take up the challenge within (?P<days>[\d.]+) days?", lambda m: i18n.ngettext(
        "{user} did not take up the challenge within {days} day",
        "{user} did not take up the challenge within {days} days", float(m["days"])).format(
        user=m["user"], days=m["days"])),
    (r"(?P<user>\w+) withdrew from the tournament (?P<name>[\w-]+)", lambda m: _(
        "{user} withdrew from the tournament {name}").format(user=m["user"], name=m["name"])),
    (r"(?P<user>\w+) was withdrawn from the tournament (?P<name>[\w-]+) by (?P<director>\w+)", lambda m: _(
        "{user} was withdrawn from the tournament {name} by {director}").format(
        user=m["user"], name=m["name"], director=m["director"])),
    (r"adjudicated by (?P<admin>\w+): (?P<why>.*)", lambda m: _(
        "adjudicated by {admin}: {why}").format(admin=m["admin"], why=m["why"])),
    (r"(?P<user>\w+) forfeited, ruled by (?P<admin>\w+): (?P<why>.*)", lambda m: _(
        "{user} forfeited, ruled by {admin}: {why}").format(user=m["user"], admin=m["admin"],
                                                           why=m["why"])),
    (r"by (?P<admin>\w+): (?P<why>.*)", lambda m: _("by {admin}: {why}").format(
        admin=m["admin"], why=m["why"])),
)


def reason(text: str, variant: str | None = None) -> str:
    """How a game ended (`board.reason`, `game.reason`), in the reader's language, and the points
    it names in the reader's notation where the game (`variant`) is known."""
    if found := _CHASE.match(text):
        return _chase(found, variant)
    for pattern, words in _compiled(_REASONS):
        if found := pattern.match(text):
            return words(found)
    return text


_WARNINGS: tuple[tuple[str, Callable[[re.Match], str]], ...] = (
    # the status line above it says the kings face each other (and what to do): not said twice
    (r"the kings face each other \(bikjang\): passing now ends the game, as (?P<outcome>.+)", lambda m: _(
        "Passing now ends the game, as {outcome}.").format(outcome=_pass_outcome(m["outcome"]))),
    (r"(?P<why>.+): passing now ends the game, as (?P<outcome>.+)", lambda m: _(
        "{why}: passing now ends the game, as {outcome}.").format(why=_why_pass(m["why"]),
                                                                 outcome=_pass_outcome(m["outcome"]))),
)


def _repeated(why: str) -> str:
    return _("perpetual check") if why == "perpetual check" else said_in(why)


def _why_pass(why: str) -> str:
    if why == "your opponent passed":
        return _("Your opponent passed")
    if why == "the kings face each other (bikjang)":
        return _("The kings face each other (bikjang)")
    return why


def _pass_outcome(outcome: str) -> str:
    if outcome == "a draw":
        return _("a draw")
    if found := re.fullmatch(r"a draw on points, (?P<count>.+)", outcome):
        return _("a draw on points, {count}").format(count=_count(found["count"]))
    if found := re.fullmatch(r"a win on points for (?P<side>\w+), (?P<count>.+)", outcome):
        return _("a win on points for {side}, {count}").format(side=name(found["side"]),
                                                                count=_count(found["count"]))
    return outcome


@cache
def _compiled(table: tuple[tuple[str, Callable[[re.Match], str]], ...]) -> list[tuple[re.Pattern, Callable]]:
    """`table`'s patterns compiled (whole texts), once, when a process first words a game's end or
    a warning: most mails do neither, and the patterns take milliseconds to compile."""
    return [(re.compile(pattern + "$"), words) for pattern, words in table]


def warning(text: str) -> str:
    """A warning of the rules core (`game.warnings`) as a sentence in the reader's language, its
    move in the reader's notation."""
    if isinstance(text, Said) and text.template == REPEATING:
        return _("Repeating the cycle once more, from {move} on, would lose by {why}.").format(
            move=said_in(text.values["move"]), why=_repeated(text.values["why"]))
    for pattern, words in _compiled(_WARNINGS):
        if found := pattern.match(text):
            return words(found)
    return f"{text[:1].upper()}{text[1:]}."


def said_in(text: object) -> str:
    """A text of the rules core (rules.said: a refusal, its piece and side names) in the reader's
    language, each of its values in turn, and its points and moves in the reader's notation
    (rules.named); any other text as it is."""
    if not isinstance(text, Said):
        return str(text)
    if (known := text.names.get(i18n.notation())) is not None:
        return known
    side = text.values.get("side")
    if isinstance(side, int) and "{" not in text.template:
        # a piece of one side: a translation naming both sides' pieces (兵/卒, 졸/병) names the
        # first side's first
        names = _(text.template).split("/")
        faces = text.values.get("faces", ())
        return next((n for n in names if n in faces), names[min(side, len(names) - 1)])
    return _(text.template).format(**{name: _quoted(said_in(value)) if isinstance(value, str) else value
                                      for name, value in text.values.items()})


def _quoted(value: str) -> str:
    """A player's words the rules core quoted (`'炮二平十'`, Python's quotes) in the reader's quotes:
    “炮二平十” in simplified Chinese, 「炮二平十」 in traditional; as they are in English and Korean."""
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "'\"":
        return value
    marks = {"zh-Hans": "“”", "zh-Hant": "「」"}.get(i18n.language())
    return f"{marks[0]}{value[1:-1]}{marks[1]}" if marks else value


def refusal(error: rules.RulesError) -> str:
    """Why the rules core refused a move, as a sentence in the reader's language."""
    return _("{why}.").format(why=said_in(error.args[0] if error.args else str(error)))


def arrangement(a: Arrangement, side: str) -> str:
    """`the setup outer, 상마마상 (sang-ma-ma-sang), EHHE from Han's left`: the names a player finds
    in the help page, and the letters of the board.  Korean players name a setup by its Hangul name
    alone (as `.gib` records do), Chinese readers by that name with its pieces in Chinese: the key
    and the letters are English words (`named`)."""
    if i18n.language() != "en":
        return named(a)
    return _("the setup {key}, {hangul} ({romanized}), {letters} from {side}'s left").format(
        key=a.key, hangul=a.hangul, romanized=a.romanized, letters=a.letters, side=name(side))


def named(a: Arrangement) -> str:
    """A setup's name in a sentence: `outer` (the word of `setup outer`) in English, `상마마상` in
    Korean, `상마마상（象马马象）` in Chinese."""
    if i18n.language() == "en":
        return a.key
    return _("{hangul} ({romanized})").format(hangul=a.hangul, romanized=_(a.romanized))


def setups_menu(arrangements: tuple[Arrangement, ...]) -> str:
    """The setups a player may choose, numbered, in the reader's words: `1 inner: 마상상마
    (ma-sang-sang-ma), HEEH from your left: ...` in English, `1 마상상마（马象象马）：马在车旁，...`."""
    if i18n.language() == "en":
        return "; ".join(a.describe(n) for n, a in enumerate(arrangements, start=1))
    return _("; ").join(_("{number} {name}: {description} ({swap})").format(
        number=n, name=named(a), description=_(a.english), swap=_(a.swap))
        for n, a in enumerate(arrangements, start=1))


# What the status page's record says of each event the database keeps (pbm.model.play.games.add_event):
# the kinds are codes, the details are the command's words, a setup's key, a tournament's pairing.
EVENTS = {
    "challenge": N_("{user} challenged: {detail}"),
    "accept": N_("{user} took up the challenge"),
    "seek-taken": N_("{user} took the open challenge ({detail})"),
    "setup": N_("{user} chose the setup {detail}"),
    "draw-offer": N_("{user} offered a draw"),
    "draw-rejected": N_("{user} declined the draw"),
    "draw-agreed": N_("{user} accepted the draw"),
    "undo-offer": N_("{user} asked to take back a move"),
    "undo-rejected": N_("{user} declined to take back a move"),
    "undo": N_("{user} agreed to take back {detail}"),
    "resign": N_("{user} resigned"),
    "timeout": N_("{user} lost on time"),
    "lapsed": N_("{user} did not take up the challenge in time"),
    "withdrawn": N_("{user} was withdrawn from the tournament {detail}"),
    "adjudicate": N_("{user} adjudicated (administrator): {detail}"),
    "forfeit": N_("{user} ruled a forfeit (administrator): {detail}"),
    "cancel": N_("{user} cancelled the game (administrator): {detail}"),
}
_PAIRED = re.compile(r"(?P<name>\S+) round (?P<round>\d+) board (?P<board>\d+)$")


def event(kind: str, user: str | None, detail: str, arrangements: tuple[Arrangement, ...] = ()) -> str:
    """One line of a game's record as a sentence in the reader's language; a kind not known here
    (an older server's) as it was stored."""
    paired = _PAIRED.match(detail) if kind == "tournament" else None
    if paired:
        return _("{user} paired it: tournament {name}, round {round}, board {board}").format(
            user=user, **paired.groupdict())
    if kind not in EVENTS:
        return f"{kind} by {user}{': ' + detail if detail else ''}"
    chosen = [a for a in arrangements if a.key == detail] if kind == "setup" else []
    return _(EVENTS[kind]).format(user=user, detail=named(chosen[0]) if chosen else detail)
