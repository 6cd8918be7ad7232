"""The help pages: the server's, a command's, a topic's and a game's, printed from the command
table (pbm.commands.registry), with the options and parameters that playing takes."""
from __future__ import annotations

import rules
from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.commands.base import CommandError, Context
from pbm.commands.games import play, turns
from pbm.commands.parse import Request
from pbm.commands.registry import ADMIN, COMMANDS, GAME_VERBS, SERVER_VERBS, TOPICS
from pbm.i18n import _
from pbm.review import search as review_search


def server_help(ctx: Context, req: Request) -> None:
    topic = " ".join(req.args).lower()
    if not topic:
        ctx.answer(f"{ctx.config.server.name} help", "help.j2", server=ctx.config.server.address,
                   name=ctx.config.server.name, server_commands=[c for c in COMMANDS if not c.game],
                   game_commands=[c for c in COMMANDS if c.game and c.verb not in ADMIN],
                   admin_commands=[c for c in COMMANDS if c.verb in ADMIN], games=_games())
        return
    if topic in catalogue.served():
        _game_help(ctx, topic)
        return
    if topic in TOPICS:
        ctx.answer(f"{ctx.config.server.name} help: {topic}", f"help_{topic}.j2",
                   server=ctx.config.server.address, games=_games())
        return
    command = SERVER_VERBS.get(topic) or GAME_VERBS.get(topic)
    if command is None:
        known = ", ".join([*catalogue.served(), *TOPICS, *(c.verb for c in COMMANDS)])
        raise CommandError(_("There is no help on \"{topic}\". Topics: {known}.").format(topic=topic, known=known))
    ctx.answer(f"{ctx.config.server.name} help: {command.verb}", "help_command.j2", command=command,
               usage=command.usage_line(), options=turns.OPTIONS, server_params=play.SERVER_PARAMS)


def game_help(ctx: Context, req: Request) -> None:
    _game_help(ctx, req.game)


def _game_help(ctx: Context, variant: str) -> None:
    template = catalogue.GAMES[variant].help_template
    start = rules.Game.new(variant)
    v = start.variant
    # this game's commands only: no setup without arrangements to choose, no pass where none is, no
    # review where the engine cannot be given the rules
    commands = [(c.usage_line(variant), c.summary if v.passing or not c.passless else c.passless)
                for c in COMMANDS if c.game and (c.verb != "setup" or v.arrangements)
                and (c.verb != "review" or review_search.supported(variant, {}))]
    ctx.answer(f"{catalogue.title(variant)} help", template, title=catalogue.title(variant), variant=variant,
               commands=commands, notation=v.notation,
               options=turns.OPTIONS, server_params=play.SERVER_PARAMS,
               game_params=dict(start.variant.parameters),
               start_board=wording.board(start, False, variant, i18n.language() == "en"),
               arrangements=start.variant.arrangements)


def _games() -> list[tuple[str, str]]:
    return [(name, catalogue.title(name)) for name in catalogue.served()]
