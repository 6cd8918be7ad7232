"""The long-running parts: `pbm serve` (`serve`, its SMTP and LMTP `listener` processes, its
`outbox` process, the `processes` that link them, the `preparers` threads) and `pbm poll` (IMAP)."""
