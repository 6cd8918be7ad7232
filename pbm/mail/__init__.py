"""Mail coming in: reading one RFC 5322 message (`reading`: parse, judge automatic mail, decode the
command), the text of an HTML-only mail (`html_text`), and the two values that cross from mail
handling to the commands and back (`messages`: `Incoming`, `Outgoing`)."""
