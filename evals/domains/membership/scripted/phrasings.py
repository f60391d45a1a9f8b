"""Every sentence the membership reference agent says, in several independent wordings: the
original ("en") and rewordings ("en-2", "en-3", "zh") with the same facts, ids and amounts.
An agent param selects one (`params={"phrasing": "en-2"}`): the same logic, the same tool
calls, other words — what a customer that understands by intent and entities must not notice.

Each wording keeps what the policy makes the agent say (the refusal's reason, the amount, that
a human approves a refund or takes a dispute) and what the guard checks in a summary (the
action's word and the values written), in that language's words.
"""

from __future__ import annotations

from evals.domains.membership.scripted import vocab

EN = {
    "ask_identity": vocab.ASK_IDENTITY,
    "explain_identity": vocab.EXPLAIN_IDENTITY,
    "not_found_email": "I couldn't find a member with the email {email}.",
    "not_found_number": "I couldn't find a member with member number {number} and date of birth {dob}.",
    "ask_plan": vocab.ASK_PLAN,
    "ask_months": vocab.ASK_MONTHS,
    "freeze_max": "A freeze lasts at most 3 months.",
    "ask_charge": vocab.ASK_CHARGE,
    "charge_not_found": "I couldn't find that charge.",
    "ask_balance": vocab.ASK_BALANCE,
    "anything_else": vocab.ANYTHING_ELSE,
    "how_can_i_help": vocab.HOW_CAN_I_HELP,
    "proceed": "{summary} Shall I proceed? (yes/no)",
    "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
    "declined": "Okay, I won't do that.",
    "write_failed": "I'm sorry, that did not go through: {error}",
    "done": "Done: {text}",
    "done_change_plan": "membership {membership_id} is now on the {plan} plan{money}.",
    "done_charged": "; {amount} {currency} is charged now",
    "done_credited": "; {amount} {currency} is credited to your account",
    "done_freeze_membership": "membership {membership_id} is frozen for {months} month{plural}; "
    "the freeze fee of {freeze_fee} {currency} is billed.",
    "done_unfreeze_membership": "membership {membership_id} is active again.",
    "done_cancel_membership": "membership {membership_id} is cancelled; cancellation fee {fee} {currency}.",
    "done_waive_fee": "the late fee of {waived} {currency} on invoice {invoice_id} is waived.",
    "done_request_refund": "a refund request of {amount} {currency} on invoice {invoice_id} was "
    "submitted; it waits for approval by a human approver.",
    "already_on_plan": "You are already on the {plan} plan.",
    "not_frozen": "Membership {membership_id} is {status}, not frozen.",
    "already_cancelled": "Membership {membership_id} is already cancelled.",
    "no_late_fee": "I couldn't find an unpaid late fee on your invoices.",
    "refuse_plan_inactive": "I'm sorry, I can't change the plan of membership {membership_id}: it "
    "is {status}, and only active memberships can change plan.",
    "refuse_downgrade": "I'm sorry, I can't downgrade membership {membership_id}: you are inside "
    "your commitment period until {end}, and downgrades are only possible after it.",
    "refuse_freeze_inactive": "I'm sorry, I can't freeze membership {membership_id}: it is "
    "{status}, and only active memberships can be frozen.",
    "refuse_freeze_limit": "I'm sorry, I can't freeze membership {membership_id}: you have "
    "already used the 2 freezes allowed per calendar year.",
    "refuse_cancel_fee": "I'm sorry, I can't cancel without the fee: you are inside your "
    "commitment until {end}, so the cancellation fee of {fee} {currency} applies and I cannot "
    "waive it.",
    "refuse_waiver": "I'm sorry, I can't waive the late fee on invoice {invoice_id}: a late fee "
    "can be waived once in 12 months, and you already had a waiver in the last 12 months.",
    "refuse_class": "I'm sorry, I can't refund the class drop-in on invoice {invoice_id}: you "
    "have no paid class entitlement. Check-ins are visit logs, not entitlements, so they do not "
    "cover a class.",
    "refuse_no_overcharge": "I'm sorry, I can't refund line {item_id} on invoice {invoice_id}: it "
    "was charged correctly, so there is no overcharge to refund.",
    "propose_plan": "To confirm: I will change membership {membership_id} from the {current} plan "
    "to the {new} plan ({plan_id}). {money}; the new monthly fee is {fee} {currency}.",
    "money_charge": "A pro-rated charge of {amount} {currency} is billed now",
    "money_credit": "A pro-rated credit of {amount} {currency} goes to your account",
    "propose_freeze": "To confirm: I will freeze membership {membership_id} for {months} "
    "month{plural}. The freeze fee of {fee} {currency} is billed.",
    "propose_unfreeze": "To confirm: I will unfreeze membership {membership_id} so it is active "
    "again from today, at no charge.",
    "propose_cancel": "To confirm: I will cancel membership {membership_id}. {why}",
    "cancel_in_commitment": "You are inside your commitment until {end}, so the cancellation fee "
    "is {fee} {currency}.",
    "cancel_after_commitment": "Your commitment has ended, so the fee is {fee} {currency}.",
    "propose_waive": "To confirm: I will waive the late fee of {amount} {currency} (line "
    "{item_id}) on invoice {invoice_id}.",
    "propose_refund": "To confirm: I will request a refund of {amount} {currency} for line "
    "{item_id} ({description}) on invoice {invoice_id}. A human approver must approve it.",
    "balance": "You have {left} {label} left (paid entitlements; check-ins are visits, not "
    "entitlements).",
    "label_guest_pass": "guest passes",
    "label_pt_session": "personal-training sessions",
    "label_classes": "classes",
    "dispute": "I understand you dispute this charge; a colleague will review it. "
    + vocab.TRANSFER,
    "status_active": "active",
    "status_frozen": "frozen",
    "status_past_due": "past due",
    "status_cancelled": "cancelled",
}

