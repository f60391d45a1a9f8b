"""What a scripted customer says, in each language it writes (`Persona.language`).

A phrase is one sentence (a `str`, said as it is) or alternatives (a `tuple`, one picked with
the customer's seeded random generator, so trials of one task differ). Templates take named
values (`{right}`, `{request}`...) that the customer fills in with what it knows; ids, emails,
names and amounts go in as they are, whatever the language.

`BASE` holds what every customer says the same way whatever its domain (persona styling,
walking away, identity worries, corrections, a plain yes); a domain adds its own keys with
`phrasebook(BASE, {...})`. Every language holds the same keys, and every alternative of a key
takes the same values (a test holds every phrasebook to this).

English and Chinese join sentences differently: `join` puts a space between English sentences
and none between Chinese ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from evals.engine.persona import Language

Phrase = str | tuple[str, ...]
Phrasebook = Mapping[Language, Mapping[str, Phrase]]

EN, ZH = Language.EN, Language.ZH_HANS

BASE: Phrasebook = {
    EN: {
        "emotion:anger": (
            "This is ridiculous.",
            "I'm really angry about this.",
            "Honestly, this is unacceptable.",
        ),
        "emotion:frustration": ("Ugh.", "This is so frustrating.", "Come on."),
        "emotion:anxiety": (
            "I'm really worried about this.",
            "Sorry, I'm a bit stressed.",
            "I'm nervous about my money.",
        ),
        "emotion:sadness": ("It's been a rough week.", "I'm a bit down about this.", "Sigh."),
        "emotion:distrust": (
            "I hope you'll actually fix this.",
            "Last time nobody helped me.",
            "I'm skeptical of this process.",
        ),
        # Walking away when patience runs out, and when asked the same thing once too often.
        "walk_away": (
            "Forget it, I'll go somewhere else.",
            "This is taking too long. Bye.",
            "I don't have time for this. Goodbye.",
        ),
        "fed_up": "You already asked me that. I'm done.",
        "reassurance": (
            "Are you sure this will work? I really need my money back.",
            "Sorry, just to be sure: this will definitely be sorted, right?",
            "Will this really go through? I'm worried.",
        ),
        "urgent": "I need this done quickly.",
        "polite_thanks": "Thank you!",
        "why_identity": ("Why do you need my personal details?", "Why do you need that?"),
        "my_mistake": "Sorry, my mistake: it's {right}, not {wrong}.",
        "transfer_thanks": "Okay, thank you.",
        "blurt": "{request} oh and {text}",
        "vague_opening": ("hi. I have a problem", "hello?? need help"),
        "then": " Then ",
        "also": " Also, ",
        "affirm": (
            "Yes, please go ahead.",
            "Yes.",
            "Yep, that's right.",
            "Confirm.",
            "Sure, do it.",
            "Okay, go ahead.",
            "Yes please.",
        ),
        # The persona's own moves (sandbox/user.py, docs/golive.md "Persona mechanisms"):
        # one sentence each, so a move draws no random number.
        "move:read_back": "Can you read me back exactly what you changed?",
        "move:read_back_again": "That doesn't tell me what you changed. Please read me back "
        "exactly what you changed, with the numbers.",
        "move:unverified": "You can't even tell me what you changed. I'm done.",
        "move:why_not": "Why not?",
        "move:no_reason": "You won't even tell me why. Goodbye.",
        "move:push_back": "That's not acceptable. Can't you make an exception?",
        "move:brushed_off": "You're not even listening to me. Forget it.",
        "move:worry_again": "You didn't answer me. Will this really work?",
        "move:worried_off": "I still don't know if this will work. I'll try somewhere else.",
    },
    ZH: {
        "emotion:anger": ("这太离谱了。", "我真的很生气。", "说实话，这让人没法接受。"),
        "emotion:frustration": ("唉。", "真让人心烦。", "拜托。"),
        "emotion:anxiety": ("我真的很担心。", "不好意思，我有点紧张。", "我很担心我的钱。"),
        "emotion:sadness": ("这周过得很糟。", "这事让我有点难过。", "唉，算了。"),
        "emotion:distrust": (
            "希望你们这次真能解决。",
            "上次根本没人帮我。",
            "我对这个流程不太放心。",
        ),
        "walk_away": (
            "算了，我去别家吧。",
            "太慢了，再见。",
            "我没时间耗在这上面，再见。",
        ),
        "fed_up": "这个你已经问过我了，我不弄了。",
        "reassurance": (
            "你确定这样能行吗？我真的需要拿回我的钱。",
            "不好意思，我再确认一下：这肯定能处理好，对吧？",
            "这真的能办成吗？我很担心。",
        ),
        "urgent": "我急着要处理好。",
        "polite_thanks": "谢谢！",
        "why_identity": ("为什么需要我的个人信息？", "为什么要这个？"),
        "my_mistake": "不好意思，我说错了：是 {right}，不是 {wrong}。",
        "transfer_thanks": "好的，谢谢。",
        "blurt": "{request}哦对了，{text}",
        "vague_opening": ("你好。我遇到个问题", "在吗？？需要帮忙"),
        "then": "然后，",
        "also": "另外，",
        "affirm": ("是的，请继续。", "确认。", "好的，可以。"),
        "move:read_back": "你能把具体改了什么给我复述一遍吗？",
        "move:read_back_again": "这没说清楚。请把具体改了什么复述给我，包括编号和金额。",
        "move:unverified": "你连改了什么都说不清楚。算了。",
        "move:why_not": "为什么不行？",
        "move:no_reason": "连原因都不说。再见。",
        "move:push_back": "这不能接受。你们就不能破例一次吗？",
        "move:brushed_off": "你根本没在听我说话。算了。",
        "move:worry_again": "你没回答我的问题。这样真的能行吗？",
        "move:worried_off": "我还是不知道这样行不行。我去别处问问吧。",
    },
}

# What a customer with a list of requests says the same way in most domains
# (sandbox/request_user.py): its email, its yes (hesitant, hurried, with the next request), its
# no to a proposal that is not what it asked, taking in a refusal, and going on or saying
# goodbye. A domain that words one otherwise sets its own.
REQUEST_LIST: Phrasebook = {
    EN: {
        "email": ("My email is {email}.", "It's {email}."),
        "forgot_email": "I don't remember which email I used. ",
        "yes_wait": "yes... wait, yes. that's right",
        "yes_hurry": "Yes, but hurry up, please.",
        "yes_also": "{yes} Also, {request}",
        "not_asked": "No, that's not what I asked for. {request}",
        "not_right": "No, that's not right. {request}",
        "said_yes": "But I said yes. {request}",
        "why_not": ("Why not?", "Can you tell me why?"),
        "check_yes": "Yes, that's right.",
        "unsure": (
            "Sorry, what do you need from me?",
            "Sorry, I don't follow. What do you need from me?",
            "I'm not sure what you're asking me.",
        ),
        "goodbye": (
            "No, that's all. Thanks!",
            "That's everything, thank you.",
            "Nothing else, bye.",
        ),
        "not_finished": "You haven't finished my other request. {request}",
    },
    ZH: {
        "email": ("我的邮箱是 {email}。", "邮箱是 {email}。"),
        "forgot_email": "我不记得用的是哪个邮箱了。",
        "yes_wait": "是的……等一下，是的，没错",
        "yes_hurry": "可以，但请快一点。",
        "yes_also": "{yes}另外，{request}",
        "not_asked": "不对，我要的不是这个。{request}",
        "not_right": "不对。{request}",
        "said_yes": "可我已经说了可以。{request}",
        "why_not": ("为什么不行？", "能告诉我为什么吗？"),
        "check_yes": "对，没错。",
        "unsure": (
            "不好意思，你需要我提供什么？",
            "不好意思，我没听懂。你需要我提供什么？",
            "我不太明白你在问我什么。",
        ),
        "goodbye": ("没有了，就这些。谢谢！", "就这些了，谢谢。", "没别的了，再见。"),
        "not_finished": "我另一件事你还没处理完。{request}",
    },
}


def phrasebook(*books: Phrasebook) -> dict[Language, dict[str, Phrase]]:
    """The books merged, later keys over earlier ones, language by language."""
    out: dict[Language, dict[str, Phrase]] = {}
    for book in books:
        for language, phrases in book.items():
            out.setdefault(language, {}).update(phrases)
    return out


def join(language: Language, *sentences: str) -> str:
    """Sentences one after the other, as this language writes them: English with a space
    between them, Chinese without one — except after Latin text (an id, an email), which a
    Chinese writer keeps apart from the characters that follow with a space."""
    parts = [s for s in sentences if s]
    if language is not Language.ZH_HANS:
        return " ".join(parts)
    out = ""
    for part in parts:
        out += " " + part if out and out[-1].isascii() and out[-1].isalnum() else part
    return out
