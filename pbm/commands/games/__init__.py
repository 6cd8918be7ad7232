"""Playing a game: moves and their effects, setups, conditional and queued moves, queries, seeks, records, and the administrators' and arbiters' say."""
