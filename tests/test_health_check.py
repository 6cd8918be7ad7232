"""No ordinary command makes the health check fail (issue 39, item 0): on this machine's SQLite
(Debian 12's 3.40.1 misread NOT NULL columns of WITHOUT ROWID tables in `PRAGMA quick_check`), every
command kind is run through real `pbm deliver` processes, then `pbm serve` starts and finds the file
whole; every table holding a row of its own passes `quick_check`; and what `quick_check` alone finds
is damage only where `integrity_check` agrees."""
from __future__ import annotations

import re
import sqlite3

from support.postoffice import plain
from support.processes import PbmEnv
from test_repetition import CYCLE, ROOK_FOLLOWS_CANNON

from pbm.commands.registry import COMMANDS
from pbm.config import load_config
from pbm.model import store
from pbm.upkeep import health

PASSWORDS = {"root": "Adm1n-pass", "alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-Arb",
             "dave": "Dave-1234"}


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines()]


def p(user: str) -> str:
    return f"{user} {PASSWORDS[user]}"


# (sender, subject, body): every command kind, in an order where most of them do what they say.
# A line of a `multiple` body is a command too.
SCRIPT: list[tuple[str, str, str]] = [
    *[(user, f"signup {p(user)}", "") for user in ("root", "alice", "bob", "dave")],
    ("carol", f"signup {p('carol')} carol@example.org carol@work.example.org", ""),
    ("carol", f"change address {p('carol')} carol@example.org carol@home.example.org", ""),
    ("alice", "xiangqi challenge alice bob", ""),                              # xiangqi 101
    ("alice", "multiple", "\n".join([
        f"xiangqi move 101 {p('alice')} h3e3",
        f"xiangqi notify {p('alice')}",
        f"xiangqi notify {p('bob')} 101",
        f"xiangqi queue 101 {p('alice')} b1c3",
        f"xiangqi subscribe 101 {p('carol')}",
        f"xiangqi unsubscribe 101 {p('carol')}",
        f"xiangqi subscribe 101 {p('carol')}",
        f"xiangqi submit 101 {p('bob')} h8e8",
        f"xiangqi confirm 101 {p('bob')}",
        f"xiangqi move 101 {p('bob')} h10g8",
        f"xiangqi move 101 {p('alice')} a1a2",
        f"xiangqi limit {p('alice')} 9",
        f"xiangqi limit {p('bob')} off",
        f"set {p('alice')} lang=ko",
        f"set {p('alice')} lang=en",
        f"vacation {p('dave')} 2",
        f"vacation {p('dave')} off",
    ])),
    ("bob", f"xiangqi chat 101 {p('bob')}", "Good luck."),
    ("alice", f"xiangqi conditional 101 {p('alice')}", "i10i9 h1g3\n"),
    ("alice", "multiple", "\n".join([
        "help", "help multiple", "list", "all show alice", "xiangqi help", "xiangqi show 101",
        "xiangqi status 101", "xiangqi preview 101 i10i9", "xiangqi replay 101 1 h8e8",
        "xiangqi record 101", "xiangqi games", "xiangqi history", "xiangqi standings",
        "xiangqi player alice", "xiangqi seeks", "xiangqi tournaments", "xiangqi ratings",
    ])),
    ("alice", f"xiangqi note 101 {p('alice')}", "The horse goes to g8 next."),
    ("alice", f"xiangqi notes 101 {p('alice')} share", ""),
    ("alice", "xiangqi review 101", ""),                                     # refused: in play
    ("carol", f"xiangqi seek {p('carol')}", ""),
    ("bob", f"xiangqi accept-seek 1 {p('bob')}", ""),                        # xiangqi 102
    ("bob", f"xiangqi resign 102 {p('bob')}", ""),
    ("carol", "xiangqi challenge carol alice", ""),                           # xiangqi 103
    ("alice", f"xiangqi accept {p('alice')}", ""),
    ("carol", "xiangqi challenge carol bob", ""),                             # xiangqi 104
    ("bob", f"xiangqi reject {p('bob')}", ""),
    ("root", f"xiangqi forfeit 103 {p('root')} alice a test of forfeits", ""),
    ("alice", "janggi challenge alice bob", ""),                              # janggi 101
    ("alice", f"janggi setup 101 {p('alice')} outer", ""),
    ("root", f"janggi cancel 101 {p('root')} a test of cancels", ""),
    ("alice", f"xiangqi challenge -fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')} alice bob", ""),  # 105
    ("alice", "multiple", "\n".join(
        f"xiangqi move 105 {p('alice' if ply % 2 else 'bob')} {move}"
        for ply, move in enumerate(CYCLE.split(), start=1))),
    ("alice", "xiangqi ruling 105", ""),
    ("alice", f"xiangqi appeal 105 {p('alice')}", "My rook only followed the cannon once."),
    ("root", f"xiangqi adjudicate 105 {p('root')} draw on appeal", ""),
    ("alice", f"xiangqi tournament create cup {p('alice')} --system=roundrobin", ""),
    ("alice", "multiple", "\n".join([
        f"xiangqi tournament join cup {p('bob')}",
        f"xiangqi tournament join cup {p('carol')}",
        f"xiangqi tournament join cup {p('dave')}",
        f"xiangqi tournament leave cup {p('dave')}",
        f"xiangqi tournament start cup {p('alice')}",
        "xiangqi tournament show cup",
        "xiangqi tournament record cup",
    ])),
    ("dave", f"signoff {p('dave')}", ""),
    ("bob", "password reset bob", ""),
]


