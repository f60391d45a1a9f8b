"""What the retail customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`: a `str` is one sentence, a `tuple` alternatives picked at
random). Order ids, emails, names, zip codes, addresses, amounts and the catalogue's product
names and options go in as they are; in Chinese they stand between spaces, as people type
Latin text among Chinese characters (and as an agent's `\\b` patterns need)."""

from __future__ import annotations

from evals.engine.sandbox.phrases import BASE, EN, REQUEST_LIST, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    REQUEST_LIST,
    {
        EN: {
            "vague_opening": ("hi. problem with my stuff", "hello?? need help with an order thing"),
            "item": "{name} ({option})",
            "items_and": " and the ",
            "options_and": " and ",
            "where_items": "the order with the {items}",
            "where_order": "order {order_id}",
            "cancel": (
                "I'd like to cancel {where}.",
                "Please cancel {where}.",
                "I want to cancel {where}.",
            ),
            "return": (
                "I want to return the {items} from {where}.",
                "I'd like to return the {items} from {where}.",
            ),
            "exchange": (
                "I'd like to exchange the {items} from {where} for the {new} one.",
                "Can I exchange the {items} from {where}? I want the {new} one instead.",
            ),
            "exchange_gift_card": "Please pay any difference with my gift card.",
            "order_address": "Please change the shipping address of {where} to {address}.",
            "default_address": (
                "Please update my default address to {address}.",
                "I moved; my default address should be {address}.",
            ),
            "damaged": (
                "The {items} from {where} arrived damaged. I'd like a refund of ${amount}.",
                "My {items} from {where} came broken; please refund ${amount}.",
            ),
            "dispute": (
                "I was charged twice for {where} and I want to dispute the charge.",
                "There is a double charge on {where}; I dispute it.",
            ),
            "price_adjustment": (
                "The price of {where} dropped right after I bought it. I want a price adjustment."
            ),
            "status": "How much has been refunded on {where}?",
            "reason_mistake": ("I ordered it by mistake.", "It was ordered by mistake."),
            "reason_no_need": ("I no longer need it.", "It's no longer needed."),
            "refund_gift_card": (
                "Please put the refund on my gift card.",
                "Refund it to my gift card, please.",
            ),
            "refund_original": (
                "Refund it to my original payment method.",
                "The original payment method is fine.",
            ),
            "identity_incoherent": "zip {zip}... I don't remember my email. My name is {name}.",
            "name_zip": (
                "My name is {name} and my zip code is {zip}. I don't remember my email.",
                "I'm {name}, zip {zip}.",
            ),
            "forgot_email": "I don't remember my email. My name is {name} and my zip code is {zip}.",
            "name_and_zip": "My name is {name} and my zip code is {zip}.",
            "not_asked": "No, that's not what I want. {request}",
            "no_order_number": "I don't have the order number. It's the order with the {items}.",
            "its_order": "It's {order_id}.",
            "rather_not_say": "I'd just rather not say.",
            "my_gift_card": "My gift card.",
            "my_original_card": "My original card.",
            "the_items": "The {items}.",
            "dont_know": "I don't know.",
            "the_option": "The {new} one.",
            "the_address": "{address}.",
            "the_amount": "${amount}.",
            "unclear": (
                "Sorry, what do you need from me?",
                "I'm not sure what you're asking. What do you need from me?",
            ),
            "user_step": "I can't do that from my side. Can you do it for me?",
            "choose": "{option}, please.",
            "none_of_those": "None of those. {request}",
            "check_wrong": "No, that's not right. {identity}",
            "check_yes": ("Yes, that's right.", "Yes."),
            "id_unknown": (
                "I don't know my order numbers. Mine is the order with the {items}.",
                "I can't tell by the number, sorry. It's the order with the {items}.",
            ),
            "not_that_order": "No, not that one. Mine is the order with the {items}.",
            "correction": "No, that's not right: {fixes}",
            "fix_order": "It's order {order_id}.",
            "fix_order_unknown": "I don't know order numbers; mine is the order with the {items}.",
            "fix_items": "I mean the {items}.",
            "fix_gift_card": "Use my gift card, please.",
            "fix_option": "I want the {new} one.",
            "fix_address": "The address is {address}.",
            "fix_amount": "I asked for ${amount}.",
        },
        ZH: {
            "vague_opening": ("你好。我的东西出了点问题", "在吗？？订单的事需要帮忙"),
            "item": "{name}（{option}）",
            "items_and": " 和 ",
            "options_and": " 和 ",
            "where_items": "买了 {items} 的那个订单",
            "where_order": "订单 {order_id}",
            "cancel": ("我想取消{where}。", "请帮我取消{where}。", "我要取消{where}。"),
            "return": (
                "我想退货：{where} 里的 {items}。",
                "我想把{where} 里的 {items} 退货。",
            ),
            "exchange": (
                "我想换货：把{where} 里的 {items} 换成 {new} 的。",
                "{where} 里的 {items} 能换货吗？我想换成 {new} 的。",
            ),
            "exchange_gift_card": "差价请用我的礼品卡支付。",
            "order_address": "请把{where} 的收货地址改成 {address}。",
            "default_address": (
                "请把我的默认地址改成 {address}。",
                "我搬家了，默认地址应该是 {address}。",
            ),
            "damaged": (
                "{where} 里的 {items} 到货时损坏了。我想退款 ${amount}。",
                "我收到的 {items}（{where}）坏了，请退款 ${amount}。",
            ),
            "dispute": (
                "{where} 被重复扣款了，我要对这笔扣款提出争议。",
                "{where} 扣了两次款，我要申诉。",
            ),
            "price_adjustment": "{where} 我刚买完就降价了，我想申请价格调整。",
            "status": "{where} 现在退了多少钱？",
            "reason_mistake": ("是我下错单了。", "这个是误下单。"),
            "reason_no_need": ("我不再需要了。", "现在已经不需要了。"),
            "refund_gift_card": ("退款请退到我的礼品卡。", "麻烦退到我的礼品卡上。"),
            "refund_original": ("退回原支付方式就行。", "原支付方式就可以。"),
            "identity_incoherent": "邮编 {zip}……邮箱我记不得了。我叫 {name}。",
            "name_zip": (
                "我叫 {name}，邮编是 {zip}。我不记得我的邮箱了。",
                "我是 {name}，邮编 {zip}。",
            ),
            "forgot_email": "我不记得我的邮箱了。我叫 {name}，邮编是 {zip}。",
            "name_and_zip": "我叫 {name}，邮编是 {zip}。",
            "no_order_number": "我没有订单号。是买了 {items} 的那个订单。",
            "its_order": "是 {order_id}。",
            "rather_not_say": "这个我不太想说。",
            "my_gift_card": "用我的礼品卡。",
            "my_original_card": "用我原来的卡。",
            "the_items": "是 {items}。",
            "dont_know": "我不知道。",
            "the_option": "要 {new} 的。",
            "the_address": "{address}。",
            "the_amount": "${amount}。",
            "unclear": ("不好意思，你需要我提供什么？", "我不太明白你在问什么。你需要我提供什么？"),
            "user_step": "这个我这边做不了。你能帮我处理吗？",
            "choose": "{option}，谢谢。",
            "none_of_those": "都不是。{request}",
            "check_wrong": "不对。{identity}",
            "check_yes": ("对，没错。", "是的。"),
            "id_unknown": (
                "我不知道订单号。是买了 {items} 的那个订单。",
                "看订单号我认不出来，不好意思。是买了 {items} 的那个订单。",
            ),
            "not_that_order": "不是那个。是买了 {items} 的那个订单。",
            "correction": "不对：{fixes}",
            "fix_order": "是订单 {order_id}。",
            "fix_order_unknown": "我不知道订单号，是买了 {items} 的那个订单。",
            "fix_items": "我说的是 {items}。",
            "fix_gift_card": "请用我的礼品卡。",
            "fix_option": "我要 {new} 的。",
            "fix_address": "地址是 {address}。",
            "fix_amount": "我要的是 ${amount}。",
        },
    },
)
