"""Reproducible near-copy corpora: real source texts plus repost-style edited copies, with gold clusters.

    python benchmarks/nearcopy.py --kind long|short --strength light|medium|heavy --seed 0 -n 2000 -o corpus.jsonl

Sources: ``long`` = CCTV 新闻联播 stories (``cctv_xwlb_news_zh``, at least 200 characters);
``short`` = half Weibo posts (``weibo_ced_zh``, 10-140 characters, without URLs, mentions, hashtags or
repost chains) and half Toutiao headlines (``toutiao_titles_zh``). Exact and near duplicates among
the sources are dropped first (identical normalised text, then neardup ``simhash`` at its default
``max_distance=3``) so the gold clusters start clean.

Every source becomes one of three roles (shares are options of :func:`build_corpus`):

- ``original`` + ``copy``: the source and 1-4 edited copies, one gold cluster;
- ``singleton``: the source alone;
- ``negative``: unrelated sources put in groups of 2-5 that all carry the *same* boilerplate kit
  (header / footer / advertisement for long texts; repost prefix, hashtag, @mention, emoji, URL for
  short ones). Each is its own gold cluster: sharing only boilerplate is not duplication.

Each copy gets a few edits drawn at random from the kind's edit list (:data:`LONG_EDITS`,
:data:`SHORT_EDITS`), with the number of edits and their sizes set by the strength
(:data:`STRENGTHS`). Everything is drawn from one ``random.Random(seed)``: same sources, kind,
strength and seed give the same corpus, byte for byte. Rows: ``id, text, cluster`` plus ``role``,
``source`` (the source record's id), ``edits`` and ``boilerplate_group``.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import orjson

KINDS = ("long", "short")

# --- hand tables ------------------------------------------------------------------------------

# simplified -> traditional, common characters only (pairs "简繁")
_ST_PAIRS = """
国國 这這 个個 们們 来來 时時 为為 说說 会會 对對 发發 经經 过過 动動 后後 学學 现現 关關 点點
样樣 还還 进進 种種 实實 开開 应應 长長 业業 义義 与與 产產 从從 东東 区區 电電 问問 题題 体體
间間 机機 华華 书書 车車 见見 觉覺 让讓 话話 记記 语語 读讀 谁誰 请請 论論 议議 设設 认認 识識
计計 调調 资資 费費 贵貴 贸貿 质質 买買 卖賣 门門 闻聞 难難 头頭 马馬 鸟鳥 鱼魚 龙龍 风風 飞飛
万萬 亿億 气氣 网網 视視 织織 组組 线線 级級 纪紀 结結 给給 统統 绝絕 续續 乡鄉 县縣 镇鎮 员員
单單 场場 报報 将將 变變 处處 医醫 药藥 疗療 灾災 险險 协協 办辦 务務 团團 图圖 园園 际際 陆陸
阳陽 阴陰 队隊 环環 护護 总總 态態 战戰 严嚴 举舉 众眾 优優 传傳 伤傷 价價 农農 军軍 运運 达達
远遠 连連 边邊 选選 张張 历歷 压壓 厅廳 广廣 庆慶 库庫 异異 韩韓 乌烏 兰蘭 罗羅 齐齊 济濟 划劃
创創 领領 导導 听聽 观觀 规規 亲親 爱愛 无無 几幾 岁歲 节節 艺藝 范範 荣榮 营營 劳勞 势勢 热熱
灯燈 铁鐵 钱錢 银銀 错錯 钟鐘 闭閉 阶階 随隨 页頁 项項 顺順 须須 预預 频頻 额額 类類 显顯 饭飯
馆館 验驗 鲜鮮 汉漢 没沒 测測 涨漲 湾灣 满滿 灭滅 灵靈 烧燒 状狀 独獨 获獲 画畫 当當 监監 盖蓋
确確 码碼 礼禮 离離 积積 称稱 稳穩 竞競 笔筆 签簽 简簡 粮糧 紧緊 红紅 约約 纸紙 练練 细細 终終
维維 综綜 编編 职職 联聯 胜勝 脑腦 苏蘇 虽雖 补補 装裝 览覽 训訓 讯訊 访訪 证證 评評 诉訴 试試
该該 详詳 课課 谈談 谢謝 负負 财財 责責 败敗 货貨 购購 赛賽 赵趙 转轉 轮輪 轻輕 载載 较較 辆輛
输輸 钢鋼 镜鏡 陈陳 响響 顾顧 驻駐 鸡雞 厂廠 儿兒 并並 坚堅 块塊 复復 备備 头頭 宁寧 宝寶 层層
岛島 币幣 师師 带帶 干幹 庄莊 录錄 总總 户戶 扩擴 抢搶 担擔 拥擁 换換 损損 据據 数數 断斷 时時
显顯 术術 极極 构構 标標 树樹 桥橋 检檢 欢歡 归歸 毕畢 汇匯 池池 决決 况況 冲衝 减減 准準 几幾
"""
TRADITIONAL: dict[str, str] = {
    p[0]: p[1] for p in _ST_PAIRS.split() if len(p) == 2 and p[0] != p[1]
}

# homophones and look-alikes commonly typed or OCR'd in place of each other
_CONFUSABLE_ROWS = """
的地得 在再 做作 已以己 那哪 他她它 像象 到道 即既 须需 坐座 进近 是事 利力 期其 意义 部步 制治
工公 时实 业也 形行 员元原 记纪 权全 带代 发法 和合 未末 日曰 人入 土士 干千 王玉 大太 今令
折析 拨拔 候侯 免兔 历厉 练炼 辨辩 坚艰 贷货 戊戌 壁璧 账帐 象项
"""
CONFUSABLE: dict[str, str] = {}
for _row in _CONFUSABLE_ROWS.split():
    for _ch in _row:
        CONFUSABLE[_ch] = CONFUSABLE.get(_ch, "") + _row.replace(_ch, "")

_FULLWIDTH_ASCII = {c: chr(ord(c) + 0xFEE0) for c in map(chr, range(0x21, 0x7F)) if c.isalnum()}
_HALFWIDTH_PUNCT = dict(zip("，。：；！？（）", ",.:;!?()", strict=True))
_PUNCT = "，。：；！？、,.:;!?"

OUTLETS = ("人民网", "新华网", "中国新闻网", "澎湃新闻", "南方都市报", "北京青年报", "环球网", "光明网",
           "央广网", "中国青年网", "每日经济新闻", "新京报")  # fmt: skip
SURNAMES = "王李张刘陈杨赵黄周吴徐孙马朱胡郭何林"
GIVEN = ("小明", "海燕", "建国", "丽", "伟", "静", "磊", "芳", "军", "婷", "志强", "晓东", "雪")
HEADERS = ("来源：{outlet}", "本文转载自{outlet}", "{outlet}讯", "原标题：{lead}",
           "（记者 {name} 通讯员 {name2}）", "【{outlet}综合报道】")  # fmt: skip
FOOTERS = ("（完）", "责任编辑：{name}", "（来源：{outlet}）", "（编辑：{name} 审核：{name2}）",
           "本文来自{outlet}，版权归原作者所有，如有侵权请联系删除。",
           "【免责声明】本文仅代表作者观点，与本网无关。本网对文中陈述、观点判断保持中立，"
           "不对内容的准确性、可靠性或完整性提供任何保证，请读者仅作参考。")  # fmt: skip
ADS = (
    "关注{outlet}微信公众号，每天为你推送最新鲜的热点资讯。长按识别下方二维码即可关注，回复“福利”领取精选好礼。",
    "下载{outlet}客户端，第一时间获取权威新闻、深度解读和精彩视频，新用户注册即送三十天会员。",
    "【广告】本周末全场五折起！家电、数码、服饰限时特惠，满299元包邮，点击阅读原文立即抢购，数量有限，先到先得。",
    "欢迎投稿！如有新闻线索请拨打报料热线010-66668888，或发送邮件至tips@example.com，一经采用，稿酬从优。",
    "点赞、在看、转发，让更多人看到这篇文章。喜欢我们的内容，请记得设为星标，以免错过每一次更新。",
    "版权声明：本文为{outlet}原创稿件，未经授权不得转载。如需转载请联系后台获取授权，并注明出处及作者。",
)
USERS = ("新浪新闻", "头条新闻", "人民日报", "央视新闻", "微博搞笑排行榜", "环球时报", "财经网", "南方周末",
         "小明同学", "草根段子手", "深夜食堂", "老王说事", "吃瓜群众2016", "Lucky_星星")  # fmt: skip
TOPICS = ("今日热点", "身边事", "社会新闻", "每日一笑", "正能量", "热门话题", "转发抽奖", "早安",
          "关注民生", "科技前沿")  # fmt: skip
EMOJI = ("[哈哈]", "[泪]", "[蜡烛]", "[赞]", "[怒]", "[偷笑]", "[鼓掌]", "[doge]", "😂", "👍", "🙏", "😭")  # fmt: skip
COMMENTS = ("转发", "顶", "说得好", "好文！", "值得一看", "真的假的？", "太可怕了", "转需", "mark",
            "支持", "哈哈哈", "呵呵", "大家注意！", "必须转", "同问")  # fmt: skip
_URL_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])")
_CLAUSE_END = re.compile(r"(?<=[。！？!?；;，,])")


# --- strengths --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strength:
    """How many edits a copy gets and how large each one is."""

    name: str
    edits: tuple[int, int]  # inclusive range of the number of edits per copy
    substitution_rate: float  # share of Chinese characters replaced by a homophone / look-alike
    sentence_rate: float  # share of sentences deleted or inserted
    truncate_keep: tuple[float, float]  # share of the text kept by truncation
    noise_rate: float  # share of punctuation marks disturbed
    traditional_share: float  # share of the text converted to traditional characters
    reorder: str  # "swap" two adjacent paragraphs, "move" one, or "shuffle" all


STRENGTHS: dict[str, Strength] = {
    "light": Strength("light", (1, 2), 0.01, 0.05, (0.90, 0.97), 0.05, 0.3, "swap"),
    "medium": Strength("medium", (2, 4), 0.03, 0.15, (0.75, 0.90), 0.15, 0.6, "move"),
    "heavy": Strength("heavy", (4, 6), 0.06, 0.30, (0.55, 0.75), 0.30, 1.0, "shuffle"),
}


# --- text helpers -----------------------------------------------------------------------------


def split_units(text: str, *, clauses: bool = False) -> list[list[str]]:
    """Paragraphs (lines) of sentences, or of clauses when ``clauses``; empty pieces dropped."""
    pattern = _CLAUSE_END if clauses else _SENTENCE_END
    out = []
    for line in text.split("\n"):
        units = [u for u in pattern.split(line) if u.strip()]
        if units:
            out.append(units)
    return out


def join_units(paragraphs: list[list[str]]) -> str:
    return "\n".join("".join(p) for p in paragraphs if p)


def _name(rng: random.Random) -> str:
    return rng.choice(SURNAMES) + rng.choice(GIVEN)


def _fill(template: str, rng: random.Random, text: str) -> str:
    lead = split_units(text)[0][0] if text.strip() else ""
    return template.format(
        outlet=rng.choice(OUTLETS), name=_name(rng), name2=_name(rng), lead=lead[:24]
    )


def _url(rng: random.Random) -> str:
    return "http://t.cn/" + "".join(rng.choice(_URL_CHARS) for _ in range(7))


# --- edits ------------------------------------------------------------------------------------


class Editor:
    """Edits of one kind at one strength; every method returns the edited text, or None if it
    does not apply to this text (then another edit is drawn)."""

    def __init__(
        self, rng: random.Random, strength: Strength, *, kind: str, donors: Sequence[str] = ()
    ):
        if kind not in KINDS:
            raise ValueError(f"kind={kind!r}: choose one of {', '.join(KINDS)}")
        self.rng, self.strength, self.kind, self.donors = rng, strength, kind, donors

    # boilerplate -----------------------------------------------------------------------------
    def header(self, text: str) -> str:
        return _fill(self.rng.choice(HEADERS), self.rng, text) + "\n" + text

    def footer(self, text: str) -> str:
        return text + "\n" + _fill(self.rng.choice(FOOTERS), self.rng, text)

    def ad(self, text: str) -> str:
        paras = text.split("\n")
        paras.insert(self.rng.randint(1, len(paras)), _fill(self.rng.choice(ADS), self.rng, text))
        return "\n".join(paras)

    def repost(self, text: str) -> str:
        rng = self.rng
        form = rng.randrange(3)
        if form == 0:
            return "转发微博 " + text
        chain = "".join(f"//@{rng.choice(USERS)}:" + (rng.choice(COMMENTS) if i else "")
                        for i in range(form))  # fmt: skip
        return rng.choice(COMMENTS) + chain + text

    def mention(self, text: str) -> str:
        tag = f"@{self.rng.choice(USERS)} "
        return tag + text if self.rng.random() < 0.5 else text + " " + tag.strip()

    def hashtag(self, text: str) -> str:
        return f"#{self.rng.choice(TOPICS)}#" + text

    def emoji(self, text: str) -> str:
        marks = "".join(self.rng.choice(EMOJI) for _ in range(self.rng.randint(1, 3)))
        cut = self.rng.randint(0, len(text)) if self.rng.random() < 0.3 else len(text)
        return text[:cut] + marks + text[cut:]

    def url(self, text: str) -> str:
        return text + " " + _url(self.rng)

    # content ---------------------------------------------------------------------------------
    def _sentence_count(self, n: int) -> int | None:
        """Sentences to delete or insert among ``n``: about ``sentence_rate`` of them, at least
        one, and None when even one would exceed twice that share (too few sentences)."""
        rate = self.strength.sentence_rate
        k = max(1, round(rate * n))
        return None if n == 0 or k > 2 * rate * n else k

    def delete_sentences(self, text: str) -> str | None:
        paras = split_units(text, clauses=self.kind == "short")
        slots = [(i, j) for i, p in enumerate(paras) for j in range(len(p))]
        k = self._sentence_count(len(slots))
        if k is None or k >= len(slots):
            return None
        for i, j in sorted(self.rng.sample(slots, k), reverse=True):
            del paras[i][j]
        return join_units(paras)

    def insert_sentences(self, text: str) -> str | None:
        paras = split_units(text, clauses=self.kind == "short")
        if not paras:
            return None
        k = self._sentence_count(sum(len(p) for p in paras))
        if k is None:
            return None
        if self.kind == "short":
            pool = [c + "，" for c in COMMENTS]
        else:
            donors = [d for d in self.donors if d != text]
            if not donors:
                return None
            pool = [s for p in split_units(self.rng.choice(donors)) for s in p]
        for _ in range(k):
            p = self.rng.randrange(len(paras))
            paras[p].insert(self.rng.randint(0, len(paras[p])), self.rng.choice(pool))
        return join_units(paras)

    def reorder_paragraphs(self, text: str) -> str | None:
        paras = text.split("\n")
        if len(paras) < 2:
            return None
        before = list(paras)
        how = self.strength.reorder
        while paras == before:
            if how == "swap":
                i = self.rng.randrange(len(paras) - 1)
                paras[i], paras[i + 1] = paras[i + 1], paras[i]
            elif how == "move":
                paras.insert(
                    self.rng.randrange(len(paras)), paras.pop(self.rng.randrange(len(paras)))
                )
            else:
                self.rng.shuffle(paras)
            if len(set(paras)) == 1:
                return None
        return "\n".join(paras)

    def truncate(self, text: str) -> str | None:
        lo, hi = self.strength.truncate_keep
        cut = round(len(text) * self.rng.uniform(lo, hi))
        if cut < 4 or cut >= len(text):
            return None
        tail = "…" if self.kind == "short" else self.rng.choice(("……", "（未完）", "\n阅读全文"))
        return text[:cut].rstrip() + tail

    def homophones(self, text: str) -> str | None:
        where = [i for i, c in enumerate(text) if c in CONFUSABLE]
        if not where:
            return None
        n_cjk = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
        k = min(len(where), max(1, round(self.strength.substitution_rate * n_cjk)))
        chars = list(text)
        for i in self.rng.sample(where, k):
            chars[i] = self.rng.choice(CONFUSABLE[chars[i]])
        return "".join(chars)

    def punctuation_noise(self, text: str) -> str | None:
        where = [i for i, c in enumerate(text) if c in _PUNCT]
        if not where:
            return None
        k = max(1, round(self.strength.noise_rate * len(where)))
        chars = list(text)
        for i in self.rng.sample(where, min(k, len(where))):
            chars[i] = self.rng.choice(("", " ", chars[i] * 2, " " + chars[i] + " ", "~"))
        return "".join(chars)

    def width(self, text: str) -> str | None:
        out = "".join(_FULLWIDTH_ASCII.get(c, _HALFWIDTH_PUNCT.get(c, c)) for c in text)
        return out if out != text else None

    def traditional(self, text: str) -> str | None:
        span = max(1, round(self.strength.traditional_share * len(text)))
        start = self.rng.randint(0, len(text) - span)
        part = "".join(TRADITIONAL.get(c, c) for c in text[start : start + span])
        out = text[:start] + part + text[start + span :]
        return out if out != text else None


LONG_EDITS = ("header", "footer", "ad", "delete_sentences", "insert_sentences", "reorder_paragraphs",
              "truncate", "homophones", "punctuation_noise", "width", "traditional")  # fmt: skip
SHORT_EDITS = ("repost", "mention", "hashtag", "emoji", "url", "delete_sentences",
               "insert_sentences", "truncate", "homophones", "punctuation_noise", "width",
               "traditional")  # fmt: skip
EDITS = {"long": LONG_EDITS, "short": SHORT_EDITS}
# the boilerplate a negative group shares: drawn from these edits, with fixed random choices
KIT_PIECES = {
    "long": ("header", "footer", "ad"),
    "short": ("repost", "mention", "hashtag", "emoji", "url"),
}


# The order edits happen in when a text is reposted: its content is edited first, then wrapped
# (a header or repost prefix is not truncated away with the text), then surface noise is added.
STAGES = {
    **dict.fromkeys(("delete_sentences", "insert_sentences", "reorder_paragraphs", "truncate",
                     "homophones", "traditional"), 0),
    **dict.fromkeys(("header", "footer", "ad", "repost", "mention", "hashtag", "emoji", "url"), 1),
    **dict.fromkeys(("punctuation_noise", "width"), 2),
}  # fmt: skip


def make_copy(text: str, editor: Editor) -> tuple[str, list[str]]:
    """An edited copy of ``text`` and the names of the edits applied, in order (at least one).

    The edits are a random draw from the kind's list; they are applied stage by stage
    (:data:`STAGES`: content, then wrapping, then surface noise). An edit that does not apply to
    the text is replaced by the next one of the draw from the same or a later stage.
    """
    rng = editor.rng
    lo, hi = editor.strength.edits
    want = rng.randint(lo, hi)
    names = list(EDITS[editor.kind])
    rng.shuffle(names)
    chosen, reserve = names[:want], names[want:]
    chosen.sort(key=STAGES.__getitem__)
    applied: list[str] = []
    while chosen:
        name = chosen.pop(0)
        out = getattr(editor, name)(text)
        if out is not None and out != text:
            text, applied = out, [*applied, name]
        else:  # replace it by the next edit of the draw from this stage or a later one
            later = [r for r in reserve if STAGES[r] >= STAGES[name]]
            if later:
                reserve.remove(later[0])
                chosen.append(later[0])
                chosen.sort(key=STAGES.__getitem__)
    return text, applied


def boilerplate_kit(kind: str, rng: random.Random) -> tuple[tuple[str, ...], str, str]:
    """Boilerplate shared by one negative group: (piece names, prefix, suffix), drawn once.

    2-3 pieces of :data:`KIT_PIECES`; the text goes between prefix and suffix unchanged.
    """
    pieces = tuple(rng.sample(KIT_PIECES[kind], rng.randint(2, 3)))
    before: list[str] = []
    after: list[str] = []
    for name in pieces:
        if name == "header":
            before.append(
                _fill(rng.choice([h for h in HEADERS if "{lead}" not in h]), rng, "") + "\n"
            )
        elif name == "footer":
            after.append("\n" + _fill(rng.choice(FOOTERS), rng, ""))
        elif name == "ad":
            after.append("\n" + _fill(rng.choice(ADS), rng, ""))
        elif name == "repost":
            before.append(
                rng.choice(("转发微博 ", f"{rng.choice(COMMENTS)}//@{rng.choice(USERS)}:"))
            )
        elif name == "mention":
            (before if rng.random() < 0.5 else after).append(f" @{rng.choice(USERS)} ")
        elif name == "hashtag":
            before.append(f"#{rng.choice(TOPICS)}#")
        elif name == "emoji":
            after.append("".join(rng.choice(EMOJI) for _ in range(2)))
        else:  # url
            after.append(" " + _url(rng))
    return pieces, "".join(before), "".join(after)


# --- corpus -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One document of a generated corpus."""

    id: str
    text: str
    cluster: str
    role: str  # original | copy | singleton | negative
    source: str
    edits: tuple[str, ...] = ()
    boilerplate_group: str | None = None

    def to_dict(self) -> dict:
        return {**asdict(self), "edits": list(self.edits)}


