"""The outbox: replies wait in the database as finished bytes until they are handed over.

`queue.queue()` renders each `Outgoing` (`render`) into a complete RFC 5322 message inside the
caller's transaction, so a reply exists exactly when the command that caused it was committed, and
every later attempt sends the same bytes with the same Message-ID.  `sending.send_due()` claims rows
(`claims`: so `pbm deliver` and `pbm serve` never send one row at the same time), hands them to a
transport (`maildir`, or `relay`: both speak `transports`), and records the outcome row by row;
`bounces` is what follows a reply refused for good.  `compose` writes the reply mails' text from
the templates in mail_templates/.

A process killed while sending leaves its rows claimed; they are taken over as soon as the claiming
process is seen to be gone, or when the claim lapses.  The Maildir transport is idempotent (the file
name comes from the row, a second write replaces the first), so every reply lands exactly once.
An SMTP relay can only be at-least-once: a reply the relay accepted just before the crash is sent
again, with the same Message-ID, so mail clients show it once.
"""
