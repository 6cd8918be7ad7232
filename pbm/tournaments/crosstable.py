"""The crosstable, as fixed-width text for a mail's plain part and as an HTML table for its HTML part.

Rows go by standing: rank, user id, points, the tie-breaks, then the cells.  A round robin's cells
are a grid, one column per opponent by rank: the result and the colour of the row's player ("1W",
"=B", "0W"; "**" against oneself, "." not played yet).  In a double round robin each pair meets
once with each colour, so a cell holds two results, with White then with Black ("1=").  Swiss and
knockout cells are one per round: the opponent's rank, then colour and result for each game
("4W1"; a knockout match with its replay "4W=B1"), "bye", "bye½" (a half-point bye asked for),
or "-" (not paired that round: not yet entered, or withdrawn).  Results
are ASCII: 1 win, = draw, 0 loss, + and - forfeits, "." a game still played, "*" after a result
the director corrected.  When this is wider
than 78 columns (more than 12 players, or many Swiss rounds with long user ids), the text and the
HTML show the standings table instead: rank, user id, points, tie-breaks and games decided.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

from pbm.i18n import N_, _, ljust, width
from pbm.tournaments.model import Entrant, Game, Standing, games_of
from pbm.tournaments.standings import standings

Corrected = frozenset[tuple[int, str]]     # games whose result the director corrected: (round, White)
WIDTH = 78
GRID_PLAYERS = 12
LEGEND = {"grid": N_("1 win, = draw, 0 loss, +/- forfeit, . to play; W/B the colour"),
          "double": N_("1 win, = draw, 0 loss, +/- forfeit, . to play; with White, then Black"),
          "rounds": N_("opponent's rank, colour W/B, result: 1 win, = draw, 0 loss, +/- forfeit;\n"
                       "bye, bye½ a half-point bye, - not paired"),
          "standings": N_("Gms: games decided")}
CORRECTED = N_("* a result the director corrected")
# The tie-breaks' columns are headed by FIDE's abbreviations (BH, SB-C1 ...), the same in every
# language; a knockout's round reached is a word.
HEADINGS = {"Round": N_("Round")}


@dataclass(frozen=True)
class Table:
    """A crosstable before it is drawn: header, rows of cells, the first two columns left-aligned;
    the header and legend in the reader's language, aligned by display columns."""
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    legend: str

    def text(self) -> str:
        widths = [max(width(row[i]) for row in (self.header, *self.rows)) for i in range(len(self.header))]
        lines = [" ".join(ljust(cell, w) if i == 1 else " " * (w - width(cell)) + cell
                          for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
                 for row in (self.header, *self.rows)]
        return "\n".join(lines + ["", self.legend]) + "\n"

    def fits(self) -> bool:
        return max(map(width, self.text().splitlines())) <= WIDTH

    def html(self, inline: bool = True) -> str:
        """One cell a line, so that the lines of the mail stay within 78 columns however wide the
        table.  Styled inline for a mail client; `inline=False`: by class, for a web page whose
        Content-Security-Policy forbids inline style (pbm/web/page.css)."""
        def styled(css: str, name: str) -> str:
            return f'style="{css}"' if inline else f'class="{name}"'
        lines = [f'<table {styled("border-collapse:collapse;font-family:monospace", "crosstable")}>']
        for tag, row in [("th", self.header)] + [("td", r) for r in self.rows]:
            rule = ";border-bottom:1px solid" if tag == "th" else ""
            lines.append("<tr>")
            sides = ["left" if i == 1 else "right" for i in range(len(row))]
            lines += [f'<{tag} {styled(f"padding:0 5px;text-align:{side}{rule}", side)}>'
                      f"{escape(text)}</{tag}>" for text, side in zip(row, sides)]
            lines.append("</tr>")
        lines += ["<tr>", f'<td colspan="{len(self.header)}" {styled("padding:4px 5px", "legend")}>',
                  escape(self.legend), "</td>", "</tr>"]
        return "\n".join(lines + ["</table>"]) + "\n"


def legend(kind: str, corrected: bool = False) -> str:
    """The legend under a table of `kind`, in the reader's language (`corrected`: with the mark of
    a corrected result)."""
    return _(LEGEND[kind]) + ("\n" + _(CORRECTED) if corrected else "")


def number(value: float) -> str:
    return f"{value:g}"


def mark(game: Game, user: str, corrected: Corrected = frozenset()) -> str:
    """One result character for `user` in `game`, and "*" when the director corrected it."""
    if game.result is None:
        return "."
    points = game.points(user)
    star = "*" if (game.round, game.white) in corrected else ""
    if game.forfeit:
        return ("+" if points else "-") + star
    return {1.0: "1", 0.5: "=", 0.0: "0"}[points] + star


def table(system: str, entrants: list[Entrant], games: list[Game], double: bool = False,
          tiebreaks: tuple[str, ...] | None = None, rounds: int | None = None,
          corrected: Corrected = frozenset(), paired: str | None = None) -> Table:
    """The crosstable to draw: the full one when it fits, else the standings table; `paired`: the
    decider of paired games (pbm.tournaments.paired), whose round robin is drawn as a double one
    and whose Swiss has a column a pairing round, both games in it."""
    ranked = standings(system, entrants, games, tiebreaks, rounds, paired)
    if len(ranked) <= GRID_PLAYERS:
        full = grid(ranked, games, double or bool(paired), corrected) if system == "roundrobin" \
            else by_round(ranked, games, corrected, 2 if paired and system == "swiss" else 1)
        if full.fits():
            return full
    return Table(header(ranked, [_("Gms")]), tuple(lead(s) + (str(s.games),) for s in ranked),
                 legend("standings"))


def lead(standing: Standing) -> tuple[str, ...]:
    return (str(standing.rank), standing.user, number(standing.points),
            *(number(v) for _name, v in standing.tiebreaks))


def header(ranked: list[Standing], columns: list[str]) -> tuple[str, ...]:
    names = tuple(_(HEADINGS[name]) if name in HEADINGS else name
                  for name, _value in ranked[0].tiebreaks) if ranked else ()
    return (_("Rk"), _("User"), _("Pts"), *names, *columns)


def grid(ranked: list[Standing], games: list[Game], double: bool, corrected: Corrected) -> Table:
    rows = []
    for row in ranked:
        mine = [g for g in games_of(row.user, games) if not g.bye]
        cells = []
        for column in ranked:
            met = [g for g in mine if g.opponent(row.user) == column.user]
            if column is row:
                cells.append("**")
            elif double:
                cells.append("".join(next((mark(g, row.user, corrected) for g in met
                                           if g.colour(row.user) == c), ".") for c in "WB"))
            else:
                cells.append(mark(met[0], row.user, corrected) + met[0].colour(row.user) if met
                             else ".")
        rows.append(lead(row) + tuple(cells))
    columns = [str(s.rank) for s in ranked]
    return Table(header(ranked, columns), tuple(rows),
                 legend("double" if double else "grid", bool(corrected)))


def by_round(ranked: list[Standing], games: list[Game], corrected: Corrected, per: int = 1
             ) -> Table:
    """A column a round; `per` 2: a paired Swiss's column holds the two games' rounds of a
    pairing round."""
    rank = {s.user: s.rank for s in ranked}
    last = -(-max((g.round for g in games), default=0) // per)
    rows = []
    for row in ranked:
        cells = []
        for round_no in range(1, last + 1):
            these = [g for g in games_of(row.user, games) if (g.round + per - 1) // per == round_no]
            if not these:
                cells.append("-")
            elif these[0].bye:
                cells.append(_("bye½") if these[0].requested else _("bye"))
            else:
                cells.append(str(rank[these[0].opponent(row.user)]) +
                             "".join(g.colour(row.user) + mark(g, row.user, corrected)
                                     for g in these))
        rows.append(lead(row) + tuple(cells))
    return Table(header(ranked, [_("R{number}").format(number=n) for n in range(1, last + 1)]),
                 tuple(rows), legend("rounds", bool(corrected)))


def crosstable_text(system: str, entrants: list[Entrant], games: list[Game], *,
                    double: bool = False, tiebreaks: tuple[str, ...] | None = None,
                    rounds: int | None = None, corrected: Corrected = frozenset(),
                    paired: str | None = None) -> str:
    """The crosstable as fixed-width text, no line over 78 columns; `corrected`: the games (round,
    White) whose result the director corrected."""
    return table(system, entrants, games, double, tiebreaks, rounds, corrected, paired).text()


def crosstable_html(system: str, entrants: list[Entrant], games: list[Game], *,
                    double: bool = False, tiebreaks: tuple[str, ...] | None = None,
                    rounds: int | None = None, corrected: Corrected = frozenset(), inline: bool = True,
                    paired: str | None = None) -> str:
    """The same table as HTML markup (a plain <table>, inline styles only; `inline=False`: classes)."""
    return table(system, entrants, games, double, tiebreaks, rounds, corrected, paired).html(inline)


SHORT_ROWS = 10         # the leaders a short standings table shows (and the reader's own row)


def short_table(ranked: list[Standing], user: str) -> Table:
    """The standings of a large tournament as its round mails show them: the first SHORT_ROWS and
    the reader's own row (the full crosstable goes out on request: `GAME tournament show`)."""
    rows = [s for i, s in enumerate(ranked) if i < SHORT_ROWS or s.user == user]
    return Table(header(ranked, [_("Gms")]), tuple(lead(s) + (str(s.games),) for s in rows),
                 legend("standings"))

