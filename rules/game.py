"""A game: a start position, the moves played, and the result the rules decide.

This is the rules core's public face for the server and the command line: moves go in as text
(coordinates or the game's own notation) and come out as canonical coordinates; every refusal is an
`IllegalMove` whose message tells the player what would have been legal.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from rules import board_svg, explain, named, notation, notation_styles
from rules.board_ascii import render
from rules.errors import IllegalMove, NotationError, RulesError
from rules.fen import format_fen, parse_fen
from rules.position import Move, Position
from rules.repetition import Referee, Verdict
from rules.said import said
from rules.tables import compile_variant
from rules.variant import Arrangement, choose_arrangement
from rules.variants import get_variant

RESULT_WIN = ("1-0", "0-1")
# A repetition warning (`warnings`); a server says it as a sentence of its own, so it is no catalog
# message here (pbm.commands.wording.warning).
REPEATING = "repeating the cycle once more, from {move} on, would lose by {why}"
DRAW = "1/2-1/2"


def _may_reach_king(ptype) -> bool:
    """A piece that is not a king and not bound to its palace or its own half by every pattern."""
    return not ptype.royal and not all(p.stay_in in ("palace", "own-half") for p in ptype.patterns)


class Game:
    def __init__(self, name: str, params: Mapping[str, str | bool] | None = None,
                 fen: str | None = None, *, decide: bool = True) -> None:
        self.variant = get_variant(name, params)
        self.tables = compile_variant(self.variant)
        self.start_fen = self.variant.start_fen if fen is None else fen
        self.position: Position = parse_fen(self.tables, self.start_fen)
        self.start_fen = format_fen(self.position)
        chosen = [n for n in self.variant.side_names if n.lower() in self.params]
        if chosen and self.start_fen != self.variant.start_fen:
            raise RulesError(f"a setup choice ({', '.join(n.lower() + '=' for n in chosen)}) arranges the "
                             f"standard start; a game from a FEN of its own has its pieces where the FEN "
                             f"puts them")
        self.moves: list[str] = []
        self.notation: list[str] = []
        self.result = "*"
        self.reason: str | None = None
        self._legal: list[Move] | None = None
        self._referee: Referee | None = None
        if decide:
            self._decide()

    # --- construction -----------------------------------------------------------------------------

    @classmethod
    def new(cls, name: str, params: Mapping[str, str | bool] | None = None,
            fen: str | None = None) -> Game:
        return cls(name, params, fen)

    @classmethod
    def from_record(cls, name: str, params: Mapping[str, str | bool] | None, start_fen: str | None,
                    moves: Iterable[str], human: Iterable[str] | None = None) -> Game:
        """Rebuild a stored game without re-judging every move (they were judged when played).

        The server does this for every command, so it must not cost a legality test per ply; it still
        refuses a record whose move does not start from a piece of the side to move.  `human` is the
        stored notation of the same moves; without it the notation is computed again.
        """
        game = cls(name, params, start_fen, decide=False)
        v, pos = game.variant, game.position
        human_moves = list(human) if human is not None else None
        for i, text in enumerate(moves):
            move = notation.parse_move(pos, text)
            if move is None or not pos.owns(move):
                raise IllegalMove(f"the stored move {i + 1} ({text}) does not fit the game")
            game.notation.append(human_moves[i] if human_moves else notation.human(pos, move))
            game.moves.append(notation.format_move(v, move, pos))
            pos.push(move)
        game._decide()
        return game

    def at(self, ply: int) -> Game:
        """A copy of the game after its first `ply` moves."""
        if not 0 <= ply <= len(self.moves):
            raise IllegalMove(f"there is no move {ply}; the game has {len(self.moves)} moves so far")
        return Game.from_record(self.variant.name, self.params, self.start_fen,
                                self.moves[:ply])

    def setup(self, side: str, choice: str) -> Arrangement:
        """Set up `side`'s pieces ("w"/"b" or a side name) in one of the variant's arrangements (Janggi:
        horses and elephants), before that side's first move in a game begun from the standard start.
        The game changes in place: its params and start FEN record the choice, and a move already
        played (Cho's first, when Han chooses after it) is played again on the new position."""
        v = self.variant
        s = self._side(side)
        if not v.arrangements:
            raise IllegalMove(said("{game} has no setup choice", game=said(v.title)))
        arrangement = choose_arrangement(v.arrangements, choice)
        refusal = self._setup_refusal(s)
        if refusal:
            raise IllegalMove(refusal)
        params = self.params
        params[v.side_names[s].lower()] = arrangement.key
        game = Game(v.name, params)
        for move in self.moves:
            game.play(move)
        self.__dict__.update(game.__dict__)
        return arrangement

    def may_setup(self, side: str) -> bool:
        """Whether `side` may still choose its arrangement (see `setup`)."""
        return self._setup_refusal(self._side(side)) is None

    def arrangement(self, side: str) -> Arrangement | None:
        """The arrangement `side` plays now; None where the variant has no setup choice."""
        v = self.variant
        if not v.arrangements:
            return None
        key = dict(v.params).get(v.side_names[self._side(side)].lower())
        return next((a for a in v.arrangements if a.key == key), v.arrangements[0])

    def _setup_refusal(self, s: int) -> str | None:
        v = self.variant
        if not v.arrangements:
            return said("{game} has no setup choice", game=said(v.title))
        if self.start_fen != v.start_fen:
            return said("this game began from a position of its own, not the standard start, so its "
                        "setup cannot be chosen")
        if self.result != "*":
            return f"the game is over ({self.result}, {self.reason})"
        if (self.ply + (s == 0)) // 2:  # the moves that side has made (the first player moves first)
            return said("{side} has made its first move; the setup is chosen before it",
                        side=said(v.side_names[s]))
        return None

    def _side(self, side: str) -> int:
        """0 or 1 for "w"/"b" or a side name (any case)."""
        names = [n.lower() for n in self.variant.side_names]
        who = side.strip().lower()
        if who not in ("w", "b", *names):
            raise IllegalMove(f"{side!r} is not a side; write w or b ({self.variant.side_names[0]} or "
                              f"{self.variant.side_names[1]})")
        return "wb".index(who) if who in ("w", "b") else names.index(who)

    # --- state ------------------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def turn(self) -> str:
        return "wb"[self.position.side]

    @property
    def side_names(self) -> tuple[str, str]:
        return self.variant.side_names

    @property
    def params(self) -> dict[str, str | bool]:
        """The game's parameters, setup choices included: what to store and give back to from_record."""
        return dict(self.variant.params)

    def fen(self) -> str:
        return format_fen(self.position)

    def in_check(self) -> bool:
        return self.position.in_check()

    def kings_facing(self) -> bool:
        """The kings face each other and the side to move must break the facing or pass (bikjang)."""
        return self.variant.facing_must_break and self.position.kings_face()

    def board(self, turned: bool = False) -> str:
        """The pbmserv ASCII board; `turned`: from the second player's side."""
        return render(self.position, turned)

    def board_svg(self, turned: bool = False, labels: str = "coordinates") -> str:
        """The board drawn (SVG), the last move marked; `turned`: from the second player's side;
        `labels`: its edges' (rules.board_svg.edge_labels)."""
        return board_svg.render(self.position, turned, self.moves[-1] if self.moves else "", labels)

    def _legal_moves(self) -> list[Move]:
        if self._legal is None:
            self._legal = self.position.legal_moves()
        return self._legal

    def legal_moves(self, even_if_over: bool = False) -> list[str]:
        """The legal moves in coordinates, sorted; none once the game is over, unless `even_if_over`:
        then the moves the pieces have even where a rule (a dead position, the move limit, repetition)
        has already decided the game -- what a move generator such as Fairy-Stockfish lists."""
        if self.result != "*" and not even_if_over:
            return []
        return sorted(notation.format_move(self.variant, m, self.position) for m in self._legal_moves())

    def describe(self, move: str) -> str:
        """The game's human notation (WXF; Janggi: coordinates) for a legal move in any accepted form."""
        return notation.human(self.position, self._parse(move))

    # --- playing ----------------------------------------------------------------------------------

    def play(self, text: str) -> str:
        """Play one move given as text; returns it in coordinates."""
        if self.result != "*":
            raise IllegalMove(f"the game is over ({self.result}, {self.reason}); no more moves")
        move = self._parse(text)
        human = notation.human(self.position, move)
        coord = notation.format_move(self.variant, move, self.position)
        self.position.push(move)
        self._legal = None
        self.moves.append(coord)
        self.notation.append(human)
        self._decide()
        return coord

    def undo(self) -> str:
        """Take back the last move (the result, if the move ended the game, is taken back too)."""
        if not self.moves:
            raise IllegalMove("there is no move to take back")
        self.position.pop()
        self._legal = None
        self.notation.pop()
        self.result, self.reason = "*", None
        last = self.moves.pop()
        self._decide()
        return last

    def _decide(self) -> None:
        v = self.variant
        side = self.position.side
        if v.passing and (ending := self.position.pass_ending()):
            self._draw(ending)
        elif v.repeat_is_illegal and not self._legal_moves() and self.position.repeating_only():
            self._end(1 - side, "every move would repeat an earlier position")
        elif not self._legal_moves():
            if self.position.in_check():
                self._end(1 - side, "checkmate")
            elif v.stalemate_loses:
                self._end(1 - side, "stalemate")
            else:
                self.result, self.reason = DRAW, "stalemate"
        elif v.dead_position_draw and self._dead_position():
            self._draw("neither side can capture the other's king")
        elif not v.repeat_is_illegal and (repeated := self._repetition(3)) is not None:
            verdict = repeated[0]
            if verdict.loser is None:  # "repetition: draw", or on points "repetition: decided on points, ..."
                self._draw("repetition" if v.points else verdict.reason)
            else:
                self._end(1 - verdict.loser, f"{verdict.reason} by {v.side_names[verdict.loser]}")
        elif v.no_capture_limit and self.position.halfmove >= v.no_capture_limit:
            self._draw(f"{v.no_capture_limit} plies without capture")

    def could_win(self, side: str) -> bool:
        """Whether `side` ("w"/"b" or a side name) has a piece that could still reach the enemy king:
        the dead-position rule (see `_dead_position`) applied to one side, for deciding a loss on
        time.  Always True where the game has no such rule (drops may bring any piece back)."""
        if not self.variant.dead_position_draw:
            return True
        t, pos, s = self.tables, self.position, self._side(side)
        occupied = pos.pieces[0] | pos.pieces[1]
        free = [sq for sq in pos.pieces[s] if _may_reach_king(t.piece_type(pos.board[sq]))]
        return bool(free) and not (len(free) == 1 and len(occupied) == 3
                                   and t.piece_type(pos.board[free[0]]).role == "cannon")

    def _dead_position(self) -> bool:
        """The dead-position rule, as docs/repetition.md "Other endings" gives it: no piece left that can
        ever reach the enemy king (kings, and pieces whose every pattern keeps them in their palace or
        on their own half, never can), or the only one is a cannon with nothing but the two kings on
        the board to serve as its screen."""
        t, pos = self.tables, self.position
        occupied = pos.pieces[0] | pos.pieces[1]
        free = [sq for sq in occupied if _may_reach_king(t.piece_type(pos.board[sq]))]
        return not free or (len(free) == 1 and len(occupied) == 3
                            and t.piece_type(pos.board[free[0]]).role == "cannon")

    def _draw(self, reason: str) -> None:
        """An ending that is drawn, or under points scoring (Janggi `points`) won by the side with more
        material; the reason then names the count, e.g. "bikjang: decided on points, Cho 72 - Han 73.5"."""
        v = self.variant
        if not v.points:
            self.result, self.reason = DRAW, reason
            return
        cho, han = self.position.points()
        count = f"{v.side_names[0]} {cho:g} - {v.side_names[1]} {han:g}"
        if cho == han:
            self.result, self.reason = DRAW, f"{reason}: drawn on points, {count}"
        else:
            self._end(0 if cho > han else 1, f"{reason}: decided on points, {count}")

    def _repetition(self, times: int) -> tuple[Verdict, int] | None:
        """The referee's verdict if the position now stands for the `times`-th time since the last
        capture, judged over the moves since the first of those `times` occurrences; and how many
        plies back that first occurrence is."""
        earlier = self.position.earlier_occurrences()
        if len(earlier) < times - 1:
            return None
        if self._referee is None:
            self._referee = Referee(self.tables)
        window = earlier[times - 2]
        return self._referee.judge(self.position, window), window

    @property
    def warnings(self) -> list[tuple[str, str]]:
        """`(side, note)`: after a position's second occurrence, the side that would lose if the cycle
        were played once more is told which of its moves not to repeat."""
        if self.result != "*":
            return []
        return self._repetition_warning() + self._pass_warning()

    def _repetition_warning(self) -> list[tuple[str, str]]:
        if self.variant.repeat_is_illegal or (repeated := self._repetition(2)) is None:
            return []
        verdict, cycle = repeated
        if verdict.loser is None:
            return []
        back = cycle - (verdict.loser != self.position.side)      # plies since the move not to repeat
        undone = [self.position.pop() for _ in range(back)]
        its_next = named.move(self.position, undone[-1])
        for move in reversed(undone):
            self.position.push(move)
        return [("wb"[verdict.loser], said(REPEATING, move=its_next, why=verdict.reason))]

    def _pass_warning(self) -> list[tuple[str, str]]:
        """The side to move is told when a pass would end the game (after a pass, or bikjang), and
        how it would be scored: a pass is a move that can end a game, so it should never surprise."""
        v = self.variant
        if not v.passing or (ending := self.position.pass_would_end()) is None:
            return []
        if notation.PASS not in self.legal_moves():
            return []
        outcome = "a draw"
        if v.points:
            cho, han = self.position.points()
            count = f"{v.side_names[0]} {cho:g} - {v.side_names[1]} {han:g}"
            outcome = (f"a draw on points, {count}" if cho == han else
                       f"a win on points for {v.side_names[0 if cho > han else 1]}, {count}")
        why = "the kings face each other (bikjang)" if ending == "bikjang" else "your opponent passed"
        return [("wb"[self.position.side], f"{why}: passing now ends the game, as {outcome}")]

    def _end(self, winner: int, reason: str) -> None:
        self.result = RESULT_WIN[winner]
        self.reason = reason

    # --- reading moves ----------------------------------------------------------------------------

    def check_notation(self, text: str) -> None:
        """Raise NotationError unless `text` reads as a move in one of this game's notations, legal now
        or not: what a premove, judged only when its turn comes, must be."""
        if not notation_styles.readable(self.position, text):
            raise self._unreadable(text)

    def _unreadable(self, text: str) -> NotationError:
        return notation_styles.unreadable(self.variant, text)

    def name_moves(self, style: str, record: bool = False) -> list[str]:
        """The moves played, named in `style`, one of `self.variant.notations` (rules.notation_styles);
        `record`: as the field's programs read them in a game record."""
        notation_styles.check_style(self.variant, style)
        pos = parse_fen(self.tables, self.start_fen)
        names = []
        for text in self.moves:
            move = notation.parse_move(pos, text)
            names.append(notation_styles.write(pos, move, style, record))
            pos.push(move)
        return names

    def name_last(self, style: str) -> str:
        """The last move played, named in `style`: what a mail about that move says, without naming
        every move before it again (name_moves)."""
        notation_styles.check_style(self.variant, style)
        move = self.position.pop()
        try:
            return notation_styles.write(self.position, move, style)
        finally:
            self.position.push(move)

    def _parse(self, text: str) -> Move:
        legal = self._legal_moves()
        move = notation_styles.read_points(self.position, text)
        if move is None:
            try:
                move = notation_styles.read_names(self.position, text, legal)
            except IllegalMove:
                meant = notation_styles.meant(self.position, text)
                if meant is None or meant in legal:
                    raise
                # the reason the same move in coordinates gets: what stops the piece named
                raise IllegalMove(said("{move} is not a legal move: {why}", move=text.strip(),
                                       why=explain.why_not(self.position, legal, meant))) from None
            if move is None:
                raise self._unreadable(text)
            return move
        if len(move) == 2 and move not in legal and not text.strip().endswith("="):
            promoting = [m for m in legal if m[:2] == move]
            if len(promoting) == 1:  # a compulsory promotion: the bare move has no other reading
                return promoting[0]
        if move not in legal:
            reason = explain.why_not(self.position, legal, move)
            raise IllegalMove(said("{move} is not a legal move: {why}", move=text.strip(), why=reason))
        return move
