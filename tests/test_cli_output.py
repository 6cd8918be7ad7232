"""The operator commands' output read by another program: `pbm outbox show N | head` stops quietly
when its reader stops, with no BrokenPipeError traceback, as cat does."""
from __future__ import annotations


def test_output_to_a_reader_that_stops_early_ends_quietly(pbm_env):
    pbm_env.mail("signup alice apple7pie")
    pbm_env.mail("help")                        # a long answer
    shown = pbm_env.popen("outbox", "show", "2")
    shown.stdout.close()                        # the reader is gone before pbm writes a line
    assert shown.wait(timeout=60) == 1
    said = shown.stderr.read().decode()
    shown.stderr.close()
    assert "Traceback" not in said and "BrokenPipeError" not in said, said
    assert pbm_env.run("outbox", "show", "2").returncode == 0        # read whole, it succeeds
