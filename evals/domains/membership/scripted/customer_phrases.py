"""What the membership customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`: a `str` is one sentence, a `tuple` alternatives picked at
random). Member numbers, emails, dates of birth, plan names and amounts go in as they are; in
Chinese they stand between spaces, as people type Latin text among Chinese characters. An
invoice month is a name in English ("June") and a number in Chinese ("6 月")."""

from __future__ import annotations

from evals.engine.sandbox.phrases import BASE, EN, REQUEST_LIST, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    REQUEST_LIST,
    {
        EN: {
            "vague_opening": (
                "hi. problem with my membership",
                "hello?? need help with the gym thing",
            ),
            "month": "{n} month",
            "months": "{n} months",
            "period": "{name}",
            "verb_upgrade": "upgrade",
            "verb_downgrade": "downgrade",
            "plan_change": (
                "I'd like to {verb} to the {plan} plan.",
                "Please switch my membership to the {plan} plan.",
                "Can I {verb} my plan to {plan}?",
            ),
            "freeze_open": (
                "I'd like to freeze my membership.",
                "Can I pause my membership for a while?",
            ),
            "freeze": (
                "I'd like to freeze my membership for {months}.",
                "Please freeze my membership for {months}; I'm travelling.",
            ),
            "unfreeze": (
                "I'm back from travelling; please unfreeze my membership.",
                "Can you unfreeze my membership? I want to train again.",
            ),
            "cancel": ("I'd like to cancel my membership.", "Please cancel my membership."),
            "fee_ok": " I understand there may be a fee.",
            "cancel_no_fee": (
                "I want to cancel my membership, but I won't pay any cancellation fee.",
                "Please cancel my membership without any fee.",
            ),
            "late_fee": "There's a late fee of {money} on my {period} invoice. ",
            "waive_ask": ("Could you waive it?", "Can you waive it, please?"),
            "dispute_late_fee": (
                "The late fee of {money} on my {period} invoice is wrong and I dispute it."
            ),
            "dispute_cancel_fee": (
                "I dispute the early cancellation fee you charge: it's unfair and I want a "
                "person to review it."
            ),
            "balance_guest_pass": "How many guest passes do I have left?",
            "balance_pt_session": "How many personal-training sessions do I have left?",
            "label_guest_pass": "guest passes",
            "label_pt_session": "personal-training sessions",
            "refund_duplicate": (
                "I was charged twice for my {period} dues: {money} two times. "
                "Please refund the duplicate.",
                "My {period} invoice has the dues of {money} twice. I'd like a refund.",
            ),
            "refund_class": "I was charged {money} for a class drop-in on my {period} invoice.",
            "claim_checkins": (
                " That's wrong: my check-ins show I go to studio classes all the time, so "
                "classes are part of my membership. Please refund it."
            ),
            "claim_pack": " But I have a class pack. Please refund it.",
            "refund_dues": (
                "I didn't use the gym in {period}, so please refund my {period} dues of {money}."
            ),
            "number_dob_incoherent": "born {dob}... the card says {number}",
            "number_dob": (
                "My member number is {number} and my date of birth is {dob}.",
                "Member number {number}, born {dob}.",
            ),
            "no_fee": "No, I won't pay a cancellation fee. Don't cancel it then.",
            "the_plan": "The {plan} plan.",
            "the_months": "{months}.",
            "the_label": "The {label}.",
        },
        ZH: {
            "vague_opening": ("你好。我的会员有点问题", "在吗？？健身房的事需要帮忙"),
            "month": "{n} 个月",
            "months": "{n} 个月",
            "period": "{number} 月",
            "verb_upgrade": "升级",
            "verb_downgrade": "降级",
            "plan_change": (
                "我想{verb}到 {plan} 套餐。",
                "请把我的会员换成 {plan} 套餐。",
                "我的套餐能{verb}到 {plan} 吗？",
            ),
            "freeze_open": ("我想冻结我的会员。", "我的会员能暂停一段时间吗？"),
            "freeze": (
                "我想把会员冻结 {months}。",
                "请帮我把会员冻结 {months}，我要出门旅行。",
            ),
            "unfreeze": (
                "我旅行回来了，请帮我解冻会员。",
                "能帮我解冻会员吗？我想重新开始锻炼。",
            ),
            "cancel": ("我想取消我的会员。", "请取消我的会员。"),
            "fee_ok": "我知道可能要收一笔费用。",
            "cancel_no_fee": (
                "我想取消会员，但我不会付任何取消费。",
                "请帮我取消会员，任何费用我都不付。",
            ),
            "late_fee": "我 {period}的账单上有一笔 {money} 的滞纳金。",
            "waive_ask": ("能帮我免除吗？", "可以帮我免掉吗？"),
            "dispute_late_fee": "我 {period}账单上 {money} 的滞纳金是错的，我对此有异议。",
            "dispute_cancel_fee": "你们收的提前取消费不合理，我有异议，希望有人来复核。",
            "balance_guest_pass": "我还剩几张访客券？",
            "balance_pt_session": "我还剩几节私教课？",
            "label_guest_pass": "访客券",
            "label_pt_session": "私教课",
            "refund_duplicate": (
                "我 {period}的会费被扣了两次：{money} 扣了两次。请退还重复的那笔。",
                "我 {period}的账单上会费 {money} 出现了两次。我想申请退款。",
            ),
            "refund_class": "我 {period}的账单上有一笔 {money} 的单次团课费用。",
            "claim_checkins": (
                "这不对：我的签到记录显示我经常去上团课，所以团课应该包含在我的会员里。请退款。"
            ),
            "claim_pack": "可是我有团课套餐。请退款。",
            "refund_dues": "我 {period}没有去健身房，所以请退还我 {period}的会费 {money}。",
            "number_dob_incoherent": "出生日期 {dob}……卡上写的是 {number}",
            "number_dob": (
                "我的会员号是 {number}，出生日期是 {dob}。",
                "会员号 {number}，生日 {dob}。",
            ),
            "no_fee": "不，我不会付取消费。那就别取消了。",
            "the_plan": "{plan} 套餐。",
            "the_months": "{months}。",
            "the_label": "{label}。",
        },
    },
)
