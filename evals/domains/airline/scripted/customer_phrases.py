"""What the airline customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`: a `str` is one sentence, a `tuple` alternatives picked at
random). Booking references, emails, names, dates and amounts go in as they are; in Chinese
they stand between spaces, as people type Latin text among Chinese characters. Cities are
named in the customer's language."""

from __future__ import annotations

from evals.engine.sandbox.phrases import BASE, EN, REQUEST_LIST, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    REQUEST_LIST,
    {
        EN: {
            "vague_opening": ("hi. problem with my flight", "hello?? need help with a booking"),
            "change": (
                "I'd like to move my flight to {date}, same route.",
                "Can I change my flight to {date}? Same cities.",
            ),
            "cancel": (
                "I'd like to cancel my reservation and get my money back.",
                "Please cancel my reservation; I want a refund.",
            ),
            "bags": (
                "I'd like to add {count} {bag_word} to my reservation.",
                "Can you add {count} {bag_word} to my booking?",
            ),
            "bag_one": "checked bag",
            "bag_many": "checked bags",
            "name": (
                "The name on my booking is misspelled: it says {first} {wrong}, but it should be "
                "{first} {right}.",
            ),
            "name_transfer": (
                "{first} {wrong} can't travel, so please change the name on the ticket to my "
                "colleague {new_first} {right}.",
            ),
            "remove": (
                "Please take {name} off the reservation; they can't come.",
                "{name} can't come with me. Please take {name} off the reservation.",
            ),
            "add_passenger": "I'd like to add my sister {name} as a passenger on this trip.",
            "compensation_delay": (
                "My flight arrived hours late, so I'd like compensation.",
                "My flight was delayed by hours; what compensation do I get?",
            ),
            "compensation_cancelled": (
                "You cancelled my flight, so I'd like compensation.",
                "The airline cancelled my flight and I want compensation for that.",
            ),
            "exception_bereavement": (
                "My father passed away and I have to stay for the funeral, so I can't travel. I'd "
                "like a refund for the trip; I can send the death certificate.",
            ),
            "exception_medical": (
                "I was just admitted to hospital and can't travel. I'd like a refund for the "
                "trip; I can send a doctor's letter.",
            ),
            "dispute": (
                "I dispute the decision to give me no compensation for my flight that was hours "
                "late, and I want a person to review it.",
            ),
            "trip": "It's my trip from {origin} to {dest} on {date}.",
            "ref_name": (
                "My booking reference is {ref} and my last name is {last}.",
                "Booking reference {ref}, last name {last}.",
            ),
            "email_ref": "My email is {email}; the booking reference is {ref}.",
            "no_ref": "I don't have the booking reference at hand. ",
            "not_my_trip": "No, that's not my trip. {trip}",
            "unsure": (
                "Sorry, what do you need from me?",
                "Sorry, I don't follow. What do you need from me?",
            ),
        },
        ZH: {
            "vague_opening": ("你好。我的航班有点问题", "在吗？？预订的事需要帮忙"),
            "change": (
                "我想把航班改签到 {date}，航线不变。",
                "我的航班能改到 {date} 吗？还是同样的城市。",
            ),
            "cancel": ("我想取消我的预订并拿回我的钱。", "请取消我的预订，我要退款。"),
            "bags": (
                "我想给我的预订加 {count} {bag_word}。",
                "能给我的预订加 {count} {bag_word}吗？",
            ),
            "bag_one": "件托运行李",
            "bag_many": "件托运行李",
            "name": ("我预订上的名字拼错了：写的是 {first} {wrong}，应该是 {first} {right}。",),
            "name_transfer": (
                "{first} {wrong} 去不了了，所以请把机票上的名字换成我同事 {new_first} {right}。",
            ),
            "remove": (
                "请把 {name} 从预订中移除，他来不了了。",
                "{name} 不能和我一起去了。请把 {name} 从预订中移除。",
            ),
            "add_passenger": "我想把我妹妹 {name} 添加为这次行程的乘客。",
            "compensation_delay": (
                "我的航班晚到了好几个小时，所以我想要补偿。",
                "我的航班延误了好几个小时，我能得到什么补偿？",
            ),
            "compensation_cancelled": (
                "你们取消了我的航班，所以我想要补偿。",
                "航空公司取消了我的航班，我要求补偿。",
            ),
            "exception_bereavement": (
                "我父亲去世了，我得留下来参加葬礼，没法出行。我想要这次行程的退款，我可以提供死亡证明。",
            ),
            "exception_medical": (
                "我刚住院了，没法出行。我想要这次行程的退款，我可以提供医生证明。",
            ),
            "dispute": ("我的航班晚了好几个小时却不给补偿，我对这个决定有异议，希望有人来复核。",),
            "trip": "是我 {date} 从{origin}到{dest}的行程。",
            "ref_name": ("我的预订号是 {ref}，姓 {last}。", "预订号 {ref}，姓氏是 {last}。"),
            "email_ref": "我的邮箱是 {email}，预订号是 {ref}。",
            "no_ref": "我手边没有预订号。",
            "not_my_trip": "不对，那不是我的行程。{trip}",
            "unsure": ("不好意思，你需要我提供什么？", "不好意思，我没听懂。你需要我提供什么？"),
        },
    },
)
