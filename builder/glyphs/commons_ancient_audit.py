"""Tracings of ``commons-ancient`` left out of the build, with the reviewer's reason.

A tracing is left out when it does not draw an early form of the character its file names:
the graph another word was written with (立 for 位, 乍 for 作, 尚 for 常: a "which character
is this?" question would have an answer the image does not show), a component diagram
whose whole picture reads as another character, an illegible tracing, or a form whose
reading is not secure ("doubtful"). Verdicts of an independent review of all 359 tracings
(each looked at; 2026-12-01), plus the bench review that found 常-bronze. The records stage
skips them with kind ``glyph-audited-out``; being a module, an edit here changes the
records stage's code key and rebuilds it.
"""

# file -> "wrong: ..." / "doubtful: ..."
AUDITED_OUT: dict[str, str] = {
    "svg/考-oracle.svg": "wrong: the graph of another character: the oracle long-haired old man leaning on a staff is the common graph of 老 (its lower part is 匕-like, not 丂); 考 was written with the 老 graph; a reader would name 老 (form audit, 2026-12-04)",
    "svg/育-bronze.svg": "wrong: the graph of another character: this is 毓 (每/mother figure + upside-down child 㐬), Shuowen's 或體 of 育 but today a separate standard character; a reader would name 毓, not 育 (form audit, 2026-12-04)",
    "svg/万-bronze.svg": "wrong: Draws 丂 (a bar over one bent stroke), not 萬; in bronze the number word 'ten thousand' is written 萬 (the scorpion), and 丂 is a different character (used for 考/巧).",
    "svg/万-oracle.svg": "wrong: Draws the oracle 丂 (a bar over a bent vertical with a side stroke), not 萬 (scorpion), which is how oracle bones write 'ten thousand'.",
    "svg/主-oracle.svg": "wrong: A plain T-shape is the oracle graph 示 (altar/spirit tablet); it is transcribed 示, not 主.",
    "svg/举-bronze.svg": "wrong: Draws 與 (two hands above and two below around the 与 interlace) with no 手, i.e. the graph 與 that 舉 was written with, not 舉.",
    "svg/位-bronze.svg": "wrong: Draws 立 (大 standing on the ground line), the graph used for 位 before 亻 was added.",
    "svg/位-oracle.svg": "wrong: Draws 立 (a person standing on a line); same shape as 立-oracle.svg.",
    "svg/作-bronze.svg": "wrong: Draws 乍 (the graph used for 作 in bronze inscriptions), with no 亻.",
    "svg/作-oracle.svg": "wrong: Draws 乍, the oracle graph transcribed 乍 and read 作, not 作 itself.",
    "svg/力-bronze.svg": "wrong: The image shows 男: 力 in black with the 田 of 男 kept in grey (a component diagram cut from 男), so the whole glyph reads as 男.",
    "svg/在-oracle.svg": "wrong: Draws 才 (a vertical with a triangular swelling across a bar), the graph oracle bones use for 在; no 土.",
    "svg/城-bronze.svg": "wrong: Draws 成 (戊 with 丁), the graph 城 was written with; no 土 or 𩫏 element.",
    "svg/基-oracle.svg": "wrong: Draws 其 (the winnowing basket 箕 with cross-hatching); no 土, and 基 is not an oracle-bone character.",
    "svg/增-bronze.svg": "wrong: Draws 曾 (八 over a crossed 田 over 口), the graph used for 增; no 土.",
    "svg/增-oracle.svg": "wrong: A blotchy graph (a bent vertical at left and two looped/凵-like blobs at right) with no 土 and not even a clear 曾; 增 is not attested in oracle bones.",
    "svg/已-bronze.svg": "wrong: Draws 巳 (a small round head on a long curved body), the branch-sign graph with which 已 was written until Han; not a separate 已.",
    "svg/常-bronze.svg": "wrong: Draws 尚 (八 over 冋), the graph used by loan for 常; no 巾.",
    "svg/广-bronze.svg": "wrong: A component diagram: black 广 plus a grey inverted-person 屰 inside it, so the whole glyph reads as 𢇛 (the old form of 斥), not 广 and not 廣 (which would hold 黃).",
    "svg/庭-bronze.svg": "wrong: Draws 廷 (a person on 土 with dots inside the 廴 corner), the bronze graph later extended to 庭; no 广.",
    "svg/格-oracle.svg": "wrong: At best 各 (a foot over a 凵 pit, drawn as a blob); no 木, and 格 is not attested in oracle bones.",
    "svg/民-oracle.svg": "wrong: Draws a net on a long handle (网 over 干, i.e. 罕/畢), not 民 (an eye pierced by a spike); 民 is not securely attested in oracle bones.",
    "svg/泳-bronze.svg": "wrong: Draws 永 (the same shape as 永-bronze.svg), with no water element.",
    "svg/温-oracle.svg": "wrong: Draws 𥁕/昷 (a person in a 皿 basin with drops), a different character that 溫 later replaced (Duan: 溫行而𥁕廢矣); no 水 at the side.",
    "svg/舒-bronze.svg": "wrong: Draws 舍 (亼 roof, 余 stem with side strokes, 口) with no 予, the graph used for 舒 in bronze.",
    "svg/花-bronze.svg": "wrong: Draws 華 (the flowering-plant graph 𠌶), the graph that post-Han 花 was derived from; 花 itself does not exist in bronze script.",
    "svg/主-bronze.svg": "doubtful: A figure with a ringed, dotted disc over outstretched arms and two legs looks like bronze 黃 (a person wearing a jade ring), not a lamp (主); 主 is not securely attested in bronze.",
    "svg/丽-oracle.svg": "doubtful: Two identical hooked strokes side by side (like two 丂/刀), with no 鹿 and no clear paired antlers; no secure oracle 丽/麗 graph matches.",
    "svg/儿-bronze.svg": "doubtful: Two-tone component diagram: only the body is black and the 兒 head is grey, so it is either the radical 儿 (black part, which reads as 人) or 兒 (whole glyph), depending on how it is read.",
    "svg/儿-oracle.svg": "doubtful: Same two-tone diagram as 儿-bronze: black body with the 兒 head in grey.",
    "svg/刀-bronze.svg": "doubtful: Black 刀 with two grey strokes from a surrounding character; viewed whole it reads as 刀 with two dots (like 刅), not bare 刀.",
    "svg/危-oracle.svg": "doubtful: A pinwheel-like zigzag; oracle 危 is not securely identified, and the shape shows no 厃/卩 (person on a cliff).",
    "svg/因-oracle.svg": "doubtful: A 大-like figure framed by garment-like strokes with no 囗 enclosure; looks more like 衣/依 than 因 (囗 + 大).",
    "svg/士-oracle.svg": "doubtful: Only the modern 士 shape (十 over a thick bar); standalone 士 is not securely attested in oracle bones, so the script label looks made up.",
    "svg/夏-oracle.svg": "doubtful: A small 日/目 box over a bent limbed figure; oracle 夏 is not securely identified and this matches neither the 頁+臼+夊 figure nor any standard form.",
    "svg/失-oracle.svg": "doubtful: A wavy vertical with a crossbar and four dots (like 水/米/尗), with no hand (手) element; not a recognisable 失.",
    "svg/左-oracle.svg": "doubtful: Only two crossing strokes (like 乂), with no finger strokes, so it is hard to read as the left hand 𠂇.",
    "svg/建-oracle.svg": "doubtful: A blotchy, rubbing-like mass (a left frame and a perforated block) that cannot be read; 建 is not securely attested in oracle bones.",
    "svg/往-bronze.svg": "doubtful: A three-pronged plant over 土 with a thick base reads as bronze 生; at best it is 㞷 (之 over 土) with no 彳 or 辵.",
    "svg/念-oracle.svg": "doubtful: A lid-shaped top over a diamond heart: the top is not 今's ∧ roof, and 念 is hardly attested in oracle bones.",
    "svg/敢-oracle.svg": "doubtful: A ragged, hair-thin tracing (a fork, a box and crossed strokes in a column) with no clear hand or boar; illegible at benchmark size.",
    "svg/次-oracle.svg": "doubtful: A single looped S-stroke standing on a ground line, with no 欠 (open-mouthed kneeling person) and no 二/drool strokes; not recognisable as 次.",
    "svg/泳-oracle.svg": "doubtful: It is 永 (彳 with a person) with a few extra water strokes; oracle bones do not separate 泳 from 永, and the standard transcription is 永.",
    "svg/由-bronze.svg": "doubtful: A flame/leaf shape over an open bowl looks like a lamp (cf. 主) or 甾; 由 has no secure bronze form of this shape.",
    "svg/真-oracle.svg": "doubtful: 匕 over a 鼎-like vessel: whether this oracle graph is 真 (rather than a 貞/鼎 variant) is disputed.",
    "svg/突-oracle.svg": "doubtful: 穴 over a blob with a hole; the inner element is not a recognisable 犬, and 突 is not securely attested in oracle bones.",
    "svg/网-bronze.svg": "doubtful: A bare bow-tie (an X between two verticals) with no 冂 frame and no mesh; it reads as 五 turned on its side rather than as 网.",
    "svg/能-oracle.svg": "doubtful: Draws an antlered animal (鹿/麋-like) with a small extra element, not the bear 能; oracle 能 is not securely identified.",
}
