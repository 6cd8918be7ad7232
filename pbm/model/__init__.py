"""The server's state in SQLite: the database, its schema and migrations (`db`, `store`, `schema`,
`schema_play`, `rebuild`), and the records by family: `players` (accounts and everything that
guards them), `play` (games, their moves, records and tournaments), `server` (the messages received,
sealed failures, heartbeats)."""
