"""What the telecom customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`: a `str` is one sentence, a `tuple` alternatives picked at
random). Phone numbers, emails, dates of birth, plan names, codes and amounts go in as they
are. What the phone shows is reported as the phone shows it, in the customer's language
("Status bar: no service." / "状态栏：无服务。")."""

from __future__ import annotations

from evals.engine.sandbox.phrases import BASE, EN, REQUEST_LIST, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    REQUEST_LIST,
    {
        EN: {
            "vague_opening": ("hi. my phone is not working", "hello?? need help with my phone"),
            "no_service": (
                "My phone shows no service and I can't call anyone.",
                "My phone has had no service since yesterday.",
            ),
            "no_data": (
                "My mobile data stopped working this week.",
                "I have no data on my phone any more; mobile data doesn't work.",
            ),
            "no_data_abroad": (
                "I'm travelling in {country} and have no mobile data at all.",
                "I'm abroad in {country} and my phone has no data.",
            ),
            "app_offline": (
                "Also the {app} app says it is offline, although I'm connected.",
                "And my {app} app keeps saying it's offline.",
            ),
            "sim_locked": (
                "My phone asks for a PUK code: I typed a wrong PIN three times.",
                "I entered the wrong PIN three times and now my phone wants a PUK code.",
            ),
            "sim_broken": (
                "My phone fell into water and now it says no SIM.",
                "Since my phone got water damage it says no SIM. An eSIM would be fine.",
            ),
            "plan_change": (
                "I'd like to move my line to the {plan} plan.",
                "Please switch me to the {plan} plan.",
            ),
            "bill_payment": (
                "I'd like to pay my {period} bill of {money} now.",
                "Can I pay my {period} bill of {money} now with my card?",
            ),
            "dispute": (
                "My {period} bill of {money} is wrong and I dispute it; I want a person to "
                "review it.",
                "I dispute my {period} bill of {money}: it's wrong, and I want a person to "
                "review it.",
            ),
            "phone_dob": (
                "My phone number is {phone} and my date of birth is {dob}.",
                "Phone number {phone}, born {dob}.",
            ),
            "phone_dob_incoherent": "born {dob}... my number is {phone}",
            "decline_pay": "No, I can't pay anything today; I get paid next week. Please just "
            "turn my line back on now.",
            "other_topup": "I'd rather have the {gb} GB top-up.",
            "not_that": "No, that's not what I asked for. {request}",
            "what_do_you_need": "Sorry, what do you need from me?",
            "checked": "I checked my phone.",
            "did": "Done, I did that on my phone.",
            "did_some": "I did the first step on my phone.",
            "status": "Status bar: {signal}. Data connection: {data}.",
            "settings": "Airplane mode: {airplane}. Mobile data: {mobile}. Data roaming: "
            "{roaming}. APN: {apn}.",
            "sim": "SIM screen: {sim}.",
            "app": "{app} mobile data permission: {allowed}.",
            "failed": "It says: {error}",
            "cannot_do": "I don't know how to do that on my phone.",
            "works_now": ("It works now, thank you!", "Great, it's working now."),
            "still_broken": "It still doesn't work.",
            "goodbye": ("That's all, thank you. Bye!", "Thanks for your help, goodbye."),
            "goodbye_anyway": "Okay, I understand. Goodbye.",
            "not_finished": "Wait, that's not everything. {request}",
            "solo_no_phone": "You can see my phone settings on your side, can't you?",
            "signal:4 bars": "4 bars",
            "signal:no service": "no service",
            "signal:airplane mode": "airplane mode",
            "signal:no SIM": "no SIM",
            "signal:SIM locked": "SIM locked",
            "data:working": "working",
            "data:not working": "not working",
            "onoff:on": "on",
            "onoff:off": "off",
            "sim:ready": "ready",
            "sim:PUK locked": "PUK locked",
            "sim:not detected": "not detected",
            "allowed:allowed": "allowed",
            "allowed:not allowed": "not allowed",
        },
        ZH: {
            "vague_opening": ("你好。我的手机用不了", "在吗？？手机出问题了"),
            "no_service": ("我的手机显示无服务，打不了电话。", "我的手机从昨天起一直无服务。"),
            "no_data": ("这周我的移动数据用不了了。", "我的手机上不了网，移动数据不能用。"),
            "no_data_abroad": (
                "我正在 {country} 旅行，完全上不了网。",
                "我在国外（{country}），手机没有数据。",
            ),
            "app_offline": (
                "另外 {app} 应用一直显示离线，可我明明连着网。",
                "还有，我的 {app} 应用总说离线。",
            ),
            "sim_locked": (
                "我的手机要我输入 PUK 码：PIN 码输错了三次。",
                "PIN 码输错三次后，手机现在要 PUK 码。",
            ),
            "sim_broken": (
                "我的手机掉进水里了，现在显示无 SIM 卡。",
                "手机进水以后一直显示无 SIM 卡。换成 eSIM 也可以。",
            ),
            "plan_change": ("我想把线路换到 {plan} 套餐。", "请帮我换成 {plan} 套餐。"),
            "bill_payment": (
                "我想现在支付 {period}的账单，{money}。",
                "我能现在用银行卡支付 {period}的账单吗？金额 {money}。",
            ),
            "dispute": (
                "我对 {period}的账单（{money}）有异议，金额不对，我想请人复核。",
                "{period}的账单 {money} 不对，我要提出异议，请人工复核。",
            ),
            "email": ("我的邮箱是 {email}。", "是 {email}。"),
            "phone_dob": (
                "我的电话号码是 {phone}，出生日期是 {dob}。",
                "电话号码 {phone}，出生日期 {dob}。",
            ),
            "phone_dob_incoherent": "生日 {dob}……号码是 {phone}",
            "decline_pay": "不行，我今天付不了钱，下周才发工资。请先把我的线路恢复。",
            "other_topup": "我想要 {gb} GB 的流量充值。",
            "not_that": "不对，我要的不是这个。{request}",
            "what_do_you_need": "不好意思，您需要我做什么？",
            "checked": "我看了一下手机。",
            "did": "好了，我在手机上照做了。",
            "did_some": "我在手机上做了第一步。",
            "status": "状态栏：{signal}。数据连接：{data}。",
            "settings": "飞行模式：{airplane}。移动数据：{mobile}。数据漫游：{roaming}。APN：{apn}。",
            "sim": "SIM 卡页面：{sim}。",
            "app": "{app} 的移动数据权限：{allowed}。",
            "failed": "手机上显示：{error}",
            "cannot_do": "我不知道在手机上怎么弄。",
            "works_now": ("现在好了，谢谢！", "太好了，现在能用了。"),
            "still_broken": "还是不行。",
            "goodbye": ("就这些，谢谢，再见！", "谢谢您的帮助，再见。"),
            "goodbye_anyway": "好的，我明白了。再见。",
            "not_finished": "等等，还没完。{request}",
            "solo_no_phone": "我手机的设置您那边应该能看到吧？",
            "signal:4 bars": "4 格信号",
            "signal:no service": "无服务",
            "signal:airplane mode": "飞行模式",
            "signal:no SIM": "无 SIM 卡",
            "signal:SIM locked": "SIM 卡已锁定",
            "data:working": "正常",
            "data:not working": "不可用",
            "onoff:on": "开",
            "onoff:off": "关",
            "sim:ready": "就绪",
            "sim:PUK locked": "PUK 锁定",
            "sim:not detected": "未检测到",
            "allowed:allowed": "允许",
            "allowed:not allowed": "不允许",
        },
    },
)
PERIODS_ZH = {"April": "4 月", "May": "5 月", "June": "6 月"}
