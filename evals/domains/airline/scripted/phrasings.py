"""Every sentence the airline reference agent says, in independent wordings: the original
("en") and rewordings ("en-2", "zh") with the same facts, ids and amounts. An agent param
selects one (`params={"phrasing": "en-2"}`): the same logic, the same tool calls, other words.

Each wording keeps what the policy makes the agent say (the refusal's reason in the policy's
words, the amount, that a human takes an exception or a dispute) and what the guard checks in
a summary (the action's word and the values written), in that language's words.
"""

from __future__ import annotations

from evals.domains.airline.scripted import vocab

EN = {
    "ask_identity": "Before I can help, I need to verify your identity. Could you give me your "
    "booking reference and last name, or the email address of your account?",
    "explain_identity": "I need to verify who you are before I can look at or change a "
    "reservation; that protects your booking and your money.",
    "not_found_ref": "I couldn't find a reservation with booking reference {ref} and last name "
    "{last}.",
    "not_found_email": "I couldn't find an account with the email {email}.",
    "ask_trip": "I see several reservations on your account. Which trip is it: where do you fly "
    "from and to, and on which date?",
    "ask_date": "To which date would you like to move the flight? Please write it as YYYY-MM-DD.",
    "ask_bags": "How many checked bags would you like to add?",
    "ask_name": "What should the passenger's name be, exactly as on the passport?",
    "ask_passenger": "Which passenger would you like to take off the reservation?",
    "anything_else": "Is there anything else I can help you with?",
    "how_can_i_help": "How can I help you today?",
    "proceed": "{summary} Shall I proceed? (yes/no)",
    "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
    "declined": "Okay, I won't do that.",
    "write_failed": "I'm sorry, that did not go through: {error}",
    "trip": "reservation {ref} ({origin} to {dest} on {date})",
    "no_flight": "I couldn't find a flight on your route on {date}.",
    "propose_change": "To confirm: I will change {trip} to flight {flight_id} on {date}. The "
    "change fee is {fee} {currency} and the fare difference {diff} {currency}: {total} "
    "{currency} in all, charged to your original payment method.",
    "propose_cancel": "To confirm: I will cancel {trip} and refund {amount} {currency} to your "
    "original payment method ({method}).",
    "propose_bags": "To confirm: I will add {count} checked bag(s) to {trip}. The bag fee is "
    "{fee} {currency}.",
    "propose_name": "To confirm: I will correct the passenger name on {trip} from {old} to "
    "{new}, free of charge.",
    "propose_add_passenger": "To confirm: I will add passenger {name} to {trip} at the "
    "current fare of {fare} {currency}, charged to your original payment method.",
    "done_add_passenger": "Done: {name} is now a passenger on {ref}; {charged} {currency} was "
    "charged.",
    "propose_remove": "To confirm: I will remove passenger {name} from {trip} and refund "
    "{amount} {currency} to your original payment method.",
    "propose_compensation": "To confirm: I will issue compensation of {amount} {currency} as a "
    "travel certificate for {trip}, because flight {flight} was {what}.",
    "what_delay": "delayed by {minutes} minutes ({cause})",
    "what_cancelled": "cancelled by the airline ({cause})",
    "done_change_flight": "Done: {ref} now flies on flight {flight_id}; {charged} {currency} "
    "was charged to your original payment method.",
    "done_cancel_reservation": "Done: reservation {ref} is cancelled and {refund} {currency} "
    "is refunded to your original payment method.",
    "done_add_checked_bags": "Done: reservation {ref} now has {bags} checked bag(s); "
    "{charged} {currency} was charged.",
    "done_correct_passenger_name": "Done: the passenger name on {ref} now reads {name}.",
    "done_remove_passenger": "Done: the passenger is removed from {ref} and {refund} {currency} "
    "is refunded to your original payment method.",
    "done_issue_compensation": "Done: travel certificate {code} of {amount} {currency} was issued.",
    "refuse_basic": "I'm sorry, I can't change {trip}, because it is a basic economy fare, and "
    "basic economy cannot be changed.",
    "refuse_24h": "I'm sorry, I can't refund {trip}, because it was booked more than 24 hours "
    "ago on a {fare} fare; outside the 24 hours after booking, basic and standard fares are "
    "not refunded.",
    "refuse_bag_limit": "I'm sorry, I can't add {count} bags to {trip}, because the limit is 3 "
    "checked bags per passenger.",
    "refuse_transfer": "I'm sorry, I can't change the name on {trip} to {new}, because a ticket "
    "cannot be reissued to another person; only a misspelling of up to 3 characters can be "
    "corrected.",
    "refuse_add_passenger": "I'm sorry, I can't add {name} to {trip}, because it was booked more "
    "than 24 hours ago, and after that passengers cannot be added to an existing reservation; "
    "a new passenger needs a new booking.",
    "refuse_last_passenger": "I'm sorry, I can't remove the only passenger of {trip}.",
    "refuse_weather": "I'm sorry, I can't issue compensation for {trip}, because flight "
    "{flight} was delayed by weather, and there is no compensation for weather.",
    "refuse_short": "I'm sorry, I can't issue compensation for {trip}, because flight {flight} "
    "was delayed by {minutes} minutes, and there is no compensation for a delay under 3 hours.",
    "already_compensated": "Compensation was already issued for {trip}.",
    "no_passenger": "I couldn't find that passenger on {trip}.",
    "exception": "I understand, and I'm sorry; I am not able to decide an exception for a "
    "medical reason or a bereavement myself, so a colleague from our fare exceptions desk will take your case. "
    + vocab.TRANSFER,
    "dispute": "I understand you dispute this decision; a colleague will review it. "
    + vocab.TRANSFER,
}

