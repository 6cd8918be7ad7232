"""`python -m rules`: the rules core on the command line (a stable contract for scripts and tests).

    legal VARIANT [--fen FEN] [--notation coord|wxf] [--batch] [MOVE ...]
    perft VARIANT DEPTH [--fen FEN] [--game-ends]
    play  VARIANT [--fen FEN] [--batch] MOVE ...
    board VARIANT [--fen FEN] [MOVE ...]
    name  VARIANT --notation STYLE [--fen FEN] [--batch] MOVE ...
    read  VARIANT --notation STYLE [--fen FEN] [--batch] TEXT ...
Every subcommand takes `--param NAME[=VALUE]` (repeatable).  Errors go to stderr with exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from rules import Game, RulesError, notation_styles, perft
from rules.errors import NotationError


def _params(items: list[str]) -> dict[str, str | bool]:
    out: dict[str, str | bool] = {}
    for item in items:
        name, sep, value = item.lstrip("-").partition("=")
        out[name] = value if sep else True
    return out


def _game(args: argparse.Namespace, fen: str | None, moves: list[str]) -> Game:
    game = Game.new(args.variant, _params(args.param), fen)
    for move in moves:
        game.play(move)
    return game


def _legal_line(game: Game, style: str) -> str:
    moves = game.legal_moves(even_if_over=True)  # the game's result is play's answer
    if style == "wxf":
        moves = sorted(game.describe(m) for m in moves)
    return " ".join(moves)


def _cmd_legal(args: argparse.Namespace) -> None:
    if args.batch:
        for line in sys.stdin:
            if line.strip():
                print(_legal_line(_game(args, line.strip(), []), args.notation), flush=False)
        return
    print(_legal_line(_game(args, args.fen, args.moves), args.notation))


def _play_json(game: Game) -> str:
    return json.dumps({"fen": game.fen(), "result": game.result, "reason": game.reason})


def _cmd_play(args: argparse.Namespace) -> None:
    if args.batch:
        for line in sys.stdin:
            if not line.strip():
                continue
            fen, _, moves = line.rstrip("\n").partition("\t")
            print(_play_json(_game(args, fen.strip() or None, moves.split())))
        return
    print(_play_json(_game(args, args.fen, args.moves)))


def _cmd_perft(args: argparse.Namespace) -> None:
    start = time.perf_counter()
    nodes = perft(args.variant, args.fen, args.depth, _params(args.param), game_ends=args.game_ends)
    seconds = time.perf_counter() - start
    print(f"depth {args.depth}: {nodes} nodes in {seconds:.2f} s", file=sys.stderr)
    print(nodes)


def _cmd_board(args: argparse.Namespace) -> None:
    sys.stdout.write(_game(args, args.fen, args.moves).board())


def _named(game: Game, move: str, style: str) -> str:
    """Play `move` (in any notation the game reads) and name it in `style`."""
    game.play(move)
    return game.name_moves(style)[-1]


def _read(game: Game, text: str, style: str) -> str:
    """Play `text`, which must be in `style` (either character set for Chinese); its coordinates."""
    if not notation_styles.reads_as(game.position, text, style):
        raise NotationError(f"{text.strip()!r} is not a move "
                            f"{notation_styles.form(game.variant, style)}")
    return game.play(text)


def _batch(args: argparse.Namespace, answer) -> None:
    """Lines `FEN<TAB>TEXT` on stdin (an empty FEN: the start); one answer per line, `error: ...` for
    a line that cannot be answered, and go on."""
    for line in sys.stdin:
        if not line.strip():
            continue
        fen, _, text = line.rstrip("\n").partition("\t")
        try:
            print(answer(Game.new(args.variant, _params(args.param), fen.strip() or None), text.strip(),
                         args.notation))
        except RulesError as exc:
            print(f"error: {exc}")


def _cmd_name(args: argparse.Namespace) -> None:
    _styled(args, _named)


def _cmd_read(args: argparse.Namespace) -> None:
    _styled(args, _read)


def _styled(args: argparse.Namespace, answer) -> None:
    """`name` and `read`: each move played in turn, one answer a line; a notation the game lacks is
    refused before anything is read."""
    notation_styles.check_style(Game.new(args.variant, _params(args.param)).variant, args.notation)
    if args.batch:
        _batch(args, answer)
        return
    game = _game(args, args.fen, [])
    for move in args.moves:
        print(answer(game, move, args.notation))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler, moves: bool = True, batch: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name)
        p.set_defaults(handler=handler)
        p.add_argument("variant")
        p.add_argument("--fen")
        p.add_argument("--param", action="append", default=[], metavar="NAME[=VALUE]")
        if batch:
            p.add_argument("--batch", action="store_true", help="read positions from standard input")
        if moves:
            p.add_argument("moves", nargs="*", metavar="MOVE")
        return p

    command("legal", _cmd_legal, batch=True).add_argument(
        "--notation", choices=("coord", "wxf"), default="coord")
    command("play", _cmd_play, batch=True)
    perft_command = command("perft", _cmd_perft, moves=False)
    perft_command.add_argument("depth", type=int)
    perft_command.add_argument("--game-ends", action="store_true",
                               help="stop where a pass ends the game (Janggi), as Fairy-Stockfish does")
    command("board", _cmd_board)
    for name, handler in (("name", _cmd_name), ("read", _cmd_read)):
        command(name, handler, batch=True).add_argument(
            "--notation", required=True, choices=notation_styles.STYLES)
    # Moves may stand before or after options ("legal xiangqi --fen F h3e3"); argparse's intermixed
    # parsing does not work with subcommands, so collect the stray positionals here.
    # A move that starts with "-" (WXF "-C.1") goes after "--".
    args, extra = parser.parse_known_args(argv)
    before, dashes, after = (extra[:extra.index("--")], True, extra[extra.index("--") + 1:]) \
        if "--" in extra else (extra, False, [])
    if any(x.startswith("-") for x in before) or ((before or dashes) and not hasattr(args, "moves")):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if before or after:
        args.moves += before + after
    try:
        args.handler(args)
    except RulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