EN_2 = {
    "ask_identity": "To look up your account I first have to confirm it's you. Please send me "
    "either the email you registered with, or your member number together with your birth date.",
    "explain_identity": "For your security I may only open or change a membership once I know "
    "who I'm talking to.",
    "not_found_email": "There's no member registered under {email}.",
    "not_found_number": "Member number {number} with birth date {dob} doesn't match any of our "
    "records.",
    "ask_plan": "Which plan do you want to move to: Basic, Plus or Premium?",
    "ask_months": "How long should the freeze last? It can be 1, 2 or 3 months.",
    "freeze_max": "Freezes can't be longer than 3 months.",
    "ask_charge": "Could you tell me which month's invoice the charge is on, and what it was for?",
    "charge_not_found": "That charge doesn't show up on your invoices.",
    "ask_balance": "Do you mean classes, guest passes or personal-training sessions?",
    "anything_else": "Can I help with something else?",
    "how_can_i_help": "What can I do for you?",
    "proceed": "{summary} Would you like me to go ahead?",
    "reassure": "No problem. {summary} Would you like me to go ahead?",
    "declined": "All right, I'll leave it as it is.",
    "write_failed": "Unfortunately the system rejected that: {error}",
    "done": "All set: {text}",
    "done_change_plan": "your membership {membership_id} has been switched to {plan}{money}.",
    "done_charged": ", and {amount} {currency} has been charged",
    "done_credited": ", and {amount} {currency} has been credited to you",
    "done_freeze_membership": "I've frozen membership {membership_id} for {months} "
    "month{plural} and billed the {freeze_fee} {currency} freeze fee.",
    "done_unfreeze_membership": "I've unfrozen membership {membership_id}; you can train again.",
    "done_cancel_membership": "I've cancelled membership {membership_id} with a cancellation fee "
    "of {fee} {currency}.",
    "done_waive_fee": "I've waived the {waived} {currency} late fee on invoice {invoice_id}.",
    "done_request_refund": "I've filed a refund request for {amount} {currency} on invoice "
    "{invoice_id}; a human approver has to sign it off.",
    "already_on_plan": "Your membership is already on {plan}.",
    "not_frozen": "Membership {membership_id} isn't frozen; its status is {status}.",
    "already_cancelled": "Membership {membership_id} has already been cancelled.",
    "no_late_fee": "There's no unpaid late fee on any of your invoices.",
    "refuse_plan_inactive": "Unfortunately I'm unable to switch the plan on {membership_id}: its "
    "status is {status}, and plan changes need an active membership.",
    "refuse_downgrade": "Unfortunately a downgrade of {membership_id} is not possible right now: "
    "your commitment runs until {end}, and a downgrade is only allowed once it is over.",
    "refuse_freeze_inactive": "Unfortunately I'm unable to freeze {membership_id}: its status is "
    "{status}, and only an active membership can be put on hold.",
    "refuse_freeze_limit": "Unfortunately I'm unable to freeze {membership_id} again: you've "
    "reached the freeze limit of two freezes this calendar year.",
    "refuse_cancel_fee": "Unfortunately I'm unable to cancel it fee-free: your commitment runs "
    "until {end}, so the {fee} {currency} cancellation fee is due and can't be waived.",
    "refuse_waiver": "Unfortunately I'm unable to waive the late fee on {invoice_id}: only one "
    "waiver is allowed in 12 months, and you've had one within the last 12 months.",
    "refuse_class": "Unfortunately I'm unable to refund the class drop-in on {invoice_id}: there "
    "is no paid class entitlement on your account, and check-ins only log visits, they are not "
    "an entitlement.",
    "refuse_no_overcharge": "Unfortunately I'm unable to refund line {item_id} on {invoice_id}: "
    "the amount was charged correctly, so there's no overcharge.",
    "propose_plan": "Here's the plan change: membership {membership_id} moves from {current} to "
    "{new} ({plan_id}). {money}, and your monthly fee becomes {fee} {currency}.",
    "money_charge": "You'll pay {amount} {currency} pro rata today",
    "money_credit": "You'll get {amount} {currency} pro rata back as account credit",
    "propose_freeze": "Here's the freeze: membership {membership_id} on hold for {months} "
    "month{plural}, with a freeze fee of {fee} {currency}.",
    "propose_unfreeze": "Here's the change: I'd unfreeze membership {membership_id} today, free "
    "of charge.",
    "propose_cancel": "Here's the cancellation: membership {membership_id} ends. {why}",
    "cancel_in_commitment": "As your commitment runs until {end}, a {fee} {currency} cancellation "
    "fee applies.",
    "cancel_after_commitment": "Your commitment is over, so the fee is {fee} {currency}.",
    "propose_waive": "Here's the waiver: I'd waive the {amount} {currency} late fee, line "
    "{item_id} of invoice {invoice_id}.",
    "propose_refund": "Here's the refund request: {amount} {currency} for line {item_id} "
    "({description}) of invoice {invoice_id}; it needs a human approver's approval.",
    "balance": "Your account shows {left} {label} remaining (only paid entitlements count; "
    "check-ins are just visits).",
    "label_guest_pass": "guest passes",
    "label_pt_session": "personal-training sessions",
    "label_classes": "classes",
    "dispute": "Since you're disputing this charge, I'm passing you to a colleague who can "
    "review it: I'm transferring you to a person now.",
    "status_active": "active",
    "status_frozen": "frozen",
    "status_past_due": "past due",
    "status_cancelled": "cancelled",
}

