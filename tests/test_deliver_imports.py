"""A lone `pbm deliver` (no server running) imports what its message needs and nothing else: a
`show` or a move loads no tournament, web, record or review code, and a `show` of a position a board
mail has shown draws nothing, so it loads no Pillow (the picture is taken from the data folder's
cache).  Each process is a real one, run as Postfix's pipe runs it, listing sys.modules as it exits
(not `-X importtime`: it does not see what importlib loads, as the command table's handlers are)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from support.postoffice import PASSWORDS, by_recipient, text
from support.processes import PbmEnv, pbm_environment

pytestmark = pytest.mark.slow   # real processes

# What a move or a show never needs: these load with the verbs and events that use them.
NOT_FOR_PLAY = ("pbm.tournaments", "pbm.commands.tournaments", "pbm.web", "pbm.records", "pbm.review",
                "pbm.commands.help_pages", "pbm.commands.games.imports", "pbm.commands.games.record_mail")
# What draws a picture (and the library it draws with).
DRAWING = ("pbm.pictures.drawing", "pbm.pictures.sprites", "pbm.pictures.lettering",
           "pbm.pictures.strip_drawing", "PIL")


# `pbm deliver` as its console script runs it, writing the names in sys.modules to a file as it
# exits (it leaves by os._exit once all is committed: pbm.runners.deliver.leave).
LISTING = """
import os, sys
listing, real_exit = sys.argv.pop(1), os._exit
def leave(status):
    with open(listing, "w") as out:
        out.write("\\n".join(sys.modules))
    real_exit(status)
os._exit = leave
from pbm.cli import main
leave(main())
"""


def imported(env: PbmEnv, message, sender: str) -> list[str]:
    """The modules in sys.modules when one `pbm deliver --sender --recipient` of `message` exits."""
    listing = env.root / "modules.txt"
    done = subprocess.run([sys.executable, "-c", LISTING, str(listing), "--config", str(env.config_path),
                           "deliver", "--sender", sender, "--recipient", str(message["To"])],
                          input=bytes(message), capture_output=True, cwd=env.root, timeout=120,
                          env=pbm_environment())
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return listing.read_text().split("\n")


def under(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.fixture
def game(pbm_env: PbmEnv) -> dict:
    """alice and bob sign up and start board 101; their board mails, by address."""
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.replies()
    pbm_env.mail("xiangqi challenge alice bob")
    return by_recipient(pbm_env.replies())


def test_a_show_loads_no_tournament_record_web_or_drawing_code(pbm_env: PbmEnv, game: dict):
    modules = imported(pbm_env, pbm_env.message("xiangqi show 101"), "alice@example.org")
    assert "pbm.commands.games.queries" in modules          # the show ran (and is listed)
    assert under(modules, NOT_FOR_PLAY) == []
    assert under(modules, DRAWING) == []                    # the challenge's mail drew this view
    [board] = pbm_env.replies()
    assert "Board 101" in board["Subject"] and "It is alice's turn." in text(board)
    [png] = [part for part in board.walk() if part.get_content_type() == "image/png"]
    [drawn] = [part for part in game["alice@example.org"].walk() if part.get_content_type() == "image/png"]
    assert png.get_content() == drawn.get_content() and png.get_content().startswith(b"\x89PNG")


def test_a_move_by_reply_loads_no_tournament_record_or_web_code(pbm_env: PbmEnv, game: dict):
    mail = game["alice@example.org"]
    reply = pbm_env.message(f"Re: {mail['Subject']}", "h3e3", sender="alice@example.org",
                            to=str(mail["Reply-To"]), In_Reply_To=mail["Message-ID"])
    modules = imported(pbm_env, reply, "alice@example.org")
    assert "pbm.commands.games.play" in modules
    assert under(modules, NOT_FOR_PLAY) == []
    mails = by_recipient(pbm_env.replies())
    assert set(mails) == {"alice@example.org", "bob@example.org"}     # the move was played, mailed
    assert "C2=5" in text(mails["bob@example.org"])


def test_every_function_named_for_later_exists():
    """A handler named by its path fails only when it runs: each one is looked up here."""
    from pbm import Later, commands, config, i18n, intake
    from pbm.commands import dispatch, registry
    from pbm.commands.games import play, turns
    from pbm.outbox import signing
    from pbm.pictures import deferred, strip
    named = [c.run for c in registry.COMMANDS] + list(turns.ENDED) + [
        value for module in (dispatch, play, intake, i18n, config, signing, deferred, strip)
        for value in vars(module).values() if isinstance(value, Later)]
    assert len(named) > len(registry.COMMANDS) + 10 and len(turns.ENDED) == len(commands.ENDED)
    for later in named:
        assert callable(later.target()), later
