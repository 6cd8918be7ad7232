"""Reading a command line (a subject, or a line of a `multiple` body) into a Request.

pbmserv's syntax: words separated by blanks; `**` is ignored; `-name[=value]` is a game parameter
and `--name=value` a game option wherever they stand; verbs, game names and user ids are
case-insensitive (the handlers lower-case them), passwords and FENs are not (kept as written).

A Request also knows how to quote itself back without the password: positions that hold a password
are masked by value, and until the password has been checked, every word that is not known to be
harmless (verbs, game names, existing board numbers, registered user ids, colours) and is long
enough to be a password is masked too -- a player who swapped two words, or added a password to a
command that takes none, must not get the password back in the error that tells them so; but a
shorter word (a typo of a verb, a number, a move, an arrangement) is never a password, and is
quoted as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbm.mail.reading import MASK
from pbm.model.players.accounts import MIN_PASSWORD

MAX_MULTIPLE = 50       # commands in one `multiple` mail
# Words a command may hold that can be quoted before any password is checked: they name colours,
# results and list filters, never a secret.  (A number is quoted only once it names an existing board:
# a password may be all digits.)
SAFE_WORDS = frozenset({"red", "black", "white", "cho", "han", "w", "b", "draw", "active", "inactive",
                        "next", "clear", "rated", "unrated", "off"})

_PARAM = re.compile(r"-([a-z][a-z0-9_]*)(?:=(.*))?", re.IGNORECASE)
_OPTION = re.compile(r"--([a-z][a-z0-9_-]*)(?:=(.*))?", re.IGNORECASE)
_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv|antw|vs)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)


@dataclass
class Request:
    """One command line, read: its words, parameters and options, and what of it may be quoted."""
    text: str                           # the line as received
    tokens: list[str]                   # every token, in order (for quoting)
    words: list[str]                    # the positional words: no **, parameters or options
    params: dict[str, str | bool] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    repeated: list[str] = field(default_factory=list)   # --options given more than once
    game: str | None = None             # the game name, lower case, for game commands
    verb: str = ""                      # the canonical command name ("move", "change password")
    args: list[str] = field(default_factory=list)   # the words after the game name and verb
    secrets: set[str] = field(default_factory=set)  # always masked, wherever they appear
    trusted: bool = True                # False: mask every word not in `safe`
    safe: set[str] = field(default_factory=set)

    def distrust(self, harmless: list[str]) -> None:
        """Quote only `harmless` words and numbers until the password is checked."""
        self.trusted = False
        self.safe.update(harmless)

    def quoted(self) -> str:
        """The command as received, with passwords (and, before they were checked, anything that
        might be one) replaced by ********."""
        return " ".join(self._quote_token(token) for token in self.tokens)

    def _quote_token(self, token: str) -> str:
        if token in self.secrets:
            return MASK
        # a password never starts with "-" (accounts.password_problem), so `-record=gib` and
        # `--clock=2+1/2.5` are quoted; a lone "-word" may be a password typed with a dash
        if (self.trusted or token in self.safe or token.lower() in SAFE_WORDS or token == "**"
                or len(token) < MIN_PASSWORD or (token.startswith("-") and "=" in token)):
            return self.mask(token)
        return MASK

    def mask(self, text: str) -> str:
        """`text` with every occurrence of a password replaced by ********."""
        return masked(text, self.secrets)

    def mask_unquoted(self, text: str, shortest_password: int) -> str:
        """`text` (an error about this command) without passwords, nor any word of the command
        that its quote masks and that is long enough to be a password: a move the rules could not
        read, a user id that does not exist, may have been one.  (Parameters and options are
        not: a password is never read as one.)"""
        text = self.mask(text)
        hidden = {t for t in self.tokens if len(t) >= shortest_password and not t.startswith("-")
                  and self._quote_token(t) == MASK}
        for token in sorted(hidden, key=len, reverse=True):
            text = re.sub(rf"(?<![\w-]){re.escape(token)}(?![\w-])", MASK, text)
        return text


def masked(text: str, secrets: set[str]) -> str:
    """`text` with every occurrence of each of `secrets` replaced by ******** (the longest first,
    so that a secret holding another is masked whole)."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def strip_reply_prefix(subject: str) -> str:
    """'Re: Fwd: xiangqi show 101' -> 'xiangqi show 101'."""
    return _REPLY_PREFIX.sub("", subject).strip()


def split(text: str) -> Request:
    """Tokens, positional words, -parameters and --options of one command line."""
    tokens = text.split()
    request = Request(text=text.strip(), tokens=tokens, words=[])
    for token in tokens:
        if token == "**":
            continue
        option = _OPTION.fullmatch(token)
        param = None if option else _PARAM.fullmatch(token)
        if option:
            if option.group(1).lower() in request.options:
                request.repeated.append(token)
            request.options[option.group(1).lower()] = option.group(2) or ""
        elif param:
            value = param.group(2)
            request.params[param.group(1).lower()] = True if value is None else value
        else:
            request.words.append(token)
    return request


QUOTED_LINE = 200       # characters of a line of the sender's an error quotes back, at most
QUOTED_LINES = 20       # lines of an error's text, at most


def cut(line: str, most: int = QUOTED_LINE) -> str:
    """A line quoted back cut to `most` characters, "..." marking the cut: an error must not echo
    a 300 KB word."""
    return line if len(line) <= most else line[:most - 3] + "..."


def bounded(text: str) -> str:
    """An error's text within bounds: no word over QUOTED_LINE characters (its prose has none; a
    quoted word may), at most QUOTED_LINES lines."""
    lines = [" ".join(cut(word) for word in line.split(" ")) for line in text.split("\n")]
    return "\n".join(lines[:QUOTED_LINES] + ["..."] * (len(lines) > QUOTED_LINES))

