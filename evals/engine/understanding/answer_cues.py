"""The cue lexicons of `answers`: which words in a clause of a customer's answer affirm,
negate, ask, change the action, complain or hesitate — English and Simplified Chinese.

Order matters: `answers` reads the multi-word phrases whose single words would mislead first
("no problem" is a yes, "I don't have all day" is impatience, "为什么要确认" is a question,
"没问题" is a yes) and blanks them, then the single cues. Every English word of four letters
or more in these patterns is also what the typo repair (`answers.repair_typos`) restores.
"""

from __future__ import annotations

import re


def _en(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


def _zh(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives))


# -- phrases read as a whole, before single words -------------------------------------------

# A yes said with impatience or reluctance ("I said yes", "I guess so").
GRUDGING_YES = [
    _en(
        r"i (?:already |just )?said (?:yes|ok(?:ay)?|go ahead|sure)|i guess so|i suppose so",
        r"if you (?:must|have to)|if that'?s what it takes",
    ),
    _zh(r"我(?:都|已经)?说(?:过)?了?(?:可以|好的?|是的?|确认)|只好这样|只能这样"),
    # A yes said twice over ("yeah yeah, go ahead").
    re.compile(r"\b(yes|yeah|yep|ok|okay|sure|fine|alright)\b[\s,!.]+\1\b", re.IGNORECASE),
]
# Asking for a moment: not an answer yet.
HOLD = [
    _en(
        r"(?:can you |could you )?give me a (?:minute|moment|sec(?:ond)?)|one moment",
        r"(?:(?:can|could) we )?(?:talk|do this|continue|do it) later|maybe later|later",
        r"hold that thought",
    ),
    _zh(r"(?:给我|等我)一(?:分钟|会儿|下)|再看看|看看再说|再说吧|以后再说"),
]
# Complaint, urgency or worry in phrases that contain a negation or a question word.
HEDGE_PHRASES = [
    _en(
        r"(?:i )?(?:don'?t|do not) have all day|(?:i )?haven'?t got all day",
        r"don'?t (?:make me |keep me )?wait(?:ing)?|(?:want|get) (?:this|it) over with",
        r"don'?t make me (?:repeat|say|ask|explain|wait|call)[^,.;!?]*",
        r"don'?t take (?:forever|all day|long|too long|ages)",
        r"don'?t (?:mess|screw) (?:it|this|that) up",
        r"don'?t (?:let me down|forget|get it wrong|make (?:a|any) mistakes?)",
        r"(?:i )?can'?t wait(?: any ?more| much longer)?|(?:i )?can'?t believe|not again",
        r"not (?:very )?(?:happy|impressed|pleased)|no time|no offen[cs]e",
        r"what(?:'?s| is) taking so long",
        r"why (?:is|does) (?:this|it|everything) (?:taking|take) so long",
        r"why is (?:this|it) so (?:slow|hard|complicated)",
        r"(?:can|could|will|would) you (?:please |just )*(?:hurry(?: up)?|be quick(?:er)?|speed (?:it|this|things) up|make it (?:quick|fast)|go faster)",
        r"(?:are we|is it) done yet|stop (?:asking|wasting my time)",
        r"(?:enough|no more) questions|as long as (?:it|this|that) (?:works|gets done|is done)",
        r"(?:it|this|that|you) (?:had )?better (?:not )?(?:work|be|take|get|fail|mess|screw)[^,.;!?]*",
        r"(?:it'?s )?about time|how many times (?:do|must|should|did) i (?:have to )?(?:say|tell|repeat)[^,.;!?]*\??",
        r"(?:worried|afraid|scared|concerned|nervous|anxious|fear|hope)\b[^,.;!?]*",
        r"if (?:it|this|that) (?:fails|doesn'?t work|goes wrong)",
        r"make it (?:quick|fast|snappy|speedy|snappy)|(?:just )?to be sure|make sure",
        r"just in case|right (?:now|away)|(?:last|this) time|actually (?:fix|work|do|help)",
        r"i doubt",
    ),
    _zh(
        r"别磨蹭|(?:别|不要)再?拖了?|(?:别|不要)让我(?:再)?等",
        r"(?:别|不要)(?:再|又)?(?:搞错|出错|弄错|搞砸|出问题)|(?:别|不要)太(?:久|慢)",
        r"(?:别|不要)(?:再|又)|等不及|来不及|受不了|不耐烦|不放心|不满意|没时间",
        r"怎么(?:这么|那么)(?:慢|久|麻烦)|能不能快|(?:能|可以)快(?:一)?点吗|快(?:一)?点好吗",
        r"最好|真是的",
    ),
]
# Phrases that contain a negation but mean yes.
AFFIRM_PHRASES = [
    _en(
        r"no problem|not a problem|(?:that|this|it)(?:'s| is) (?:not a|no) problem|no worries",
        r"why not|i don'?t see why not|(?:i )?don'?t mind|(?:i have )?no objections?|of course",
        r"no doubt|will do|please do",
    ),
    _zh(r"没问题|没错|不错|没意见|不介意|当然可以|那当然"),
]
# A polite request to go ahead, phrased as a question: a yes, not a question back.
REQUEST_TO_PROCEED = re.compile(
    r"^(?:(?:can|could|would|will) (?:you|we)|let'?s)\s+(?:please\s+|just\s+|now\s+)*"
    r"(?:go ahead|proceed|do it|do that|get (?:it|this) done|process it|submit it|confirm it|"
    r"finish it|go on|continue)\b",
    re.IGNORECASE,
)

