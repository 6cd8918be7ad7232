"""The server's state in SQLite: the database and its schema (`db`, `schema`), and one module per
kind of record: accounts, games, seeks, vacations, ratings, the guessing guard, reply tokens, the
record of messages received (`received`), who a game's mail goes to (`readers`), and a game's PGN."""