def test_every_command_kind_then_serve_finds_the_database_whole(pbm_env: PbmEnv) -> None:
    after = ["password set bob CODE N3w-secret", f"change password {p('alice')} Sw0rdfish-2"]
    used = {" ".join(subject.lower().split()[:3]) for _, subject, body in SCRIPT
            for subject in [subject, *(lines(body) if subject == "multiple" else [])]} | {
        " ".join(subject.split()[:3]) for subject in after}
    for command in COMMANDS:        # a new command kind must be added to SCRIPT
        assert any(re.fullmatch(rf"(\w+ )?{command.verb}( .*)?", words) for words in used), command.verb
    pbm_env.configure(admins={"users": ["root"]})
    for user, subject, body in SCRIPT:
        pbm_env.mail(subject, body, sender=f"{user}@example.org")
    replies = pbm_env.replies()
    [mail] = [m for m in replies if "password set bob" in plain(m)]
    code = re.search(r"password set bob (\w+) NEWPASSWORD", plain(mail)).group(1)
    for subject in after:
        pbm_env.mail(subject.replace("CODE", code), sender=f"{subject.split()[2]}@example.org")
    replies += pbm_env.replies()
    assert not [m for m in replies if "internal error" in plain(m).lower()]

    # what SQLite 3.40.1 misread: a notice asked for, a conditional tree, an address to confirm
    assert pbm_env.query("SELECT user_id, game_id FROM end_notices ORDER BY user_id") == [("alice", 0), ("bob", 1)]
    assert pbm_env.query("SELECT count(*) FROM conditionals")[0][0] > 0
    assert pbm_env.query("SELECT count(*) FROM pending_addresses")[0][0] > 0
    assert pbm_env.query("SELECT status FROM appeals") == [("decided",)]
    assert pbm_env.query("PRAGMA quick_check") == [("ok",)]

    server = pbm_env.start_server()                 # it checks the file when it starts
    assert server.stop() == 0
    assert "damaged" not in server.log()
    doctor = pbm_env.run("doctor").stdout.decode()
    assert "damaged" not in doctor
    assert pbm_env.deliver(pbm_env.message("help")).returncode == 0


def test_every_table_with_a_row_passes_quick_check(tmp_path) -> None:
    """A row in every table (NULL wherever a column allows it), on this machine's SQLite (the CHECK
    constraints, which the values made here do not meet, ignored)."""
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    config = load_config(tmp_path / "pbm.toml")
    store.open_db(config).close()
    with sqlite3.connect(config.data_dir / "pbm.sqlite3") as db:
        db.execute("PRAGMA foreign_keys=OFF")
        db.execute("PRAGMA ignore_check_constraints=ON")
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                               "AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            columns = list(db.execute(f"PRAGMA table_info({table})"))
            values = [None if not notnull and not key else n if "INT" in kind else f"{table}-{n}"
                      for n, (_, _, kind, notnull, _, key) in enumerate(columns)]
            db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values))})", values)
        db.commit()
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)], sqlite3.sqlite_version


def test_in_a_table_without_rowid_the_key_comes_first(tmp_path) -> None:
    """The rule the schema keeps, whatever this machine's SQLite: 3.40.1 misreads the others."""
    (tmp_path / "pbm.toml").write_text(f'[storage]\ndata_dir = "{tmp_path / "var"}"\n')
    db = store.open_db(load_config(tmp_path / "pbm.toml"))
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE "
                               "'%WITHOUT ROWID%'").fetchall():
        columns = list(db.execute(f"PRAGMA table_info({table})"))
        key = [name for _, name, _, _, _, position in sorted(columns, key=lambda c: c[5]) if position]
        assert [c[1] for c in columns[:len(key)]] == key, table


def test_quick_check_findings_count_only_where_integrity_check_agrees(tmp_path) -> None:
    """A table made as 3.40.1 misreads it: `quick_check` alone may report a NULL, the check does
    not; noise over an index's page is still reported."""
    path = tmp_path / "t.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (b, a)) WITHOUT ROWID")
        db.execute("INSERT INTO t VALUES ('x', 'y')")
        db.execute("CREATE TABLE u (x INTEGER PRIMARY KEY, y TEXT)")
        db.execute("CREATE INDEX u_y ON u (y)")
        db.executemany("INSERT INTO u (y) VALUES (?)", [(str(n),) for n in range(100)])
        db.commit()
        assert health.checked(db) is None
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'u_y'").fetchone()[0]
    with open(path, "r+b") as f:                    # the index's page: noise
        f.seek((root - 1) * page_size)
        f.write(bytes(range(256)) * (page_size // 256))
    with sqlite3.connect(path) as db:
        found = health.checked(db)
    assert found == "database disk image is malformed", found
