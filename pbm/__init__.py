"""pbm: a play-by-email turn server for Xiangqi and its relatives.

The flow is one-way: mail (intake) -> command -> rules -> store -> outbox -> templates.
"""
