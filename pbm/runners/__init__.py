"""The long-running parts: `pbm serve` (`serve`, its SMTP and LMTP `listener` processes, its
`outbox` process, the `processes` that link them, the `preparers` threads), `pbm poll` (IMAP), and
`handover`, the thin LMTP client `pbm deliver` hands a message to a running `pbm serve` with."""
