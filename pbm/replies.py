"""Reply mails: plain-text bodies rendered from the Jinja2 templates in mail_templates/, wrapped in
`Outgoing` values with the threading and RFC 3834 headers the spec asks for.

Templates are found next to the package in a source checkout, else where `pip install .` puts the
data files (`<prefix>/share/pbm/mail_templates`, see setup.cfg).  Autoescaping is off: the mails
are plain text, and nothing from them is ever shown as HTML.
"""
from __future__ import annotations

import sysconfig
from functools import cache
from pathlib import Path

import jinja2

from pbm.messages import Inbound, Outgoing


def template_dirs() -> list[Path]:
    """Where the templates may be, in order: a source checkout, then the installed data files."""
    candidates = [Path(__file__).resolve().parent.parent / "mail_templates"]
    for scheme in (sysconfig.get_default_scheme(), sysconfig.get_preferred_scheme("user")):
        candidates.append(Path(sysconfig.get_path("data", scheme)) / "share" / "pbm" / "mail_templates")
    return [path for path in dict.fromkeys(candidates) if path.is_dir()]


@cache
def environment() -> jinja2.Environment:
    """The template environment.  Templates are read once per process (`pbm serve` is restarted
    after editing them): checking each file's time before every mail cost the writer a system call
    per reply."""
    dirs = template_dirs()
    if not dirs:
        raise RuntimeError("pbm: the mail_templates directory is missing; reinstall pbm")
    return jinja2.Environment(loader=jinja2.FileSystemLoader(dirs[0]), autoescape=False,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False)


def has_template(name: str) -> bool:
    try:
        environment().get_template(name)
    except jinja2.TemplateNotFound:
        return False
    return True


def render(template: str, /, **values: object) -> str:
    """The template named `template`, filled with `values`; trailing blanks go (but a "-- " signature separator keeps
    its space) and runs of blank lines collapse to one."""
    text = environment().get_template(template).render(**values)
    lines: list[str] = []
    for line in text.strip("\n").splitlines():
        if line.strip() or (lines and lines[-1]):
            lines.append(line if line == "-- " else line.rstrip())
    return "\n".join(lines).rstrip() + "\n"


def answer(inbound: Inbound, subject: str, body: str, *, root: str | None = None,
           reply_to: str | None = None) -> Outgoing:
    """The reply to the sender of `inbound` (Auto-Submitted: auto-replied)."""
    references = tuple(dict.fromkeys(r for r in (root, inbound.message_id) if r))
    return Outgoing(to=inbound.sender, subject=subject, body=body, in_reply_to=inbound.message_id,
                    references=references, reply_to=reply_to, auto_submitted="auto-replied")


def notify(to: str, subject: str, body: str, *, root: str | None = None,
           reply_to: str | None = None) -> Outgoing:
    """A mail nobody asked for just now, e.g. to the opponent (Auto-Submitted: auto-generated)."""
    return Outgoing(to=to, subject=subject, body=body, in_reply_to=root,
                    references=(root,) if root else (), reply_to=reply_to,
                    auto_submitted="auto-generated")


def thread_id(server_address: str, variant: str, board: int) -> str:
    """The fixed Message-ID every mail of a game refers to, so that clients keep it in one thread."""
    return f"<{variant}-{board}@{server_address.rpartition('@')[2]}>"
