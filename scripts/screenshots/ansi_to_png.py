"""Render a `tmux capture-pane -p -e` capture as a PNG: pyte replays the text and its SGR colour
codes on a virtual screen, Pillow draws every cell in DejaVu Sans Mono (wide East Asian characters
in a CJK fallback font) on a fixed grid.

Usage: ansi_to_png.py CAPTURE.ansi OUT.png COLUMNS ROWS
"""

import sys
import unicodedata

import pyte
from PIL import Image, ImageDraw, ImageFont

FONT_SIZE = 16
FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
REGULAR = FONT_DIR + "DejaVuSansMono.ttf"
BOLD = FONT_DIR + "DejaVuSansMono-Bold.ttf"
# Debian fonts-wqy-microhei: Chinese, Japanese kana and Korean Hangul, which DejaVu does not cover.
WIDE_FALLBACK = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
# Wide glyphs are drawn a little larger, so that two cells look filled as in a terminal.
WIDE_FONT_SIZE = FONT_SIZE + 2

BACKGROUND = (24, 24, 28)
FOREGROUND = (220, 220, 214)
# The 16 ANSI colours (a dark, xterm-like palette), by pyte's names.
PALETTE = {
    "black": (40, 42, 46), "red": (214, 76, 76), "green": (110, 190, 90), "brown": (222, 180, 70),
    "blue": (90, 140, 230), "magenta": (200, 110, 210), "cyan": (80, 190, 200), "white": (210, 210, 205),
    "brightblack": (110, 110, 118), "brightred": (255, 110, 110), "brightgreen": (150, 230, 120),
    "brightbrown": (255, 220, 110), "brightblue": (130, 175, 255), "brightmagenta": (235, 150, 240),
    "brightcyan": (120, 230, 240), "brightwhite": (250, 250, 250),
}


class DimAwareScreen(pyte.Screen):
    """pyte keeps bold, reverse and underline but not dim (SGR 2), which forceterm uses for hints
    and locally deleted rows; this screen remembers which cells were drawn dim."""

    def __init__(self, columns, lines):
        super().__init__(columns, lines)
        self.dim_on = False
        self.dim_cells = set()

    def select_graphic_rendition(self, *attrs, **kwargs):
        codes = list(attrs) or [0]
        for code in codes:
            if code == 2:
                self.dim_on = True
            elif code in (0, 22):
                self.dim_on = False
        super().select_graphic_rendition(*attrs, **kwargs)

    def draw(self, data):
        y, start = self.cursor.y, self.cursor.x
        super().draw(data)
        if self.dim_on and self.cursor.y == y:
            for x in range(start, self.cursor.x):
                self.dim_cells.add((x, y))


def colour(name, default):
    if name == "default":
        return default
    if name in PALETTE:
        return PALETTE[name]
    if len(name) == 6:  # pyte gives 256-colour and true-colour values as hex
        return tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))
    return default


def dimmed(rgb, background):
    return tuple((3 * c + 2 * b) // 5 for c, b in zip(rgb, background))


def render(capture, columns, rows):
    screen = DimAwareScreen(columns, rows)
    stream = pyte.Stream(screen)
    # capture-pane ends rows with a bare LF and may leave an attribute run open: reset per row.
    for index, line in enumerate(capture.split("\n")[:rows]):
        screen.cursor_position(index + 1, 1)
        stream.feed("\x1b[0m" + line + "\x1b[0m")

    regular = ImageFont.truetype(REGULAR, FONT_SIZE)
    bold = ImageFont.truetype(BOLD, FONT_SIZE)
    try:
        wide = ImageFont.truetype(WIDE_FALLBACK, WIDE_FONT_SIZE)
    except OSError:
        wide = regular
    cell_width = round(regular.getlength("M"))
    ascent, descent = regular.getmetrics()
    cell_height = ascent + descent + 2
    margin = 12
    image = Image.new("RGB", (columns * cell_width + 2 * margin, rows * cell_height + 2 * margin), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for y in range(rows):
        row = screen.buffer[y]
        x = 0
        while x < columns:
            cell = row[x]
            text = cell.data
            is_wide = bool(text) and unicodedata.east_asian_width(text[0]) in ("W", "F")
            span = 2 if is_wide and x + 1 < columns else 1
            fg = colour(cell.fg, FOREGROUND)
            bg = colour(cell.bg, BACKGROUND)
            if cell.bold and cell.fg in PALETTE and not cell.fg.startswith("bright"):
                fg = PALETTE["bright" + cell.fg]
            if cell.reverse:
                fg, bg = bg, fg
            if (x, y) in screen.dim_cells:
                fg = dimmed(fg, bg)
            left, top = margin + x * cell_width, margin + y * cell_height
            draw.rectangle([left, top, left + span * cell_width - 1, top + cell_height - 1], fill=bg)
            if text.strip():
                if is_wide:
                    inset = max((span * cell_width - wide.getlength(text)) / 2, 0)
                    draw.text((left + inset, top), text, font=wide, fill=fg)
                else:
                    draw.text((left, top + 1), text, font=bold if cell.bold else regular, fill=fg)
            if cell.underscore:
                draw.line([left, top + cell_height - 2, left + span * cell_width - 1, top + cell_height - 2], fill=fg)
            x += span
    return image


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    source, target, columns, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(source, encoding="utf-8") as handle:
        capture = handle.read()
    render(capture, columns, rows).save(target, optimize=True)


if __name__ == "__main__":
    main()
