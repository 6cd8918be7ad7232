"""The command layer: one inbound message in, the reply mails out.

    handle(db, config, incoming, now) -> Handled        # called by pbm.intake inside its transaction

Where the command is (docs/mail.md): the subject is one command and the body its comment; the subject
`multiple` makes every body line up to the first blank line a command (the rest is the comment);
a mail to a reply token (`pbm+xiangqi-101-alice-...@host`) needs only the move, on the first body
line or in the subject after "Re:".  An empty subject is read as if the first body line were the
subject (a project decision: some clients make it hard to send a bare subject).

Each command runs inside a savepoint: a refused command changes nothing, while the other commands
of a `multiple` mail still count.  Nothing here commits; the caller owns the transaction.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

import rules
from pbm import Later, catalogue, i18n
from pbm.commands import parse, registry
from pbm.commands.accounts import confirming
from pbm.commands.mails import answers, next_steps, notify
from pbm.commands.base import CommandError, Context, Unanswered, find_board
from pbm.commands.parse import Request
from pbm.config import Config
from pbm.i18n import _
from pbm.mail.messages import Incoming, Outgoing
from pbm.model.play import games
from pbm.model.players import accounts, guard, tokens
from pbm.model.db import Database
from pbm.model.play.games import Board
from pbm.outbox import compose

__all__ = ["handle"]

# What the words of a reply to a game mail run, imported when a reply uses them (as the command
# table's verbs: pbm.commands.registry), so that a message that is no such reply loads no code of play.
SAY = Later("pbm.commands.games.play:say")
ACT = Later("pbm.commands.games.play:act")
ENQUEUE = Later("pbm.commands.games.play:enqueue")
ARRANGE = Later("pbm.commands.games.setups:arrange")
FORESEE = Later("pbm.commands.games.conditional:arrange")
WRITE_NOTE = Later("pbm.commands.games.notebook:write")
PROPOSE = Later("pbm.commands.games.submit:propose")
CARRY_OUT = Later("pbm.commands.games.submit:carry_out")


def token_usage(ctx: Context) -> list[str]:
    """What a reply to a game mail may say, in that game's forms and with a move of the player's
    own side as the example (none, when the reply's game is unknown)."""
    board, user = ctx.board, ctx.actor
    if board is None or user not in board.players:
        return ["MOVE[#N]            " + _("(the move, on the first line of the reply)"),
                "queue MOVE          " + _("(a premove; queue clear empties the queue)"),
                "resign | propose | accept | reject | undo"]
    game = board.replay()
    example = next_steps.example_move(board, game, user)[0]
    forms = (_("Chinese notation") if i18n.notation().startswith("chinese") else _("Korean notation")
             if i18n.notation() in next_steps.reader_styles(game.variant) else
             _("coordinates or WXF") if game.variant.notation == "wxf" else _("coordinates"))
    ply = board.ply + (1 if board.to_move == user else 2)       # the number of the player's own next move
    lines = ["MOVE[#N]            " + _("(in {forms}, for example {example} or {numbered})").format(
                 forms=forms, example=example, numbered=f"{example}#{ply}"),
             "queue MOVE          " + _("(a premove; queue clear empties the queue)"),
             "conditional         " + _("(your branches on the lines below it)"),
             "submit MOVE | confirm",
             "resign | propose | accept | reject | undo" + (" | pass" if game.variant.passing else "")]
    if game.variant.arrangements:
        lines.append("setup ARRANGEMENT   " + _("(before your first move)"))
    return lines


@dataclass(frozen=True)
class Handled:
    """What a message led to: the replies, and its subject and body as they may be kept (pbm.intake
    stores the message so, once processed: passwords never stay in the database)."""
    replies: list[Outgoing]
    subject: str
    body: str


def handle(db: Database, config: Config, incoming: Incoming, now: datetime) -> Handled:
    ctx = Context(db, config, incoming, now)
    out = ctx.out
    if incoming.sender:                  # else nobody to answer, and nobody to act for
        with i18n.speaking(lambda: sender_language(db, incoming)):
            _dispatch(ctx, incoming)
            out = answers.daily(ctx, ctx.out if incoming.vouched else _once(ctx.out, incoming))
    return Handled(out,
                   ctx.redact(incoming.subject, registry.VOCABULARY),
                   ctx.redact(incoming.body, registry.VOCABULARY))


def sender_language(db: Database, incoming: Incoming) -> tuple[str, str]:
    """The language (and notation) answers to the sender are written in: their user's preferences
    if the address is registered, else the language their mail says it is in, else English."""
    user = accounts.user_of_address(db, incoming.sender)
    if user is not None:
        prefs = accounts.preferences(db, user)
        return prefs["lang"], prefs["notation"]
    return i18n.from_header(incoming.language) or "en", "both"


def _once(out: list[Outgoing], incoming: Incoming) -> list[Outgoing]:
    """A From nobody vouched for is answered at most once, without a reply token (it may be
    forged: the answer would be backscatter, the token a gift); mail to the players' registered
    addresses goes as usual."""
    answers = [mail for mail in out if mail.in_reply_to == incoming.message_id and mail.to == incoming.sender]
    kept = [mail for mail in out if mail not in answers]
    return [replace(mail, reply_to=None) for mail in answers[:1]] + kept


def _dispatch(ctx: Context, incoming: Incoming) -> None:
    if incoming.token is not None and not incoming.vouched:
        _refuse(ctx, parse.split("reply"), CommandError(_(
            "A reply to a game mail is taken only when the mail server vouches for its sender, and it "
            "did not vouch for {address} (no DMARC pass). Send the command with your password in the "
            "subject instead, for example: {command}").format(
            address=incoming.sender, command="xiangqi move 101 USERID PASSWORD h2e2")), what="reply")
        return
    if incoming.token is not None and tokens.confirming(incoming.token):
        req = parse.split("confirm")
        error = _attempt(ctx, req, "", lambda: confirming.reply(ctx))
        if error and not isinstance(error, Unanswered):
            _refuse(ctx, req, error, what="reply")
        return
    if incoming.token is not None:
        _token_reply(ctx)
        return
    subject, body = parse.strip_reply_prefix(incoming.subject), incoming.body
    if subject.replace("*", "").strip() == "":
        subject, _blank, body = body.strip().partition("\n")
    if subject.lower().split()[:1] == ["multiple"]:
        _multiple(ctx, body)
    elif _OWN_SUBJECT.match(subject):
        _refuse(ctx, parse.split(subject), CommandError(_(
            "This looks like a reply to a game mail, sent to the server's main address instead of "
            "the reply address the game mail carried. Reply to the game mail itself (with just the "
            "move on the first line), or write the command in the subject, for example: "
            "xiangqi move 101 USERID PASSWORD h2e2")))
    else:
        _run(ctx, subject, body)


def _multiple(ctx: Context, body: str) -> None:
    """Carry out each command line; their answers to the sender go back as one mail."""
    mark = len(ctx.out)
    _each(ctx, body)
    ctx.out[mark:] = answers.collected(ctx, ctx.out[mark:])


def _each(ctx: Context, body: str) -> None:
    lines = body.strip("\n").splitlines()
    blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    commands, comment = lines[:blank], "\n".join(lines[blank + 1:])
    if not commands:
        _refuse(ctx, parse.split("multiple"), CommandError(_(
            "With the subject \"multiple\", write one command per line in the body, up to the "
            "first blank line; there were none.")))
    for line in commands[:parse.MAX_MULTIPLE]:
        _run(ctx, line, comment)
    if len(commands) > parse.MAX_MULTIPLE:
        _refuse(ctx, parse.split("multiple"), CommandError(_(
            "Only the first {n} commands of a multiple mail are carried out; send the other {rest} in "
            "another mail.").format(n=parse.MAX_MULTIPLE, rest=len(commands) - parse.MAX_MULTIPLE)))


def _run(ctx: Context, line: str, comment: str) -> None:
    """Carry out one command line, or answer with what was wrong."""
    req = parse.split(line)
    command: registry.Command | None = None

    def work() -> None:
        nonlocal command
        command = registry.resolve(req)
        registry.check_shape(req, command)
        command.run(ctx, req)

    error = _attempt(ctx, req, comment, work)
    if error and not isinstance(error, Unanswered):
        _refuse(ctx, req, error, command)
    ctx.heard(req)


def _attempt(ctx: Context, req: Request, comment: str, work: Callable[[], None]) -> CommandError | None:
    """Run `work` in a savepoint; a CommandError undoes its changes and its mails, and is returned."""
    ctx.request, ctx.comment, ctx.board, ctx.actor, ctx.from_own = req, comment, None, None, None
    mark, published = len(ctx.out), set(ctx.published)
    ctx.db.execute("SAVEPOINT pbm_command")
    try:
        work()
        ctx.settle()
        return None
    except CommandError as e:
        ctx.db.execute("ROLLBACK TO pbm_command")
        del ctx.out[mark:]
        ctx.later.clear()
        ctx.published = published
        guard.record(ctx.db, ctx.failures, ctx.now)    # a wrong password counts, whatever else
        ctx.failures.clear()
        for then in ctx.regardless:                     # as does what a limit keeps of a refusal
            then()
        return e
    finally:
        ctx.regardless.clear()
        ctx.db.execute("RELEASE pbm_command")


def _refuse(ctx: Context, req: Request, error: CommandError, command: registry.Command | None = None,
            *, usage: list[str] | None = None, what: str = "command") -> None:
    """The error mail: what was wrong, the command quoted without its password, the usage."""
    if ctx.board is not None:
        subject = notify.error_subject(ctx.board)
    elif req.game:
        subject = f"{catalogue.title(req.game)} error"
    else:
        subject = f"{ctx.config.server.name} error"
    if usage is None:
        usage = [command.usage_line(req.game)] if command else []
    if req.game:  # the numbers of this game's existing boards are not secrets, nor its setups' names
        req.safe.update(t for t in req.tokens if t.isdigit() and games.load(ctx.db, req.game, int(t)))
        named = {w.lower() for a in rules.get_variant(req.game).arrangements
                 for w in (a.key, a.hangul, a.romanized, a.letters, *a.aliases)}
        req.safe.update(t for t in req.tokens if t.lower() in named)
    # nor are registered user ids (a password may not be its own user id) -- except in a signup,
    # whose every word may be the new password
    if command is None or command.checks_password:
        req.safe.update(t for t in req.tokens if not accounts.user_id_problem(t) and accounts.get(ctx.db, t))
    body = compose.render("error.j2", what=what, command=parse.cut(req.quoted()),
                          problem=parse.bounded(req.mask_unquoted(str(error), accounts.MIN_PASSWORD)),
                          usage=usage, help_topic=command.verb if command else "")
    root = reply_to = None
    if ctx.board:
        root = notify.thread(ctx, ctx.board)
        # proven, and the sender the player's (a token, or a registered address): a corrected
        # move may answer this mail -- a stranger who used the password gets no token
        if ctx.actor in ctx.board.players and (ctx.incoming.token is not None or accounts.owns_address(
                ctx.db, ctx.actor, ctx.incoming.standing)):
            reply_to = notify.reply_address(ctx, ctx.board, ctx.actor)
    ctx.out.append(compose.answer(ctx.incoming, subject, body, root=root, reply_to=reply_to))


# --- replies to a game mail's token ---------------------------------------------------------------

_OWN_SUBJECT = re.compile(r"^(new )?[\w -]+ board \d+ ([a-z][a-z0-9_]*|over: .*?)( \*\*)?( error)?$",
                          re.IGNORECASE)


TOKEN_VERBS = frozenset({"move", "board", "mvoe", "queue", "qmove", "moveq", "setup", "resign", "propose",
                         "accept", "reject", "undo", "pass", "conditional", "submit", "confirm", "note:"})


# The words a game mail's footer glosses the answers with (`resign 认输`), read as those answers
# when one stands alone on a line of a reply.
REPLY_WORDS = {
    "认输": "resign", "認輸": "resign", "기권": "resign",
    "提和": "propose", "和棋": "propose", "求和": "propose", "무승부": "propose", "무승부제안": "propose",
    "接受": "accept", "수락": "accept", "拒绝": "reject", "拒絕": "reject", "거절": "reject",
    "悔棋": "undo", "무르기": "undo", "停着": "pass", "停著": "pass",
}


def _glossed(text: str) -> str:
    """A reply's line as the answer it means: `认输` (alone, before any closing punctuation) -> `resign`."""
    word = "".join(text.split()).rstrip("。.!！")
    return REPLY_WORDS.get(word, text)


_OWN_KIND = re.compile(r"\.pbm-(turn|note|chat)@")


def _answers_a_note(incoming: Incoming) -> bool:
    """Whether the mail replied to was one of ours that asked for no move (a chat, or a board
    mail to the player not to move): the Message-ID of our mails says their kind."""
    for reference in reversed(incoming.references):
        if found := _OWN_KIND.search(reference):
            return found.group(1) != "turn"
    return False


def _any_move(game: rules.Game, words: list[str]) -> bool:
    """Whether any word reads as a move of the game (then the line is a move gone wrong, never
    chat: "apple7 h10g8" must not reach the opponent)."""
    for word in words:
        try:
            game.check_notation(word.partition("#")[0])     # h1g3#3: the move numbered
            return True
        except rules.RulesError:
            continue
    return False


def _reads_as_a_move(game: rules.Game, words: list[str]) -> bool:
    """Whether a line of a reply is a move by itself: one word the game reads as a move or an
    in-game word alone, or `move MOVE` / `queue MOVE`, or `setup ARRANGEMENT` where the game has
    setups."""
    if len(words) < 2:
        return bool(words) and (words[0].lower() in TOKEN_VERBS or _any_move(game, words))
    if words[0].lower() == "setup":                     # `setup left swapped`
        return bool(game.variant.arrangements)
    return len(words) == 2 and words[0].lower() in TOKEN_VERBS and _any_move(game, words[1:])


SHOWN_LINES = 3         # of a reply in which nothing reads as a move, quoted back in the error
CHECKED_WORDS = 12      # words of those lines checked against the player's password, at most


def _nothing_to_play(ctx: Context, req: Request, board: Board, user: str, lines: list[str]) -> CommandError:
    """The error for a reply to a turn mail in which no line reads as a move: the lines it read,
    and what would be right.  The token proved who wrote it, so each word long enough to be a
    password is checked against the player's password and only a match is masked -- when the
    reply came from the player's own address, where the error goes back to.  From any other
    sender (a forwarded mail's token, a forged From) that would tell a stranger which word is the
    password, so every such word is masked unchecked, as is any beyond the first CHECKED_WORDS."""
    shown = [parse.cut(text.strip()) for text in lines if text.strip()][:SHOWN_LINES]
    account = accounts.get(ctx.db, user)        # None: the token's user is gone
    own = account is not None and accounts.owns_address(ctx.db, user, ctx.incoming.sender)
    candidates = list(dict.fromkeys(w for text in shown for w in text.split() if len(w) >= accounts.MIN_PASSWORD))
    req.secrets.update(w for i, w in enumerate(candidates)
                       if not own or i >= CHECKED_WORDS or accounts.verify_password(w, account.password))
    req.trusted = True
    example = next_steps.example_move(board, board.replay(), user)
    return CommandError(_("No line of your reply reads as a move. These are the first lines it read:")
                        + "\n" + "\n".join(f"    {req.mask(text)}" for text in shown) + "\n"
                        + _("Write your move alone on a line (for example {example}), or one of {words}; "
                            "a greeting or a comment may stand before or after it.").format(
                            example=_(" or ").join(example), words="resign, propose, accept, reject, undo"))


def _token_reply(ctx: Context) -> None:
    incoming = ctx.incoming
    written = incoming.body.strip().splitlines()     # the comments go on as written
    lines = [_glossed(text) for text in written]
    if lines:
        line, comment = lines[0].strip(), "\n".join(written[1:])
    else:
        line, comment = parse.strip_reply_prefix(incoming.subject), ""
    words = line.split()
    if words and not _OWN_SUBJECT.match(line) and (
            words[0].lower() in (*catalogue.GAMES, *registry.SERVER_FIRST_WORDS, "multiple")):
        # a whole command sent to the token address: read it as if it had come to the main one
        whole = Context(ctx.db, ctx.config, replace(incoming, token=None, subject=line, body=comment),
                        ctx.now)
        _dispatch(whole, whole.incoming)
        ctx.out += whole.out
        ctx.quoted.update(whole.quoted)
        ctx.secrets |= whole.secrets
        ctx.published |= whole.published
        return
    req = parse.split(line)
    # Quote back only the verb and a lone word too short to be a password (a move): "apple7 h10g8"
    # may start with a password.  (Our own subject, taken when the reply's first line was empty,
    # holds none.)
    if not _OWN_SUBJECT.match(line):
        req.distrust([w for w in words[:1] if w.lower() in TOKEN_VERBS]
                     + [w for w in words if len(words) == 1 and len(w) < accounts.MIN_PASSWORD])
    found = tokens.check(ctx.config.secret, incoming.token, lambda user: accounts.token_epoch(ctx.db, user))

    def work() -> None:
        nonlocal line, words
        if found is None or found[0] not in catalogue.served():
            counted = guard.token_subjects(incoming.sender)
            if guard.locked_until(ctx.db, ctx.config, counted, ctx.now):
                ctx.failures += counted
                raise Unanswered("too many wrong reply addresses")
            ctx.failures += counted
            named = tokens.claimed(incoming.token)
            if named and named[0] in catalogue.served() and games.load(ctx.db, named[0], named[1]):
                req.game = named[0]
                board = find_board(ctx, named[0], named[1])
                raise CommandError(_(
                    "The address you replied to, for {title} Board {number}, is not one this server "
                    "gave out, or no longer works (it may have been changed on the way; the reply "
                    "addresses of a player stop working when their password changes). Answer a "
                    "newer mail of that game, or send the command in the subject, for example: "
                    "{command}").format(title=board.title, number=board.number,
                                        command=f"{board.variant} move {board.number} USERID PASSWORD MOVE"))
            raise CommandError(_("The address you replied to is not one this server gave out, or no "
                                 "longer works (it may have been changed on the way; the reply "
                                 "addresses of a player stop working when their password changes). "
                                 "Answer a newer game mail, or send the command in the subject "
                                 "instead, for example: xiangqi move 101 USERID PASSWORD h2e2"))
        variant, number, user = found
        req.game = variant
        board = find_board(ctx, variant, number)
        ctx.actor = user
        if not words or _OWN_SUBJECT.match(line):
            raise CommandError(_("Your reply had no move in it: write the move (or resign, propose, "
                                 "accept, reject, undo) on the first line of your reply."))
        verb = words[0].lower()
        game = board.replay()
        if (_answers_a_note(incoming) and verb not in TOKEN_VERBS and not _any_move(game, words)
                and not any(_reads_as_a_move(game, text.split()) for text in lines)):
            # a reply to chat is chat, unless a line of it is an in-game word or a move by itself
            # ("Hi Dave," then "setup left"): that acts as in a turn mail's answer (an early move
            # is refused with the hint to queue it), never passed on as chat
            SAY(ctx, board, user, ctx.publish("\n".join(written)))
            return
        if verb not in TOKEN_VERBS and not (len(words) == 1 and _any_move(game, words)):
            # a turn mail's answer that starts with a greeting ("Hi bob,"): the move is on the
            # first line that reads as one, the other lines are the comment
            at = next((i for i, text in enumerate(lines) if _reads_as_a_move(game, text.split())), None)
            if at is None:
                raise _nothing_to_play(ctx, req, board, user, lines or [line])
            line, words = lines[at].strip(), lines[at].split()
            ctx.comment = "\n".join(written[:at] + written[at + 1:]).strip("\n")
            req.text, req.tokens, req.words = line, words, list(words)     # the line an error quotes
            req.distrust(words)                                             # whole: it is a move
            verb = words[0].lower()
        if verb in ("move", "board", "mvoe") and len(words) == 2:
            ACT(ctx, board, user, words[1])
        elif verb in ("queue", "qmove", "moveq") and len(words) == 2:
            ENQUEUE(ctx, board, user, words[1])
        elif verb == "setup" and len(words) >= 2:
            ARRANGE(ctx, board, user, " ".join(words[1:]))
        elif verb == "conditional" and len(words) <= 2:
            FORESEE(ctx, board, user, " ".join(words[1:]) or comment)
        elif verb == "note:":           # a private note: the rest of the line and the body
            req.tokens = req.tokens[:1]     # kept as `note:` alone: the note is nobody else's
            WRITE_NOTE(ctx, board, user, "\n".join([line.strip()[len("note:"):], comment]), [])
        elif verb == "submit" and len(words) == 2:
            PROPOSE(ctx, board, user, words[1])
        elif verb == "confirm" and len(words) == 1:
            CARRY_OUT(ctx, board, user)
        elif len(words) == 1:
            ACT(ctx, board, user, words[0])
        else:
            raise CommandError(_("Write only the move on the first line of your reply (one word, such "
                                 "as h2e2); that line has {n} words.").format(n=len(words)))

    trusted = req.trusted
    error = _attempt(ctx, req, comment, work)
    if error and not isinstance(error, Unanswered):
        _refuse(ctx, req, error, usage=token_usage(ctx), what="reply")
    req.trusted = trusted   # kept as distrusted as it came: the error may quote more, to its writer
    ctx.heard(req)
