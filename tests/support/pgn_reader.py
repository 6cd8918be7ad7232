"""A strict PGN reader written from the PGN standard's grammar (section 18 of "Portable Game
Notation Specification and Implementation Guide", 1994), independent of pbm.model.play.pgn: it checks the
export format pbm writes and hands back tags, moves, comments and the result.

    <PGN-game>      ::= <tag-section> <movetext-section>
    <tag-pair>      ::= [ <tag-name> <tag-value> ]       (a string: "...", with \\" and \\\\)
    <movetext>      ::= <element-sequence> <game-termination>
    <element>       ::= <move-number-indication> | <SAN-move> | <numeric-annotation-glyph>
                        (and brace or rest-of-line comments between them)
    <suffix-annotation> ::= ! ? !! ?? !? ?!   right after a move (8.2.3.8; read as the NAGs $1-$6)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
TERMINATIONS = ("1-0", "0-1", "1/2-1/2", "*")
_TAG = re.compile(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\["\\])*)"\]')
_TOKEN = re.compile(r"\s*(?:(\{[^}]*\})|(;[^\n]*)|(\d+\.(?:\.\.)?)|(\$\d+)|(1-0|0-1|1/2-1/2|\*)(?=\s|$)"
                    r"|([A-Za-z0-9][A-Za-z0-9+=\-.*@#/:]*)(!!|\?\?|!\?|\?!|!|\?)?(?=[\s{()]|$)|([()]))")
SUFFIXES = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


class PgnError(ValueError):
    pass


@dataclass
class PgnGame:
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)   # (moves before it, text)
    nags: dict[int, int] = field(default_factory=dict)              # ply -> NAG of its suffix
    result: str = ""
    # recursive annotation variations (RAV, 8.2.5): (moves of the main line before the move it
    # replaces, its moves); a variation inside one is read as part of it
    variations: list[tuple[int, list[str]]] = field(default_factory=list)


def read(text: str) -> PgnGame:
    game = PgnGame()
    lines = text.replace("\r\n", "\n").split("\n")
    index = 0
    while index < len(lines) and lines[index].startswith("["):
        match = _TAG.fullmatch(lines[index].strip())
        if not match:
            raise PgnError(f"not a tag pair: {lines[index]!r}")
        name, value = match.group(1), re.sub(r'\\(["\\])', r"\1", match.group(2))
        if name in game.tags:
            raise PgnError(f"tag {name} twice")
        game.tags[name] = value
        index += 1
    order = [t for t in game.tags if t in SEVEN_TAG_ROSTER]
    if order != list(SEVEN_TAG_ROSTER):
        raise PgnError(f"the Seven Tag Roster is missing or out of order: {order}")
    if index >= len(lines) or lines[index].strip():
        raise PgnError("no blank line after the tags")
    movetext = "\n".join(lines[index + 1:]).rstrip()
    position = 0
    depth = 0
    expected_number = None
    while position < len(movetext):
        match = _TOKEN.match(movetext, position)
        if not match or match.end() == position:
            raise PgnError(f"cannot read the movetext at {movetext[position:position + 20]!r}")
        position = match.end()
        comment, rest_comment, number, nag, result, move, suffix, paren = match.groups()
        if paren == "(":
            if not game.moves and depth == 0:
                raise PgnError("a variation before any move")
            if depth == 0:
                game.variations.append((len(game.moves) - 1, []))
            depth += 1
            continue
        if paren == ")":
            if depth == 0:
                raise PgnError("a ) without its (")
            depth -= 1
            continue
        if depth and move is not None:
            game.variations[-1][1].append(move)
            continue
        if depth and result is not None:
            raise PgnError("a game termination inside a variation")
        if depth:
            continue
        if game.result:
            if movetext[position:].strip():
                raise PgnError("text after the game termination")
            break
        if comment is not None:
            game.comments.append((len(game.moves), " ".join(comment[1:-1].split())))
        elif rest_comment is not None:
            game.comments.append((len(game.moves), rest_comment[1:]))
        elif number is not None:
            expected_number = int(number.rstrip("."))
        elif result is not None:
            game.result = result
        elif move is not None:
            if expected_number is None:
                raise PgnError(f"move {move!r} without a move number before it")
            game.moves.append(move)
            if suffix:
                game.nags[len(game.moves)] = SUFFIXES[suffix]
    if depth:
        raise PgnError("a variation not closed")
    if game.result not in TERMINATIONS:
        raise PgnError("no game termination marker")
    if game.result != game.tags["Result"]:
        raise PgnError(f"the termination {game.result} is not the Result tag {game.tags['Result']}")
    if any(len(line) > 255 for line in movetext.splitlines()):
        raise PgnError("a line over 255 characters")
    return game