EN_2 = {
    "ask_identity": "To pull up your booking I first have to confirm it's you. Please send me "
    "either your booking reference together with your last name, or the email you registered "
    "with.",
    "explain_identity": "For your security I may only open or change a booking once I know who "
    "I'm talking to.",
    "not_found_ref": "Booking reference {ref} with last name {last} doesn't match any of our "
    "records.",
    "not_found_email": "There's no account registered under {email}.",
    "ask_trip": "Your account holds more than one booking. Which journey do you mean? Tell me the "
    "departure city, the arrival city and the date.",
    "ask_date": "What date should the new flight be on? The format YYYY-MM-DD works best.",
    "ask_bags": "How many bags do you want to check in on top of what you have?",
    "ask_name": "Please spell the passenger's name for me exactly as it appears in the passport.",
    "ask_passenger": "Who should come off the booking?",
    "anything_else": "Can I help with something else?",
    "how_can_i_help": "What can I do for you?",
    "proceed": "{summary} Would you like me to go ahead?",
    "reassure": "No problem. {summary} Would you like me to go ahead?",
    "declined": "All right, I'll leave it as it is.",
    "write_failed": "Unfortunately the system rejected that: {error}",
    "trip": "booking {ref}, {origin} to {dest} on {date}",
    "no_flight": "There is no flight on your route on {date}.",
    "propose_change": "Here is the plan: {trip} moves to flight {flight_id} on {date}. You pay a "
    "change fee of {fee} {currency} plus a fare difference of {diff} {currency}, {total} "
    "{currency} in total, on the card you booked with.",
    "propose_cancel": "Here is the plan: I cancel {trip} and {amount} {currency} goes back to "
    "the card you paid with ({method}).",
    "propose_bags": "Here is the plan: {count} checked bag(s) added to {trip}, bag fee {fee} "
    "{currency}.",
    "propose_name": "Here is the plan: on {trip} the passenger name {old} becomes {new}; this "
    "costs nothing.",
    "propose_add_passenger": "Here is the plan: I add {name} to {trip}; the fare today is "
    "{fare} {currency}, on the card you booked with.",
    "done_add_passenger": "All set: {name} travels on {ref} too, and {charged} {currency} went "
    "on your card.",
    "propose_remove": "Here is the plan: I remove {name} from {trip}, and {amount} {currency} "
    "goes back to the card you paid with.",
    "propose_compensation": "Here is the plan: a travel certificate worth {amount} {currency} "
    "for {trip}, since flight {flight} was {what}.",
    "what_delay": "{minutes} minutes late ({cause})",
    "what_cancelled": "cancelled on our side ({cause})",
    "done_change_flight": "All set: {ref} is now on flight {flight_id}, and {charged} {currency} "
    "went on the card you booked with.",
    "done_cancel_reservation": "All set: booking {ref} has been cancelled and {refund} "
    "{currency} is on its way back to your card.",
    "done_add_checked_bags": "All set: booking {ref} carries {bags} checked bag(s) now, and "
    "{charged} {currency} has been charged.",
    "done_correct_passenger_name": "All set: the name on {ref} has been fixed to {name}.",
    "done_remove_passenger": "All set: that passenger has come off {ref}, and {refund} "
    "{currency} is on its way back to your card.",
    "done_issue_compensation": "All set: certificate {code}, worth {amount} {currency}, has been "
    "issued to you.",
    "refuse_basic": "Unfortunately {trip} can't be changed, because it is a basic economy "
    "ticket and basic economy allows no changes.",
    "refuse_24h": "Unfortunately {trip} can't be refunded, because more than 24 hours have "
    "passed since booking and a {fare} fare is not refundable after that.",
    "refuse_bag_limit": "Unfortunately {count} more bags can't go on {trip}: we take at most "
    "3 checked bags per passenger.",
    "refuse_transfer": "Unfortunately {trip} can't go to {new}, because a ticket cannot be "
    "reissued to another person; we can only fix a spelling slip of 3 characters or fewer.",
    "refuse_add_passenger": "Unfortunately {name} can't join {trip}, because more than 24 hours "
    "have passed since booking, and after that no passenger can join an existing reservation; "
    "they need a booking of their own.",
    "refuse_last_passenger": "Unfortunately the only passenger on {trip} can't be taken off.",
    "refuse_weather": "Unfortunately there is no compensation for {trip}, because flight "
    "{flight} was held up by the weather, which we cannot control.",
    "refuse_short": "Unfortunately {trip} can't earn compensation, because flight {flight} was "
    "{minutes} minutes late, less than the 3 hours a certificate needs.",
    "already_compensated": "A certificate has already been issued for {trip}.",
    "no_passenger": "That passenger isn't on {trip}.",
    "exception": "I'm sorry about this; an exception for illness or a death in the family is "
    "not mine to grant, so I'm "
    "passing you to a specialist on our fare exceptions team. " + vocab.TRANSFER,
    "dispute": "I hear that you disagree with this; a member of our team will look at it "
    "again. " + vocab.TRANSFER,
}