# -- questions ------------------------------------------------------------------------------

QUESTION_START_EN = re.compile(
    r"^(?:why|how|what|when|where|which|who|whose|is|are|was|were|will|would|can|could|"
    r"should|shall|may|might|must|does|did|do (?:i|you|we|they)|have you|has it|isn'?t|"
    r"aren'?t|won'?t|wouldn'?t|doesn'?t|didn'?t|you sure)\b",
    re.IGNORECASE,
)
QUESTION_ZH = _zh(
    r"为什么|为啥|干嘛|怎么|什么|多久|多少|哪|是不是|会不会|能不能|有没有|对不对|行不行|好不好",
    r"可不可以|要不要|是否|难道|吗|呢\s*$",
)

# -- single cues, after the phrases above are blanked ---------------------------------------

CHANGE = [
    _en(
        r"instead|rather(?! not)|prefer(?! not)|make (?:it|that|this|them)",
        r"change (?:it|that|this|them)|(?:switch|swap) (?:it|that|this|them|to)",
        r"put (?:it|that|this) (?:on|to|in|into)|send (?:it|that|this|the refund|the money) to",
        r"only (?:the|one|half|part|for|\d)|only \$|except|without|i meant",
        r"i said (?!(?:yes|ok|okay|go ahead|sure|no|not)\b)\w+|(?:it )?should (?:be|go)",
        r"supposed to (?:be|go)|(?:a bit|a little|much) (?:more|less|lower|higher)",
        r"actually,? (?:make|change|send|put|switch|use|i want|i'?d like|i need|it'?s|it should)",
    ),
    _zh(
        r"改成|改为|改到|改一下|改用|换成|换到|换为|换一个|换个|而是|只要|只退|只取消|只换",
        r"只做|不如|宁愿|宁可|还是(?=改|换|用|退|要)|应该是|应该退|我说的是|我要的是",
        r"我的意思是|除了|去掉|不含",
    ),
]
# Words that ask for something else in a statement, but not in a question ("is there a
# different option?" asks; "a different amount, please" changes).
CHANGE_OUTSIDE_QUESTIONS = [
    _en(
        r"different",
        r"another (?:one|amount|item|card|address|size|colou?r|plan|option|date|time|order)",
    ),
    _zh(r"另一个|别的|其他的"),
]
# After a no, a clause that names what instead ("no, the blue one", "不是这个，是那个").
CORRECTION_AFTER_NO = re.compile(
    r"^(?:the|a|an|my|to my|to the|on my|for my|for the|only)\s+\w"
    r"|^(?:i want|i'?d like|i need|i asked for) (?:the|a|an|it|them|my|to my|on my)\b"
    r"|^(?:是(?![的啊呀吧])|要|用|退到|退|换)[\u4e00-\u9fff\w]",
    re.IGNORECASE,
)
# A change that refers back to the proposal even in a clause that starts a separate request
# ("Yes. Also, make it $20.").
CHANGE_IN_ASIDE = [
    _en(
        r"make (?:it|that|this)|change (?:it|that|this)|(?:switch|swap) (?:it|that|this)",
        r"instead of (?:it|that|this)",
    ),
    _zh(r"(?:把)?(?:它|这个|那个|金额|退款)(?:改成|换成|改为)"),
]
# Words that carry no request and no stance.
NEUTRAL = [
    _en(
        r"no longer|don'?t worry|not to worry|thank(?:s| you| u)?|thx|cheers|please|pls|plz",
        r"sorry|(?:i )?appreciate (?:it|that)|hm+|um+|uh+|er+m*|oh|well|honestly",
    ),
    _zh(
        r"不客气|不用谢|不好意思|对不起|谢谢|多谢|感谢|麻烦|辛苦了|请|快递|银行|行李|好像|还好",
        r"好多|还是|就是|要是|总是|只是|于是|对于|针对|对方",
    ),
]
UNSURE = [
    _en(
        r"(?:i'?m |i am )?not (?:sure|certain|convinced)|unsure|(?:i )?(?:don'?t|do not) know",
        r"dunno|no idea|maybe|perhaps|possibly|let me think|i (?:need|have) to think",
        r"i'?ll think about it|i'?m torn",
    ),
    _zh(
        r"不知道|不清楚|不确定|说不好|不好说|让我想想|我想想|想一想|考虑一下|再考虑|也许",
        r"可能吧|或许|看情况",
    ),
]
# A pause: a no if nothing follows it, overruled by a later yes or question
# ("yes... wait, yes" / "wait, how much is the fee?").
PAUSE = [
    _en(r"wait(?: a (?:sec(?:ond)?|minute|moment))?|hold on|hang on|one sec(?:ond)?"),
    _zh(r"等等|等一下|等下|稍等|先等"),
]
NEGATION = [
    _en(
        r"no|nope|nah|naw|not|never|don'?t|dont|do not|doesn'?t|does not|won'?t|will not",
        r"can'?t|cannot|shouldn'?t|isn'?t|aren'?t|didn'?t|stop|hold off|cancel that",
        r"scratch that|forget (?:it|that|about it)|never ?mind|(?:i'?ve )?changed my mind",
        r"leave it(?: as it is)?|negative|wrong|incorrect",
    ),
    _zh(
        r"不要|不用|不必|不需要|不行|不对|不是|不可以|不能|不同意|不想|不确认|别|没有|算了",
        r"改主意|停|错了|不|没",
    ),
]
AFFIRM = [
    _en(
        r"yes+|yeah|yea|yeh|yah|yep|yup|sure(?: thing)?|for sure|ok|okay|okey|okie|oki|alright",
        r"all right|uh-huh|mhm|mm-hmm|(?:i )?confirm(?:ed)?|go ahead|go for it|proceed",
        r"continue|(?:just )?do (?:it|that)|get it done",
        r"sounds (?:good|right|great|fine|ok(?:ay)?)|looks (?:good|right|fine)|that works",
        r"works for me|fine (?:by|with) me|absolutely|affirmative|definitely|certainly|agreed",
        r"(?:i )?agree|let'?s (?:do it|go)|by all means|(?:i )?accept(?:ed)?|(?:i )?approve",
    ),
    # Words that say yes only as the answer itself or its predicate ("Right." / "that's
    # right"), not inside a request ("the right size", "a good price").
    re.compile(
        r"(?:^\s*|\b(?:that'?s|that is|it'?s|it is|is|all|you'?re|you are|very|so|it'?s a)\s+)"
        r"(?:right|correct|good|great|fine|perfect|exactly|precisely|indeed|true|deal|k+|ya)\b",
        re.IGNORECASE,
    ),
    _zh(
        r"是的|是啊|是呀|对的|对啊|没错|确认|确定|好的|好啊|好呀|好嘞|好吧|很好|太好了|挺好",
        r"都可以|也可以|可以的|行吧|同意|继续|办理|办吧|就这样|就这么办|照办|进行|提交|当然",
        r"绝对|嗯+|恩",
    ),
    # Single characters that say yes only at the head of the clause ("是" but not "这是…").
    _zh(r"^\s*(?:那就|那|嗯|哦|噢|啊)?\s*(?:是|对|好|行|成|可以)"),
]
HEDGE = [
    _en(
        r"hurry(?: up)?|quick|quickly|quicker|fast|faster|asap|immediately|now|already|finally",
        r"at last|soon|sooner|hope|hopefully|worry|worried|worrying|nervous|anxious",
        r"stress|stressed|stressful|scared|afraid|concerned|uneasy|ridiculous|unacceptable",
        r"absurd|frustrating|frustrated|frustration|annoying|annoyed|irritating|irritated",
        r"angry|mad|furious|upset|ugh+|argh+|sigh|jeez|geez|gosh|seriously|come on|rough",
        r"down about|skeptical|sceptical|doubt|doubts|doubtful|suspicious|nobody",
        r"need (?:this|it) (?:done|sorted|fixed)|(?:taking|takes|took) (?:so|too) long",
        r"too long|so long|slow|slowly|waste|wasted|wasting|whatever|fed up|sick of|tired of",
        r"terrible|awful|horrible|useless|disappointed|disappointing|pathetic|unbelievable",
        r"i guess|i suppose|fingers crossed|careful|carefully|properly|correctly|waiting",
        r"waited|forever|enough|again",
    ),
    _zh(
        r"快点|快一点|快些|赶紧|赶快|尽快|抓紧|马上|立刻|立即|现在就|快|急|希望|但愿|担心|害怕",
        r"紧张|焦虑|不安|烦|气死|生气|太慢|好慢|真慢|慢|太久|好久|等了|浪费|唉|哎|服了|无语",
        r"失望|离谱|靠谱|这次|上次",
    ),
]

