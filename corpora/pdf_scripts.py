"""PDFs in scripts other than Latin, printed by headless Chromium from text written here, each
with its reference (:class:`~corpora.pdf_layouts.Doc`): a Korean report (Hangul words spaced as
printed, Latin words and figures inside), an Arabic one with its vowel marks (harakat, tanwin,
shadda on their letters; Latin words inside the lines, at their start and end), and a page of
paragraphs in Latin, Cyrillic, Greek, Hebrew, Korean, Chinese and Japanese (ideographs and kana
never spaced). Chromium draws no space glyph: every word space is a gap between glyphs.

Korean, Chinese and Japanese need a font with Hangul and CJK ideographs (Debian's fonts-nanum);
without it a maker raises :class:`MissingFont` rather than print boxes for letters.
"""

from __future__ import annotations

import html
import random
import subprocess

from corpora.pdf_browser import print_html
from corpora.pdf_layouts import Doc

HANGUL_FONT = "NanumGothic"


class MissingFont(RuntimeError):
    """The machine has no font for a script a document is written in."""


def font_for(language: str) -> str:
    """The family fontconfig has for ``language`` (``ko``), or MissingFont saying what to
    install."""
    try:
        found = subprocess.run(["fc-list", f":lang={language}", "family"], capture_output=True,
                               text=True, check=False).stdout
    except FileNotFoundError:
        found = ""
    families = {f.split(",")[0].strip() for f in found.splitlines() if f.strip()}
    if not families:
        raise MissingFont(f"no font for the language {language!r}: install Debian's "
                          "fonts-nanum (apt-get install fonts-nanum)")
    return HANGUL_FONT if HANGUL_FONT in families else sorted(families)[0]


def _page(doc: Doc, style: str, lang: str, direction: str = "ltr") -> str:
    body = []
    for kind, payload in doc.parts:
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            body.append(f"<h{level}>{html.escape(text)}</h{level}>")
        else:
            body.append(f"<p>{html.escape(str(payload))}</p>")
    return (f'<html lang="{lang}" dir="{direction}"><head><meta charset="utf-8"><style>'
            f"{style}</style></head><body>{''.join(body)}</body></html>")


KOREAN_TITLE = "북부 지역 상수도 연간 보고서"
KOREAN = {
    "1. 공급과 수요": [
        "이 보고서는 북부 지역 상수도 사업의 한 해 성과를 정리한 것이다.",
        "올해 여름에는 가뭄이 길어져 저녁 시간의 정원 용수 사용량이 두 배로 늘었다.",
        "모든 계량 구역은 매시간 야간 유량을 관제실로 보고하며, 분석에는 Python과 SQL을 "
        "사용하였다.",
        "애시퍼드 정수장의 펌프를 바꾼 뒤 처리수 1세제곱미터당 에너지 사용량이 12퍼센트 줄었다.",
    ],
    "2. 누수와 압력 관리": [
        "누수량은 압력 관리 구역을 넓힌 뒤 삼 년 연속으로 줄어들었다.",
        "작업자들은 눈에 보이는 누수를 대부분 하루 안에, 숨은 누수는 아흐레 안에 고쳤다.",
        "AI 기반 누수 탐지 시범 사업은 2024년 3월부터 여섯 개 구역에서 진행되고 있다.",
    ],
    "3. 수질": [
        "수도꼭지에서 채취한 시료는 세 건을 빼고 모두 먹는 물 기준을 충족하였다.",
        "각 초과 사례는 개인 배관 설비에서 비롯된 것으로 확인되어 소유자와 함께 해결하였다.",
        "팔월에는 녹조가 생긴 뒤 맛과 냄새에 관한 민원이 가장 많았다.",
        "활성탄 투입량은 녹조가 취수구를 지나갈 때까지 늘려 유지하였다.",
    ],
    "4. 고객과 요금": [
        "스마트 계량기는 새 주택에 설치되었고, 오래된 거리에서도 시범 사업이 진행 중이다.",
        "초기 결과에 따르면 스마트 계량기를 쓰는 가구는 물을 약 6퍼센트 덜 쓴다.",
        "요금 시스템은 주말 동안 이전되었으며 누락된 청구서는 없었다.",
        "사회적 요금제는 소득이 가장 낮은 가구의 요금을 절반으로 줄여 준다.",
        "직원 이직률은 낮았지만 숙련된 배관공을 뽑는 일은 여전히 어려웠다.",
    ],
}


