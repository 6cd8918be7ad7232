"""What the tests share: real processes (`processes`), the in-process post office (`postoffice`),
a private Dovecot (`dovecot`), an SMTP relay (`relay`), independent oracles (`giqi_oracle`,
`padwarqi_oracle`, `pyffish_playouts`), a PGN reader, and positions to test on."""
