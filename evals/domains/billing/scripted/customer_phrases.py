"""What the billing customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`: a `str` is one sentence, a `tuple` alternatives picked at
random). Emails, names, postcodes, dates, merchant descriptors, card digits and amounts go in as
they are; in Chinese they stand between spaces, as people type Latin text among Chinese
characters."""

from __future__ import annotations

from evals.engine.sandbox.phrases import BASE, EN, REQUEST_LIST, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    REQUEST_LIST,
    {
        EN: {
            "vague_opening": ("hi. there's a charge on my card", "hello?? problem with a payment"),
            "charge": (
                "On {date} I was charged {money} by {merchant} on my card ending {last4}.",
                "There's a charge of {money} from {merchant} on {date}, card ending {last4}.",
            ),
            "why_main": "One item of the order never arrived.",
            "why_second": "The ride was cancelled but I was charged anyway.",
            "why_partly": "I returned everything but the shop refunded only part of it.",
            "why_big": "The travel agency cancelled the trip.",
            "why_full": "The hotel booking was cancelled.",
            "why_old": "I had cancelled that membership.",
            "why_pending": "The meal boxes were never delivered.",
            "why_chargeback": "The laptop was faulty.",
            "why_partner": "It's for a ticket that was never issued.",
            "ask_refund": (" Please refund {refund} of it.", " I'd like {refund} back."),
            "ask_refund_all": (
                " Please refund all of it, {refund}.",
                " I want the full {refund} back.",
            ),
            "partner": " The card is my partner's; I'm asking on their behalf.",
            "earlier": " I already asked for this refund last week and nothing has happened.",
            "bank": " I've also opened a dispute with my bank about it.",
            "fraud": (
                "On {date} there's a charge of {money} from {merchant} on my card ending "
                "{last4} that I don't recognise. I think someone used my card.",
                "I don't recognise a charge of {money} from {merchant} on {date}, card ending "
                "{last4}. Was my card stolen?",
            ),
            "repeat": (
                "About the {merchant} charge of {money} on {date}: please submit its refund "
                "of {refund} again, to be safe.",
                "The {merchant} charge of {money}: can you file its refund of {refund} once "
                "more, to be safe?",
            ),
            "email_change": (
                "Please change the email address on my account to {email}.",
                "I'd like to change my email to {email}.",
            ),
            "the_email": "It's {email}.",
            "name_postcode": (
                "My name is {first} {last} and my postcode is {postcode}.",
                "I'm {first} {last}, postcode {postcode}.",
            ),
            "name_postcode_incoherent": "postcode {postcode}... {first} {last}",
            "the_amount": "{refund}, please.",
        },
        ZH: {
            "vague_opening": ("你好。我卡上有一笔扣款", "在吗？？付款有问题"),
            "charge": (
                "{date} 我尾号 {last4} 的卡被 {merchant} 扣了 {money}。",
                "{date} 有一笔 {merchant} 的扣款 {money}，卡号尾号 {last4}。",
            ),
            "why_main": "订单里有一件商品一直没到。",
            "why_second": "行程取消了，可还是扣了钱。",
            "why_partly": "我把东西全退了，商家只退了一部分钱。",
            "why_big": "旅行社取消了这趟旅行。",
            "why_full": "酒店预订取消了。",
            "why_old": "那个会员我早就取消了。",
            "why_pending": "餐盒一直没送到。",
            "why_chargeback": "笔记本电脑是坏的。",
            "why_partner": "这是一张一直没出票的票。",
            "ask_refund": ("请退还其中的 {refund}。", "我想要回 {refund}。"),
            "ask_refund_all": ("请全部退还，{refund}。", "我要全额退回 {refund}。"),
            "partner": "这张卡是我伴侣的，我替他来申请。",
            "earlier": "这笔退款我上周已经申请过了，到现在还没动静。",
            "bank": "我也已经向银行提出了争议。",
            "fraud": (
                "{date} 我尾号 {last4} 的卡上有一笔 {merchant} 的扣款 {money}，我不认识。我觉得我的卡被盗用了。",
                "我不认识 {date} 这笔 {merchant} 的扣款 {money}，卡号尾号 {last4}。是不是被盗刷了？",
            ),
            "repeat": (
                "为了保险起见：{date} 那笔 {merchant} 的扣款 {money}，请把 {refund} 的退款再提交一次。",
                "{merchant} 那笔 {money} 的扣款，{refund} 的退款能再申请一次吗？保险一点。",
            ),
            "email_change": (
                "请把我账户的邮箱改为 {email}。",
                "我想修改我的邮箱，新邮箱是 {email}。",
            ),
            "the_email": "是 {email}。",
            "name_postcode": (
                "我叫 {first} {last}，邮编是 {postcode}。",
                "我是 {first} {last}，邮编 {postcode}。",
            ),
            "name_postcode_incoherent": "邮编 {postcode}……{first} {last}",
            "the_amount": "{refund}。",
        },
    },
)
