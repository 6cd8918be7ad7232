"""A git merge driver for the gettext catalogs (docs/translating.md).

The catalogs are sorted by message, so two branches that each add messages conflict line by line
although they never touch the same entry. This driver merges entry by entry: an entry added, changed
or removed on one side only is taken from that side; an entry changed differently on both sides is a
real conflict (ours is kept; one removed on a side and changed on the other stays removed), which the
driver names, exiting 1 so that git reports the file for a look.

    git config merge.po.driver '.venv/bin/python scripts/po_merge.py %O %A %B'
    git config merge.pot.driver '.venv/bin/python scripts/po_merge.py %O %A %B 76'
    # .gitattributes: *.po merge=po  *.pot merge=pot  (the template is wrapped as extracted)

A merged `.mo` is not merged at all: compile the catalogs again after the merge
(`pybabel compile -d pbm/locale -D pbm`).
"""

from __future__ import annotations

import sys

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po


def _read(path: str) -> Catalog:
    with open(path, "rb") as handle:
        return read_po(handle)


def _key(message: Message) -> tuple:
    return (message.id, message.context)


def _same(a: Message | None, b: Message | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.string == b.string and a.fuzzy == b.fuzzy


def merge(base: Catalog, ours: Catalog, theirs: Catalog) -> tuple[Catalog, list[str]]:
    """Ours with every entry theirs changed and ours did not; the conflicting ids."""
    conflicts: list[str] = []
    keys = {_key(m) for m in ours if m.id} | {_key(m) for m in theirs if m.id}
    merged: dict[tuple, Message] = {}
    for key in keys:
        b, o, t = (cat.get(key[0], context=key[1]) for cat in (base, ours, theirs))
        if _same(o, t) or _same(b, t):
            chosen = o
        elif _same(b, o):
            chosen = t
        elif o is None or t is None:
            chosen = None               # removed on one side (its message changed): stays removed
            conflicts.append(str(key[0])[:60])
        else:
            chosen = o
            conflicts.append(str(key[0])[:60])
        if chosen is not None:
            merged[key] = chosen
    result = Catalog(locale=ours.locale, domain=ours.domain, project=ours.project,
                     version=ours.version, copyright_holder=ours.copyright_holder,
                     msgid_bugs_address=ours.msgid_bugs_address,
                     creation_date=ours.creation_date, revision_date=ours.revision_date,
                     last_translator=ours.last_translator, language_team=ours.language_team,
                     charset=ours.charset, fuzzy=ours.fuzzy, header_comment=ours.header_comment)
    for key in sorted(merged, key=lambda k: (str(k[0]), k[1] or "")):
        message = merged[key]
        result[message.id] = Message(message.id, message.string, flags=message.flags,
                                     context=message.context,
                                     auto_comments=message.auto_comments,
                                     user_comments=message.user_comments)
    return result, conflicts


def main(argv: list[str]) -> int:
    base_path, ours_path, theirs_path = argv[1:4]
    width = int(argv[4]) if len(argv) > 4 else 100
    merged, conflicts = merge(_read(base_path), _read(ours_path), _read(theirs_path))
    with open(ours_path, "wb") as handle:
        write_po(handle, merged, width=width, no_location=True, omit_header=False,
                 sort_output=True, ignore_obsolete=True)
    for msgid in conflicts:
        print(f"po_merge: both sides changed {msgid!r}: ours kept", file=sys.stderr)
    return 1 if conflicts else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
