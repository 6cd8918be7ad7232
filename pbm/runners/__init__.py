"""The long-running parts: `pbm serve` (`serve`, its SMTP and LMTP `listener` processes, its
`outbox` process, the `processes` that link them, the `preparers` threads), `pbm poll` (IMAP), and
`pbm deliver` (`deliver`) with `handover`, the thin LMTP client it hands a message to a running
`pbm serve` with."""
