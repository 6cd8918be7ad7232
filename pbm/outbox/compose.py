"""Reply mails: plain-text bodies rendered from the Jinja2 templates in mail_templates/, wrapped in
`Outgoing` values with the threading and RFC 3834 headers the spec asks for.

The templates are package data of `mail_templates`, read from the package's folder (not through
importlib.resources, whose import costs a `pbm deliver` more than reading them) and held in
memory from the first reply on (`pbm serve` loads them at start): reinstalling pbm under a running
server removes and rewrites those files, and the server must go on answering.  Autoescaping is on only
for the HTML templates (*.html.j2): the mails are plain text, with an HTML part for the drawn board.
"""
from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import jinja2
from jinja2.filters import do_wordwrap

import mail_templates
from pbm import i18n
from pbm.mail.messages import SUBSCRIBED, Incoming, Outgoing


def load_templates() -> dict[str, str]:
    """Every template's source, by name, read from the installed package."""
    folder = Path(mail_templates.__file__).parent
    return {entry.name: entry.read_text(encoding="utf-8") for entry in folder.iterdir()
            if entry.name.endswith(".j2")}


compiled_cache: Path | None = None
"""Where compiled templates are kept between processes (set by pbm.cli to data_dir/cache): a `pbm
deliver` would otherwise parse and compile each template it renders, 10 ms apiece.  Jinja2 checks
each cached one against the template's source, so an upgrade never uses a stale one."""


@cache
def environment() -> jinja2.Environment:
    """The template environment, every template already read (see the module docstring)."""
    templates = load_templates()
    if not templates:
        raise RuntimeError("pbm: the mail templates are missing from the installed package; reinstall pbm")
    kept = None
    if compiled_cache is not None:
        try:
            compiled_cache.mkdir(mode=0o700, parents=True, exist_ok=True)
            kept = jinja2.FileSystemBytecodeCache(str(compiled_cache), "templates-%s.cache")
        except OSError:
            pass                        # a cache: compile them in memory then
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), autoescape=_is_html,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False,
                             bytecode_cache=kept, extensions=["jinja2.ext.i18n"])
    # in the language of the mail being written (pbm.i18n.speaking)
    env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=True)
    env.filters["wordwrap"] = _wordwrap
    env.globals["language"] = i18n.language
    return env


# A command a text quotes, from its first word to PASSWORD and the words standing for its arguments
# (`xiangqi queue 101 bob PASSWORD MOVE`, `... PASSWORD [-params] h2e2`): one unbroken piece when the text is wrapped, so that it
# can be copied whole.  It starts after anything that is not a word of a command (a colon, a comma,
# a Chinese or Korean character), so prose never joins it.
_COMMAND = re.compile(r"(?<![A-Za-z0-9_\[\]|=+#.-])(?:[A-Za-z0-9_\[\]|=+#.-]+ )+?PASSWORD"
                      r"(?: (?:[A-Z][A-Z_]*\b(?:\[[^\]\s]*\])?|\[[^\]\s]*\]))*"
                      r"(?: [^\s,;:!?()（）。，；：]+)?")
_NO_BREAK = "\u00a0"


@jinja2.pass_environment
def _wordwrap(env: jinja2.Environment, s: str, width: int = 79, break_long_words: bool = True,
              wrapstring: str | None = None, break_on_hyphens: bool = True) -> str:
    """Jinja2's wordwrap, counting display columns (pbm.i18n.wrap) in text with Chinese or Korean,
    and never inside a quoted command."""
    s = _COMMAND.sub(lambda m: m[0].replace(" ", _NO_BREAK) if len(m[0]) < width else m[0], str(s))
    if i18n.width(s) == len(s):
        wrapped = do_wordwrap(env, s, width, break_long_words, wrapstring, break_on_hyphens)
    else:
        wrapped = (wrapstring or env.newline_sequence).join(i18n.wrap(s, width))
    return wrapped.replace(_NO_BREAK, " ")


LINE = 78                               # the longest line of a mail (RFC 5322's recommendation)


def number(value: float) -> str:
    """A count or an amount as English writes it: 20, 2.5, 0.5 (never 20.0; at most one decimal)."""
    return f"{round(value, 1):g}"


def _is_html(name: str | None) -> bool:
    """Templates named *.html.j2 are HTML and escape what they are given; the rest are plain text."""
    return bool(name) and name.endswith(".html.j2")


def render_html(template: str, /, **values: object) -> str:
    """An HTML template (*.html.j2), filled with `values`, escaped; as it stands."""
    return environment().get_template(template).render(**values)


def render(template: str, /, **values: object) -> str:
    """The template named `template`, filled with `values`; trailing blanks go (but a "-- " signature separator keeps
    its space) and runs of blank lines collapse to one."""
    text = environment().get_template(template).render(**values)
    lines: list[str] = []
    for line in text.strip("\n").splitlines():
        if line.strip() or (lines and lines[-1]):
            lines.append(line if line == "-- " else line.rstrip())
    return "\n".join(lines).rstrip() + "\n"


def answer(incoming: Incoming, subject: str, body: str, *, root: str | None = None,
           reply_to: str | None = None, kind: str = "", html: str = "",
           attachments: tuple[tuple[str, str | bytes] | tuple[str, bytes, str], ...] = (),
           related: tuple[tuple[str, str, bytes], ...] = (), calendar: str = "") -> Outgoing:
    """The reply to the sender of `inbound` (Auto-Submitted: auto-replied)."""
    references = tuple(dict.fromkeys(r for r in (root, incoming.message_id) if r))
    return Outgoing(to=incoming.sender, subject=subject, body=body, in_reply_to=incoming.message_id,
                    references=references, reply_to=reply_to, auto_submitted="auto-replied", kind=kind,
                    html=html, attachments=attachments, related=related, calendar=calendar)


def notify(to: str, subject: str, body: str, *, root: str | None = None,
           reply_to: str | None = None, kind: str = "", html: str = "",
           attachments: tuple[tuple[str, str | bytes] | tuple[str, bytes, str], ...] = (),
           related: tuple[tuple[str, str, bytes], ...] = (), calendar: str = "") -> Outgoing:
    """A mail nobody asked for just now, e.g. to the opponent (Auto-Submitted: auto-generated)."""
    return Outgoing(to=to, subject=subject, body=body, in_reply_to=root,
                    references=(root,) if root else (), reply_to=reply_to,
                    auto_submitted="auto-generated", kind=kind, html=html, attachments=attachments,
                    related=related, calendar=calendar)


def subscribed(out: Outgoing, reader: str) -> Outgoing:
    """`out` as a mail of the subscribed stream, for the user `reader`: sent only while they want
    that stream, with a one-click unsubscribe (pbm.outbox.streams)."""
    return replace(out, stream=SUBSCRIBED, reader=reader)


def thread_id(server_address: str, variant: str, board: int) -> str:
    """The fixed Message-ID every mail of a game refers to, so that clients keep it in one thread."""
    return f"<{variant}-{board}@{server_address.rpartition('@')[2]}>"


def thread_variant(references: tuple[str, ...], server_address: str) -> str:
    """The game kind of the thread a mail belongs to (`thread_id`'s first part), "" for none."""
    domain = server_address.rpartition("@")[2]
    for reference in references:
        found = re.fullmatch(rf"<([a-z][a-z0-9]*)-\d+@{re.escape(domain)}>", reference)
        if found:
            return found[1]
    return ""
