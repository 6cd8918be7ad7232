"""Reviews of finished games by a chess engine: the engine over a pipe (engine), a game searched
position by position (search), what the evaluations say (analysis), the worker that takes the queued
reviews (worker, remote), and what the reader gets (chart, annotate, report).  docs/review.md.
"""