EN_3 = {
    "ask_identity": "Happy to help! First, security check: what's the email on your membership? "
    "If you'd rather, give me your member number and date of birth instead.",
    "explain_identity": "Checking who you are keeps anyone else from seeing or changing your "
    "membership.",
    "not_found_email": "Hmm, {email} isn't on file with us.",
    "not_found_number": "Hmm, I have nobody with member number {number} born {dob}.",
    "ask_plan": "Sure - Basic, Plus or Premium, which one would you like?",
    "ask_months": "How many months do you need the freeze for (anything from 1 to 3)?",
    "freeze_max": "The longest possible freeze is 3 months.",
    "ask_charge": "Which charge is it? Tell me the month of the invoice and what the charge was.",
    "charge_not_found": "Hmm, I can't spot that charge.",
    "ask_balance": "Are you asking about classes, guest passes, or personal-training sessions?",
    "anything_else": "Anything more I can do for you today?",
    "how_can_i_help": "Hello, what brings you here today?",
    "proceed": "{summary} OK to go ahead?",
    "reassure": "Sure thing. {summary} OK to go ahead?",
    "declined": "Understood, I won't make that change.",
    "write_failed": "Sorry, the change was rejected: {error}",
    "done": "That's done - {text}",
    "done_change_plan": "{membership_id} now runs on the {plan} plan{money}.",
    "done_charged": " ({amount} {currency} charged today)",
    "done_credited": " ({amount} {currency} credited to your account)",
    "done_freeze_membership": "{membership_id} is on hold for {months} month{plural} and the "
    "{freeze_fee} {currency} freeze fee has been billed.",
    "done_unfreeze_membership": "{membership_id} has been unfrozen.",
    "done_cancel_membership": "{membership_id} has been cancelled, with a {fee} {currency} "
    "cancellation fee.",
    "done_waive_fee": "the {waived} {currency} late fee on {invoice_id} has been waived.",
    "done_request_refund": "your refund request for {amount} {currency} on {invoice_id} has been "
    "sent to a human approver, who still has to approve it.",
    "already_on_plan": "Good news: you're on the {plan} plan already.",
    "not_frozen": "{membership_id} isn't frozen at the moment, it's {status}.",
    "already_cancelled": "{membership_id} was cancelled already.",
    "no_late_fee": "I don't see any unpaid late fee on your invoices.",
    "refuse_plan_inactive": "I'm afraid the plan of {membership_id} cannot be changed: the "
    "membership is {status}, and only an active one can switch plans.",
    "refuse_downgrade": "I'm afraid {membership_id} cannot be downgraded yet: your commitment "
    "lasts until {end}, and downgrades only open up after that.",
    "refuse_freeze_inactive": "I'm afraid {membership_id} cannot be frozen: it's {status}, and "
    "freezes are only for active memberships.",
    "refuse_freeze_limit": "I'm afraid {membership_id} cannot be frozen again this year: "
    "you've used both of your 2 freezes for this calendar year.",
    "refuse_cancel_fee": "I'm afraid a cancellation without the fee cannot be done: your "
    "commitment lasts until {end}, so the {fee} {currency} fee is owed and I'm not able to drop it.",
    "refuse_waiver": "I'm afraid the late fee on {invoice_id} cannot be waived: we waive one "
    "late fee per 12 months, and you had one waived in the past 12 months.",
    "refuse_class": "I'm afraid the class drop-in on {invoice_id} cannot be refunded: your "
    "account has no paid class entitlement. Check-ins record visits; they aren't an entitlement.",
    "refuse_no_overcharge": "I'm afraid line {item_id} on {invoice_id} cannot be refunded: it "
    "was charged correctly, so there's no overcharge.",
    "propose_plan": "Let me check I've got it: {membership_id} switches plan from {current} to "
    "{new} ({plan_id}). {money}; from then on you pay {fee} {currency} a month.",
    "money_charge": "Today {amount} {currency} is charged pro rata",
    "money_credit": "Today {amount} {currency} is credited pro rata",
    "propose_freeze": "Let me check I've got it: {membership_id} gets a freeze of {months} "
    "month{plural}, and the freeze fee is {fee} {currency}.",
    "propose_unfreeze": "Let me check I've got it: I'd unfreeze {membership_id} right away; "
    "there's no charge.",
    "propose_cancel": "Let me check I've got it: I'd cancel {membership_id}. {why}",
    "cancel_in_commitment": "Your commitment lasts until {end}, so there's a cancellation fee "
    "of {fee} {currency}.",
    "cancel_after_commitment": "Your commitment is finished, so the fee comes to {fee} {currency}.",
    "propose_waive": "Let me check I've got it: I'd waive the late fee of {amount} {currency}, "
    "line {item_id} on {invoice_id}.",
    "propose_refund": "Let me check I've got it: I'd request a refund of {amount} {currency} "
    "for line {item_id} ({description}) on {invoice_id}, which a human approver then has to "
    "approve.",
    "balance": "There are {left} {label} left on your account (that's paid entitlements; "
    "check-ins don't count).",
    "label_guest_pass": "guest passes",
    "label_pt_session": "personal-training sessions",
    "label_classes": "classes",
    "dispute": "Got it, you're contesting this charge. A staff member needs to look at that, so "
    "I'm handing you over to a human colleague now (transfer in progress).",
    "status_active": "active",
    "status_frozen": "frozen",
    "status_past_due": "past due",
    "status_cancelled": "cancelled",
}

