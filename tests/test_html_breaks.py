"""Where Chromium breaks the lines of a board mail's HTML part on a phone (390 px): a FEN only
between its ranks, never inside one (a copied half would not be a position); Korean and Chinese
words never inside a word (`무르`/`기`, `悔`/`棋`).  The page measures itself: a script finds each
character's line box and writes the breaks into the page, which `--dump-dom` prints."""
from __future__ import annotations

import re
import subprocess
from html import unescape

import pytest
from support.browser import FLAGS, chromium
from support.postoffice import PASSWORDS

pytestmark = [pytest.mark.slow,      # a browser
              pytest.mark.post_office("alice", "bob")]

# For every element holding text: the text of each line it is laid out in, one line of output each.
MEASURE = """<script>
function lines(element) {
  const found = [], range = document.createRange();
  let top = null, line = "";
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      if (!box) continue;
      if (top !== null && box.top > top + 2) { found.push(line); line = ""; }
      top = box.top; line += node.data[i];
    }
  }
  return found.concat([line]);
}
const out = [];
for (const element of document.querySelectorAll("p, code, td")) out.push(lines(element).join("\\u2028"));
const pre = document.createElement("pre"); pre.id = "lines"; pre.textContent = out.join("\\n");
document.body.appendChild(pre);
</script>"""


def laid_out(html: str, folder, width: int = 390) -> list[list[str]]:
    """The lines of each paragraph, code and cell as Chromium lays the page out `width` px wide."""
    page = folder / "page.html"
    page.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = subprocess.run([chromium(), *FLAGS, f"--window-size={width},2000", "--dump-dom",
                          f"--user-data-dir={folder / 'profile'}", page.as_uri()],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'<pre id="lines">(.*?)</pre>', dom, re.S)
    assert found, dom[-500:]
    return [unescape(block).split("\u2028") for block in found[1].split("\n")]


def html_part(mail) -> str:
    return next(part.get_content() for part in mail.walk() if part.get_content_type() == "text/html")


@pytest.mark.parametrize("lang", ["ko", "zh-Hans"])
def test_fens_and_words_are_broken_only_between_them(post, tmp_path, lang):
    post.send(f"set bob {PASSWORDS['bob']} lang={lang}", sender="bob@example.org")
    post.send("xiangqi challenge alice bob")
    [mail] = [m for m in post.send(f"xiangqi move 101 alice {PASSWORDS['alice']} h3e3")
              if m["To"] == "bob@example.org"]
    blocks = laid_out(html_part(mail), tmp_path)
    fen = next(block for block in blocks if block[0].startswith("rnbakabnr/"))     # the <code>
    assert len(fen) > 1, fen                # a phone is too narrow for the FEN on one line
    assert all(line.rstrip().endswith("/") for line in fen[:-1]), fen
    hangul_or_han = r"[\uac00-\ud7a3\u4e00-\u9fff]"
    inside = [(line, after) for block in blocks for line, after in zip(block, block[1:])
              if re.search(hangul_or_han + "$", line.rstrip()) and line == line.rstrip()
              and re.match(hangul_or_han, after)]
    assert not inside, inside               # no line ends inside a word
    assert any(len(block) > 1 for block in blocks if re.search(hangul_or_han, "".join(block)))

