"""The games and what goes with them: moves and events, conditional and submitted moves, clocks' banks, notices, records (PGN), readers, seeks, appeals, tournaments."""