@dataclass(frozen=True)
class Layout:
    """How sources are split into roles."""

    copies: tuple[int, int] = (1, 4)
    singleton_share: float = 0.2
    negative_share: float = 0.2
    negative_group: tuple[int, int] = (2, 5)

    def __post_init__(self) -> None:
        shares = (self.singleton_share, self.negative_share)
        if min(shares) < 0 or sum(shares) > 1:
            raise ValueError("singleton_share and negative_share must be >= 0 and sum to at most 1")
        if not 1 <= self.copies[0] <= self.copies[1]:
            raise ValueError(f"copies={self.copies}: need 1 <= low <= high")
        if not 2 <= self.negative_group[0] <= self.negative_group[1]:
            raise ValueError(f"negative_group={self.negative_group}: need 2 <= low <= high")


def build_corpus(
    sources: Sequence[tuple[str, str]],
    *,
    kind: str,
    strength: str,
    seed: int,
    layout: Layout | None = None,
    donors: Sequence[str] | None = None,
) -> list[Row]:
    """Gold-clustered corpus from ``(source_id, text)`` pairs (already free of duplicates).

    ``donors``: texts whose sentences long copies insert (default: the sources themselves). Give
    texts that are not in the corpus (:func:`load_sources_and_donors`), else a copy of one source
    shares the inserted sentences with another and is a partial duplicate of both.
    """
    if strength not in STRENGTHS:
        raise ValueError(f"strength={strength!r}: choose one of {', '.join(STRENGTHS)}")
    layout = layout or Layout()
    rng = random.Random(seed)
    order = list(range(len(sources)))
    rng.shuffle(order)
    n_single = round(layout.singleton_share * len(order))
    n_neg = round(layout.negative_share * len(order))
    if donors is None:
        donors = [t for _, t in sources]
    editor = Editor(rng, STRENGTHS[strength], kind=kind, donors=donors)
    rows: list[Row] = []
    for rank, pos in enumerate(order):
        sid, text = sources[pos]
        cluster = f"c{rank:06d}"
        if rank < n_single:
            rows.append(Row("", text, cluster, "singleton", sid))
        elif rank < n_single + n_neg:
            continue  # handled below in groups
        else:
            rows.append(Row("", text, cluster, "original", sid))
            for _ in range(rng.randint(*layout.copies)):
                copy, edits = make_copy(text, editor)
                rows.append(Row("", copy, cluster, "copy", sid, tuple(edits)))
    negatives = order[n_single : n_single + n_neg]
    rank = n_single
    group = 0
    while rank < n_single + n_neg:
        left = n_single + n_neg - rank
        size = min(rng.randint(*layout.negative_group), left)
        if left - size < layout.negative_group[0]:  # no group of one at the end
            size = left
        pieces, before, after = boilerplate_kit(kind, rng)
        for pos in negatives[rank - n_single : rank - n_single + size]:
            sid, text = sources[pos]
            wrapped = before + text + after
            rows.append(Row("", wrapped, f"c{rank:06d}", "negative", sid, pieces, f"b{group:05d}"))
            rank += 1
        group += 1
    rng.shuffle(rows)
    prefix = f"{kind}-{strength}-{seed}"
    return [replace(r, id=f"{prefix}-{i:06d}") for i, r in enumerate(rows)]