ZH = {
    "ask_identity": "在帮您办理之前，我需要先核实您的身份。请提供您账户的邮箱，或者您的会员号和出生日期。",
    "explain_identity": "为了保护您的账户和资金安全，核实身份之后我才能查看或修改您的会员资格。",
    "not_found_email": "没有找到邮箱为 {email} 的会员。",
    "not_found_number": "没有找到会员号为 {number}、出生日期为 {dob} 的会员。",
    "ask_plan": "您想换成哪个套餐：基础版、进阶版还是高级版？",
    "ask_months": "您想冻结几个月（1 到 3 个月）？",
    "freeze_max": "冻结最长 3 个月。",
    "ask_charge": "请问是哪一笔费用？请告诉我账单的月份和收费的内容。",
    "charge_not_found": "没有找到这笔费用。",
    "ask_balance": "您问的是团课、访客券还是私教课？",
    "anything_else": "还有其他需要帮忙的吗？",
    "how_can_i_help": "您好，请问有什么可以帮您？",
    "proceed": "{summary}请问可以吗？",
    "reassure": "我理解。{summary}请问可以吗？",
    "declined": "好的，那我就不办理了。",
    "write_failed": "很抱歉，操作没有成功：{error}",
    "done": "已完成：{text}",
    "done_change_plan": "会员资格 {membership_id} 已改为 {plan} 套餐{money}。",
    "done_charged": "，已收取 {amount} {currency}",
    "done_credited": "，{amount} {currency} 已退回您的账户余额",
    "done_freeze_membership": "会员资格 {membership_id} 已冻结 {months} 个月，冻结费 {freeze_fee} {currency} 已计入账单。",
    "done_unfreeze_membership": "会员资格 {membership_id} 已解冻。",
    "done_cancel_membership": "会员资格 {membership_id} 已取消，取消费 {fee} {currency}。",
    "done_waive_fee": "账单 {invoice_id} 上 {waived} {currency} 的滞纳金已免除。",
    "done_request_refund": "已提交账单 {invoice_id} 上 {amount} {currency} 的退款申请，需等待人工审批。",
    "already_on_plan": "您现在已经是 {plan} 套餐了。",
    "not_frozen": "会员资格 {membership_id} 目前是{status}状态，没有冻结。",
    "already_cancelled": "会员资格 {membership_id} 已经取消了。",
    "no_late_fee": "您的账单上没有未付的滞纳金。",
    "refuse_plan_inactive": "很抱歉，我无法更改会员资格 {membership_id} 的套餐：它目前是{status}状态，只有有效的会员资格才能更换套餐。",
    "refuse_downgrade": "很抱歉，我无法为会员资格 {membership_id} 降级：您在合约期内（到 {end} 为止），合约期结束后才能降级。",
    "refuse_freeze_inactive": "很抱歉，我无法冻结会员资格 {membership_id}：它目前是{status}状态，只有有效的会员资格才能冻结。",
    "refuse_freeze_limit": "很抱歉，我无法冻结会员资格 {membership_id}：您今年已经用完了每个日历年的两次冻结。",
    "refuse_cancel_fee": "很抱歉，我不能免费取消：您在合约期内（到 {end} 为止），必须支付 {fee} {currency} 的取消费，这笔费用不能免除。",
    "refuse_waiver": "很抱歉，我无法免除账单 {invoice_id} 上的滞纳金：滞纳金 12 个月内只能免除一次，而您在过去 12 个月内已经免除过一次。",
    "refuse_class": "很抱歉，我无法退还账单 {invoice_id} 上的单次团课费用：您没有已付费的团课权益。签到记录只是到访记录，不是权益。",
    "refuse_no_overcharge": "很抱歉，我无法退还账单 {invoice_id} 上的 {item_id} 项：这笔收费正确，没有多收。",
    "propose_plan": "请确认：我将把会员资格 {membership_id} 的套餐从 {current} 改为 {new}（{plan_id}）。{money}；新的月费为 {fee} {currency}。",
    "money_charge": "现在按比例收取 {amount} {currency}",
    "money_credit": "按比例退回 {amount} {currency} 到您的账户余额",
    "propose_freeze": "请确认：我将冻结会员资格 {membership_id} {months} 个月，冻结费 {fee} {currency} 将计入账单。",
    "propose_unfreeze": "请确认：我将从今天起解冻会员资格 {membership_id}，不收取任何费用。",
    "propose_cancel": "请确认：我将取消会员资格 {membership_id}。{why}",
    "cancel_in_commitment": "您在合约期内（到 {end} 为止），取消费为 {fee} {currency}。",
    "cancel_after_commitment": "您的合约期已结束，取消费为 {fee} {currency}。",
    "propose_waive": "请确认：我将免除账单 {invoice_id} 上 {amount} {currency} 的滞纳金（{item_id} 项）。",
    "propose_refund": "请确认：我将为账单 {invoice_id} 上的 {item_id} 项（{description}）申请退款 {amount} {currency}，需要人工审批。",
    "balance": "您还剩 {left} {label}（只算已付费的权益，签到记录不算）。",
    "label_guest_pass": "张访客券",
    "label_pt_session": "节私教课",
    "label_classes": "节团课",
    "dispute": "明白，您对这笔费用有异议，需要同事来复核。现在为您转接人工客服。",
    "status_active": "有效",
    "status_frozen": "冻结",
    "status_past_due": "逾期",
    "status_cancelled": "已取消",
}

PHRASINGS: dict[str, dict[str, str]] = {"en": EN, "en-2": EN_2, "en-3": EN_3, "zh": ZH}
# The rewordings (the original is "en"): each names its language after the dash.
REWORDINGS = ("en-2", "en-3", "zh")