ZH = {
    "ask_identity": "在帮您处理之前，我需要先核实您的身份。请提供您的预订号和姓氏，或者您账户的邮箱地址。",
    "explain_identity": "我需要先核实您的身份，才能查看或更改预订；这是为了保护您的预订和资金安全。",
    "not_found_ref": "我没有找到预订号为 {ref}、姓氏为 {last} 的预订。",
    "not_found_email": "我没有找到邮箱为 {email} 的账户。",
    "ask_trip": "您的账户下有多个预订。请问是哪一趟行程：从哪里飞往哪里，哪一天？",
    "ask_date": "您想把航班改到哪一天？请按 YYYY-MM-DD 格式填写。",
    "ask_bags": "您想添加几件托运行李？",
    "ask_name": "乘客的名字应该是什么？请与护照一致。",
    "ask_passenger": "您想把哪位乘客从预订中移除？",
    "anything_else": "还有什么可以帮您的吗？",
    "how_can_i_help": "请问今天有什么可以帮您？",
    "proceed": "{summary}请问可以吗？",
    "reassure": "我理解。{summary}请问可以吗？",
    "declined": "好的，我不会这么做。",
    "write_failed": "抱歉，操作没有成功：{error}",
    "trip": "预订 {ref}（{date} {origin}—{dest}）",
    "no_flight": "我没有找到您的航线在 {date} 的航班。",
    "propose_change": "确认一下：我将把{trip}改签到 {date} 的航班 {flight_id}。改签费 {fee} "
    "{currency}，票价差额 {diff} {currency}，共计 {total} {currency}，从您原支付方式扣款。",
    "propose_cancel": "确认一下：我将取消{trip}，并把 {amount} {currency} 退款到您的原支付方式（{method}）。",
    "propose_bags": "确认一下：我将为{trip}添加 {count} 件托运行李，行李费 {fee} {currency}。",
    "propose_name": "确认一下：我将把{trip}上的乘客姓名从 {old} 更正为 {new}，免费。",
    "propose_add_passenger": "确认一下：我将把乘客 {name} 添加到{trip}，按当前票价 {fare} {currency}，"
    "从您原支付方式扣款。",
    "done_add_passenger": "已完成：{name} 已添加为 {ref} 的乘客，已收取 {charged} {currency}。",
    "propose_remove": "确认一下：我将把乘客 {name} 从{trip}中移除，并把 {amount} {currency} "
    "退款到您的原支付方式。",
    "propose_compensation": "确认一下：我将为{trip}发放价值 {amount} {currency} 的旅行券作为补偿，"
    "因为航班 {flight} {what}。",
    "what_delay": "延误了 {minutes} 分钟（{cause}）",
    "what_cancelled": "被航空公司取消（{cause}）",
    "done_change_flight": "已完成：{ref} 已改签到航班 {flight_id}，已从您原支付方式扣款 {charged} {currency}。",
    "done_cancel_reservation": "已完成：预订 {ref} 已取消，{refund} {currency} 已退款到您的原支付方式。",
    "done_add_checked_bags": "已完成：预订 {ref} 现有 {bags} 件托运行李，已收取 {charged} {currency}。",
    "done_correct_passenger_name": "已完成：{ref} 上的乘客姓名已更正为 {name}。",
    "done_remove_passenger": "已完成：该乘客已从 {ref} 中移除，{refund} {currency} 已退款到您的原支付方式。",
    "done_issue_compensation": "已完成：已发放旅行券 {code}，价值 {amount} {currency}。",
    "refuse_basic": "抱歉，我无法更改{trip}，因为这是基本经济舱票价，基本经济舱不能更改。",
    "refuse_24h": "抱歉，我无法为{trip}退款，因为它是在 24 小时之前以 {fare} 票价预订的；"
    "预订 24 小时之后，基本和标准票价不予退款。",
    "refuse_bag_limit": "抱歉，我无法为{trip}添加 {count} 件行李，因为每位乘客最多 3 件托运行李。",
    "refuse_transfer": "抱歉，我无法把{trip}上的名字改为 {new}，因为机票不能转让给他人；"
    "只能更正不超过 3 个字符的拼写错误。",
    "refuse_add_passenger": "抱歉，我无法把 {name} 添加到{trip}，因为预订已超过 24 小时，乘客不能再添加到已有的预订中；"
    "新乘客需要新的预订。",
    "refuse_last_passenger": "抱歉，我无法移除{trip}唯一的乘客。",
    "refuse_weather": "抱歉，我无法为{trip}发放补偿，因为航班 {flight} 是因天气延误的，天气原因不予补偿。",
    "refuse_short": "抱歉，我无法为{trip}发放补偿，因为航班 {flight} 延误了 {minutes} 分钟，"
    "延误不足 3 小时不予补偿。",
    "already_compensated": "{trip}已经发放过补偿。",
    "no_passenger": "我在{trip}上没有找到这位乘客。",
    "exception": "我理解，也很遗憾；因医疗或丧事原因破例的决定我无权自行做出，票价例外专员会接手您的情况。正在为您转接人工客服，请稍候。",
    "dispute": "我理解您对这个决定有异议；同事会复核。正在为您转接人工客服，请稍候。",
}

CAUSES_ZH = {
    "technical": "技术原因",
    "crew": "机组原因",
    "operational": "运营原因",
    "weather": "天气",
    "air traffic control": "空中交通管制",
}

PHRASINGS: dict[str, dict[str, str]] = {"en": EN, "en-2": EN_2, "zh": ZH}