def sources_first(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with each original moved to the place of its cluster's first row, so that it
    comes before its copies — the order of a feed or a crawl, where a copy follows what it
    copies (:func:`build_corpus` shuffles originals and copies alike). The other rows keep
    their order; ids are kept."""
    first: dict[str, int] = {}
    for k, r in enumerate(rows):
        first.setdefault(r.cluster, k)

    def place(k: int) -> tuple[int, bool]:  # an original just before its cluster's first row
        original = rows[k].role == "original"
        return (first[rows[k].cluster] if original else k, not original)

    ranked = sorted(range(len(rows)), key=place)
    return [rows[k] for k in ranked]


# --- sources ----------------------------------------------------------------------------------


def default_data_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def _read(data_dir: Path, name: str) -> list[dict]:
    path = data_dir / name / "corpus.jsonl.gz"
    if not path.exists():
        raise FileNotFoundError(f"source data not found: {path} (pass --data-dir)")
    with gzip.open(path) as f:
        return [orjson.loads(line) for line in f]


LONG_MIN_CHARS = 200  # long sources: CCTV stories at least this long
SHORT_CHARS = (10, 140)  # short sources: length range, and at least 10 Chinese characters
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SOCIAL = re.compile(r"http|//@|@|#|转发微博|轉發微博|\[[^\]]{1,6}\]")


def source_pool(kind: str, data_dir: Path | None = None) -> list[tuple[str, str]]:
    """Candidate ``(id, text)`` sources of ``kind`` (see the module docstring for the filters)."""
    data_dir = data_dir or default_data_dir()
    if kind == "long":
        rows = _read(data_dir, "cctv_xwlb_news_zh")
        return [
            (r["id"], r["text"])
            for r in rows
            if r["kind"] == "story" and len(r["text"]) >= LONG_MIN_CHARS
        ]
    if kind != "short":
        raise ValueError(f"kind={kind!r}: choose one of {', '.join(KINDS)}")

    def ok(text: str) -> bool:
        lo, hi = SHORT_CHARS
        return lo <= len(text) <= hi and len(_CJK.findall(text)) >= 10 and not _SOCIAL.search(text)

    weibo = [(r["id"], r["text"]) for r in _read(data_dir, "weibo_ced_zh") if ok(r["text"])]
    titles = [(r["id"], r["text"]) for r in _read(data_dir, "toutiao_titles_zh") if ok(r["text"])]
    return weibo + titles


def drop_duplicates(texts: Sequence[str]) -> list[int]:
    """Positions to keep: the first of each identical normalised text, then the first of each
    neardup ``simhash`` cluster (default ``max_distance=3``)."""
    from neardup.dedup import dedup_texts
    from neardup.normalize import normalize_many

    seen: set[str] = set()
    first = []
    for i, t in enumerate(normalize_many(list(texts))):
        if t not in seen:
            seen.add(t)
            first.append(i)
    result = dedup_texts([texts[i] for i in first], method="simhash")
    keep = result.clusters.representative == range(len(first))
    return [first[i] for i in keep.nonzero()[0].tolist()]


def load_sources(
    kind: str, n: int, *, seed: int, data_dir: Path | None = None
) -> list[tuple[str, str]]:
    """``n`` deduplicated sources of ``kind``, sampled with ``seed`` (short: half Weibo, half Toutiao)."""
    pool = source_pool(kind, data_dir)
    rng = random.Random(f"sources-{seed}")
    if kind == "short":
        weibo = [s for s in pool if not s[0].startswith("toutiao")]
        titles = [s for s in pool if s[0].startswith("toutiao")]
        rng.shuffle(weibo)
        rng.shuffle(titles)
        candidates = [s for pair in zip(weibo, titles, strict=False) for s in pair]
    else:
        candidates = list(pool)
        rng.shuffle(candidates)
    candidates = candidates[: round(n * 1.5) + 100]
    kept = [candidates[i] for i in drop_duplicates([t for _, t in candidates])]
    if len(kept) < n:
        raise ValueError(f"only {len(kept)} distinct {kind} sources available, asked for {n}")
    return kept[:n]


DONOR_SHARE = 0.25  # long kind: extra stories, kept out of the corpus, that lend inserted sentences


def load_sources_and_donors(
    kind: str, n: int, *, seed: int, data_dir: Path | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    """``n`` sources and, for ``long``, donor stories distinct from them (none for ``short``,
    whose insertions are repost comments). With too few stories for donors there are none, and
    sentence insertion does not apply (another edit is drawn instead)."""
    spare = max(1, round(n * DONOR_SHARE)) if kind == "long" else 0
    try:
        picked = load_sources(kind, n + spare, seed=seed, data_dir=data_dir)
    except ValueError:
        picked = load_sources(kind, n, seed=seed, data_dir=data_dir)
    return picked[:n], [t for _, t in picked[n:]]


def write_jsonl(rows: Sequence[Row], path: str | Path) -> None:
    with open(path, "wb") as f:
        for r in rows:
            f.write(orjson.dumps(r.to_dict()) + b"\n")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--strength", choices=tuple(STRENGTHS), required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-n", "--sources", type=int, default=2000, help="number of source texts")
    ap.add_argument("-o", "--output", required=True, help="JSONL file to write")
    ap.add_argument("--data-dir", type=Path, default=None, help="the shared data folder")
    args = ap.parse_args(argv)
    try:
        sources, donors = load_sources_and_donors(
            args.kind, args.sources, seed=args.seed, data_dir=args.data_dir
        )
    except (FileNotFoundError, ValueError) as exc:
        print(f"nearcopy: error: {exc}", file=sys.stderr)
        return 2
    rows = build_corpus(
        sources, kind=args.kind, strength=args.strength, seed=args.seed, donors=donors
    )
    write_jsonl(rows, args.output)
    roles = {
        r: sum(1 for x in rows if x.role == r)
        for r in ("original", "copy", "singleton", "negative")
    }
    print(f"wrote {len(rows)} rows to {args.output}: {roles}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
