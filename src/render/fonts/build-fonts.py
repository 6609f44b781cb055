#!/usr/bin/python3
"""Rebuilds the PDF renderer's font subsets from Debian 12's font packages.

  apt-get install fonts-noto-core fonts-droid-fallback fonts-nanum python3-fonttools
  /usr/bin/python3 src/render/fonts/build-fonts.py

Subsets keep the deployed Worker small (the fonts are bundled into it): hinting and, for the
alphabetic fonts, OpenType layout are dropped (pdf-lib draws glyphs at their advance widths and
ignores positioning anyway); Arabic, Hebrew and Thai keep theirs for shaping.
"""
import gzip
import os
from fontTools import subset
from fontTools.ttLib import TTFont

HERE = os.path.dirname(os.path.abspath(__file__))
NOTO = '/usr/share/fonts/truetype/noto'


def ranges(*spans):
    """Code points of inclusive (first, last) spans."""
    return {cp for first, last in spans for cp in range(first, last + 1)}


def encoding_level(encoding, lead_bytes, trail_bytes=range(0xA1, 0xFF)):
    """The characters of a legacy double-byte encoding whose lead byte is in `lead_bytes`."""
    chars = set()
    for lead in lead_bytes:
        for trail in trail_bytes:
            try:
                text = bytes([lead, trail]).decode(encoding)
            except UnicodeDecodeError:
                continue
            if len(text) == 1:
                chars.add(ord(text))
    return chars


# Latin (with Vietnamese and IPA), Greek, Cyrillic, general punctuation, currency, letterlike
# symbols, arrows, maths, box drawing, geometric shapes and U+FFFD for characters no font has.
ALPHABETIC = ranges((0x20, 0x7E), (0xA0, 0x24F), (0x250, 0x2FF), (0x300, 0x36F), (0x370, 0x3FF),
                    (0x400, 0x52F), (0x1E00, 0x1EFF), (0x2000, 0x206F), (0x20A0, 0x20CF),
                    (0x2100, 0x215F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2500, 0x257F),
                    (0x25A0, 0x25FF), (0xFFFD, 0xFFFD))
# Bold sets headings and table headers: the common alphabets suffice, other characters fall back to regular.
ALPHABETIC_BOLD = ranges((0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x2010, 0x2027),
                         (0x20AC, 0x20AC), (0x2122, 0x2122), (0xFFFD, 0xFFFD))
JOINERS = ranges((0x200C, 0x200F), (0x25CC, 0x25CC))

# Han: GB 2312 level 1 (the 3,755 most used simplified characters), JIS X 0208 level 1 (2,965 kanji)
# and Big5 level 1 (5,401 frequent traditional characters); with kana, CJK punctuation and full-width forms.
HAN = (encoding_level('gb2312', range(0xB0, 0xD8))
       | encoding_level('euc_jp', range(0xB0, 0xD0))
       | {cp for cp in encoding_level('big5', range(0xA4, 0xC7), list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)))
          if 0x4E00 <= cp <= 0x9FFF})
CJK = HAN | ranges((0x3000, 0x30FF), (0x31F0, 0x31FF), (0xFF00, 0xFFEF))
# All 11,172 Hangul syllables and the compatibility jamo.
HANGUL = ranges((0xAC00, 0xD7A3), (0x3130, 0x318F))

FONTS = [
    # (output, source, code points, keep OpenType layout)
    ('noto-sans-regular.ttf', f'{NOTO}/NotoSans-Regular.ttf', ALPHABETIC, False),
    ('noto-sans-bold.ttf', f'{NOTO}/NotoSans-Bold.ttf', ALPHABETIC_BOLD, False),
    ('noto-sans-arabic.ttf', f'{NOTO}/NotoSansArabic-Regular.ttf', ranges((0x600, 0x6FF)) | JOINERS, True),
    ('noto-sans-hebrew.ttf', f'{NOTO}/NotoSansHebrew-Regular.ttf', ranges((0x590, 0x5FF), (0xFB1D, 0xFB4F)) | JOINERS, True),
    # Without layout: @pdf-lib/fontkit 1.1.1's Indic shaper throws (its build lacks regeneratorRuntime),
    # so Devanagari is drawn letter by letter, unshaped.
    ('noto-sans-devanagari.ttf', f'{NOTO}/NotoSansDevanagari-Regular.ttf', ranges((0x900, 0x97F), (0xA8E0, 0xA8FF)) | JOINERS, False),
    ('noto-sans-thai.ttf', f'{NOTO}/NotoSansThai-Regular.ttf', ranges((0xE00, 0xE7F)) | JOINERS, True),
    ('droid-sans-fallback-cjk.ttf', '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf', CJK, False),
    ('hangul-square.ttf', '/usr/share/fonts/truetype/nanum/NanumSquareR.ttf', HANGUL, False),
]

# NanumSquare's licence reserves the name "Nanum": a modified version (this subset) must not carry it.
RENAMED = {'hangul-square.ttf': ('Posture Hangul Square', 'PostureHangulSquare-Regular')}


def rename(font, family, postscript):
    for record in font['name'].names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID == 4:
            record.string = f'{family} Regular'
        elif record.nameID in (3, 6):
            record.string = postscript
        elif record.nameID in (2, 17):
            record.string = 'Regular'
        elif record.nameID == 13:
            record.string = 'This Font Software is licensed under the SIL Open Font License, Version 1.1.'
        elif record.nameID == 14:
            record.string = 'https://openfontlicense.org'
    # Localised (Korean) names would still say Nanum.
    font['name'].names = [r for r in font['name'].names if r.langID in (0, 0x409)]


def build(output, source, code_points, keep_layout):
    options = subset.Options()
    options.hinting = False
    options.name_IDs = ['*']
    options.name_languages = ['*']
    options.notdef_outline = True
    options.drop_tables += ['vhea', 'vmtx', 'DSIG']
    if keep_layout:
        options.layout_features = ['*']
    else:
        options.layout_features = []
        options.drop_tables += ['GSUB', 'GPOS', 'GDEF']
    # Keeping the source's timestamps makes rebuilds byte-identical.
    font = TTFont(source, recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=code_points)
    subsetter.subset(font)
    if output in RENAMED:
        rename(font, *RENAMED[output])
    # Every glyph an even number of bytes: fontkit writes a document's small subset with short (halved)
    # loca offsets, which misplace the glyphs after an odd-sized one (they render blank).
    font['glyf'].padding = 2
    path = os.path.join(HERE, output)
    font.save(path)
    with open(path, 'rb') as f:
        data = f.read()
    return len(data), len(gzip.compress(data, 9))


total = 0
for output, source, code_points, keep_layout in FONTS:
    size, gzipped = build(output, source, code_points, keep_layout)
    total += gzipped
    print(f'{output:32} {size:>9,} bytes  {gzipped:>9,} gzipped')
print(f'{"total":32} {"":>15}  {total:>9,} gzipped')
