"""The text of an HTML-only mail, as its author saw it: lines, blank lines and quotes."""
from __future__ import annotations

import re
from html.parser import HTMLParser


class _HtmlText(HTMLParser):
    """Text of an HTML mail; <blockquote> content comes out as "> " lines, like quoted plain text.

    Every block element (<div>, <p>, ...) is one line and <br> ends one, without blank lines in
    between, because mail clients write one <div> or <p> per typed line; an empty block such as
    <div><br></div> or <p>&nbsp;</p> is a blank line, as the author saw it.
    """

    _BLOCKS = {"p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
               "ul", "ol", "hr", "blockquote", "dt", "dd"}
    _HIDDEN = {"script", "style", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._line: list[str] = []
        self._typed = False             # the current line has content, if only a &nbsp;
        self._quote = 0
        self._hidden = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._tag(tag, +1)

    def handle_endtag(self, tag: str) -> None:
        self._tag(tag, -1)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self._tag(tag, 0)

    def _tag(self, tag: str, step: int) -> None:
        if tag == "br":
            self._flush(force=True)
        elif tag in self._BLOCKS:
            self._flush()
        if tag == "blockquote":
            self._quote = max(0, self._quote + step)
        elif tag in self._HIDDEN:
            self._hidden = max(0, self._hidden + step)
        elif tag == "pre":
            self._pre = max(0, self._pre + step)

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            first, *rest = data.split("\n")
            self._line.append(first)
            for line in rest:
                self._flush(force=True)
                self._line.append(line)
        else:
            self._line.append(re.sub(r"[ \t\r\n\f]+", " ", data))
        self._typed = self._typed or bool(data.strip(" \t\r\n\f"))

    def _flush(self, force: bool = False) -> None:
        if self._typed or force:
            line = "".join(self._line).replace("\xa0", " ")
            line = line.rstrip() if self._pre else line.strip()
            self.lines.append(("> " * self._quote + line).rstrip())
        self._line = []
        self._typed = False

    def close(self) -> None:
        super().close()
        self._flush()


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:                   # html.parser is lenient; this is a last resort
        return re.sub(r"<[^>]*>", " ", html)
    return "\n".join(parser.lines)