def korean(rng: random.Random) -> tuple[bytes, Doc] | None:
    """A Korean report: numbered sections, justified paragraphs broken between words (as
    Korean word processors do: ``word-break: keep-all``)."""
    family = font_for("ko")
    doc = Doc()
    doc.heading(1, KOREAN_TITLE)
    for title, sentences in KOREAN.items():
        doc.heading(2, title)
        picked = sentences[:]
        rng.shuffle(picked)
        half = max(len(picked) // 2, 1)
        doc.para(" ".join(picked[:half]))
        doc.para(" ".join(picked[half:]))
    style = (f"body{{font-family:'{family}';font-size:11pt;word-break:keep-all;"
             "text-align:justify;line-height:1.5}h1{font-size:18pt}h2{font-size:13.5pt}")
    data = print_html(_page(doc, style, "ko"))
    return None if data is None else (data, doc)


ARABIC_TITLE = "تقرير فريق البرمجة"
ARABIC = {
    "1. الأدوات المستخدمة": [
        "يستخدم الفريق لغة Python من أجل تحليل البيانات، ويستخدم أيضًا أدوات أخرى بناءً على "
        "حاجة المشروع.",
        "Git هو الأداة التي نحفظ بها كلَّ تغيير في الشيفرة، وشكرًا لكل من ساهم فيها.",
        "تُشغَّل الاختبارات تلقائيًّا عند كل دمج في الفرع الرئيسي main",
        "قرأنا كتابًا جديدًا عن JavaScript وآخرَ عن Rust أيضًا.",
    ],
    "2. سير العمل": [
        "كَتَبَ المهندسُ الشيفرةَ جيدًا، ثم راجعها زميلُه مساءً.",
        "نعمل معًا خطوةً خطوةً حتى يكتمل العمل تمامًا.",
        "وصلت نسبة التغطية إلى 85 في المئة تقريبًا، وهي نسبةٌ جيدةٌ جدًّا.",
        "يُرسِلُ الخادمُ تقريرًا يوميًّا إلى قناة Slack الخاصة بالفريق.",
    ],
    "3. الخطة القادمة": [
        "سننتقل إلى قاعدة بيانات PostgreSQL خلال الربع الأول، ثم نراجع الأداءَ شهريًّا.",
        "لقد أصبح التوثيقُ جزءًا أساسيًّا من كل مهمة، فلا تُدمَج مهمةٌ دونه.",
        "نشكرُ الجميعَ على جهودِهم، ونتطلّعُ إلى عامٍ مثمرٍ معًا.",
    ],
}


def arabic_marks(rng: random.Random) -> tuple[bytes, Doc] | None:
    """Arabic with its vowel marks and Latin words inside, at the start and the end of a
    line, printed right to left (DejaVu Sans), in the order written (``rng`` is not drawn)."""
    doc = Doc()
    doc.heading(1, ARABIC_TITLE)
    for title, sentences in ARABIC.items():
        doc.heading(2, title)
        for sentence in sentences:
            doc.para(sentence)
    style = ("body{font-family:'DejaVu Sans';font-size:11pt;line-height:1.6}"
             "h1{font-size:18pt}h2{font-size:14pt}")
    data = print_html(_page(doc, style, "ar", "rtl"))
    return None if data is None else (data, doc)


SCRIPTS = [
    ("en", "ltr", "The utility operates four treatment works and about two thousand kilometres "
     "of mains. Demand rose sharply during the dry summer, when garden use doubled in the "
     "evenings."),
    ("ru", "ltr", "Водоканал обслуживает четыре очистные станции и около двух тысяч километров "
     "сетей. Летом спрос резко вырос, когда полив садов по вечерам удвоился."),
    ("el", "ltr", "Η εταιρεία λειτουργεί τέσσερις μονάδες επεξεργασίας και περίπου δύο χιλιάδες "
     "χιλιόμετρα αγωγών. Η ζήτηση αυξήθηκε απότομα κατά τη διάρκεια του ξηρού καλοκαιριού."),
    ("he", "rtl", "החברה מפעילה ארבעה מתקני טיהור וכאלפיים קילומטרים של צנרת. הביקוש עלה בחדות "
     "בקיץ היבש, כאשר השקיית הגינות בערבים הוכפלה."),
    ("ko", "ltr", "이 회사는 정수장 네 곳과 약 이천 킬로미터의 상수도관을 운영한다. "
     "건조한 여름에는 저녁 시간의 정원 용수 사용량이 두 배로 늘어 수요가 크게 올랐다."),
    ("zh", "ltr", "本公司經營四座淨水廠和約兩千公里的供水管網。夏季乾旱期間需求急劇上升，"
     "夜間的花園用水量增加了一倍。漏水量連續三年減少。"),
    ("ja", "ltr", "漏水は三年つづけて減りました。夏の夜には庭の水やりが二倍になりました。"),
]


def scripts(rng: random.Random) -> tuple[bytes, Doc] | None:
    """A paragraph in each of Latin, Cyrillic, Greek, Hebrew, Korean, Chinese and Japanese, in
    sizes from 9 to 14 points, some justified."""
    family = font_for("ko")
    doc = Doc()
    doc.heading(1, "Water services in seven scripts")
    body = ["<h1>Water services in seven scripts</h1>"]
    for language, direction, text in SCRIPTS:
        doc.para(text)
        size = rng.choice([9, 10, 11, 12, 14])
        align = rng.choice(["justify", "start"])
        # Korean breaks lines between words, as Korean word processors do
        breaks = "word-break:keep-all;" if language == "ko" else ""
        body.append(f'<p lang="{language}" dir="{direction}" style="font-size:{size}pt;'
                    f'text-align:{align};{breaks}">{html.escape(text)}</p>')
    style = (f"body{{font-family:'DejaVu Serif','{family}';width:15cm}}"
             "p{margin:0 0 12pt 0}h1{font-size:16pt}")
    data = print_html(f'<html><head><meta charset="utf-8"><style>{style}</style></head><body>'
                      f"{''.join(body)}</body></html>")
    return None if data is None else (data, doc)
