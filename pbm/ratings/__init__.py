"""Ratings, computed apart from the database: Glickman's Glicko-2 (glicko2) and its game-by-game
use with time, as Lichess rates correspondence chess (correspondence)."""