# Every lexicon with words, for the typo repair.
LEXICONS = [
    *GRUDGING_YES,
    *HEDGE_PHRASES,
    *AFFIRM_PHRASES,
    *HOLD,
    REQUEST_TO_PROCEED,
    QUESTION_START_EN,
    *CHANGE,
    *CHANGE_OUTSIDE_QUESTIONS,
    *NEUTRAL,
    *UNSURE,
    *PAUSE,
    *NEGATION,
    *AFFIRM,
    *HEDGE,
]

# -- clause structure -----------------------------------------------------------------------

# A clause that starts a separate request: the answer ends where it begins.
ASIDE = re.compile(
    r"^(?:(?:oh,?|and|oh and)\s+)?(?:also|plus|another thing|one more thing|by the way|btw|"
    r"separately|besides|in addition|additionally|on another note)\b"
    r"|^(?:另外|还有|顺便|对了|此外|另一件事|再就是)",
    re.IGNORECASE,
)
# A clause that qualifies what came before ("yes, but ...").
CONTRAST = re.compile(r"^(?:but|however|though|although|yet)\b|^(?:但是|不过|可是|但)", re.I)
# Words that carry no content of their own.
_FILLER_WORDS = (
    "a an the it its it's that that's this those these i i'm im i'd i'll me my mine you your "
    "you're we us our so then just and or also too very really quite bit up to of for with on "
    "in at about do does did done will would can could have has had get got let lets let's is "
    "are was were be been am as if all any some one ones now here there what"
)
FILLER = frozenset(_FILLER_WORDS.split())
ZH_PARTICLES = frozenset("吧呢啊呀嘛了的哦哈嗯我你他她它们这那就也都还再")
