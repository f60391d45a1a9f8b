"""Every sentence the billing reference agent says, in several independent wordings: the
original ("en") and rewordings ("en-2", "en-3", "zh") with the same facts, ids and amounts.
An agent param selects one (`params={"phrasing": "en-2"}`): the same logic, the same tool
calls, other words — what a customer that understands by intent and entities must not notice.

Each wording keeps what the policy makes the agent say (the refusal's reason in the policy's
words, the approver by name and how long the decision takes, that a human team takes a
chargeback or a suspected fraud) and what the guard checks in a summary (the action's word and
the values written), in that language's words.
"""

from __future__ import annotations

from evals.domains.billing.scripted import vocab

EN = {
    "ask_identity": "Before I can help, I need to verify your identity. Could you give me the "
    "email address of your account, or your full name and the billing postcode of your card?",
    "explain_identity": "I need to verify who you are before I can look at your charges; that "
    "protects your account and your money.",
    "not_found_email": "I couldn't find an account with the email {email}.",
    "not_found_name": "I couldn't find an account for {name} with billing postcode {postcode}.",
    "ask_charge": "Which charge do you mean? Please tell me its date, the amount, the merchant "
    "shown on your statement and the last four digits of the card.",
    "charge_not_found": "I couldn't find a charge matching those details.",
    "ask_amount": "How much of the charge would you like refunded?",
    "ask_new_email": "What is the new email address?",
    "anything_else": "Is there anything else I can help you with?",
    "how_can_i_help": "How can I help you today?",
    "proceed": "{summary} Shall I proceed? (yes/no)",
    "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
    "declined": "Okay, I won't do that.",
    "write_failed": "I'm sorry, that did not go through: {error}",
    "done_request_refund": "Done: the refund request of {amount} {currency} for charge "
    "{charge_id} was sent to {approver} ({role}), who decides within {within}. No money moves "
    "until then; you will get an email with the decision.",
    "done_update_email": "Done: the email address of account {customer_id} is now {email}.",
    "refuse_holder": "I'm sorry, I can't request a refund for that charge: it is not on your "
    "account, and only the account holder can dispute a charge. The card holder needs to "
    "contact us themselves.",
    "refuse_window": "I'm sorry, I can't request a refund for the {merchant} charge of "
    "{date}: it was made {days} days ago, and charges can only be disputed within 120 days.",
    "refuse_full": "I'm sorry, I can't request a refund for the {merchant} charge of {date}: "
    "it has already been fully refunded, so nothing is left to refund.",
    "refuse_pending": "I'm sorry, I can't submit a second refund request for the {merchant} "
    "charge of {date}: a refund of {amount} {currency} is already pending approval by "
    "{approver}, who decides within {within}. A repeated request creates no second refund.",
    "refuse_currency": "I'm sorry, I can't refund the {merchant} charge in {wanted}: a refund "
    "is paid only in the currency of the charge, {currency}.",
    "refuse_balance": "I'm sorry, I can't request a refund of {wanted} {currency}: the "
    "refundable balance of the {merchant} charge is {balance} {currency} (charged {amount}, "
    "already refunded {refunded}).",
    "refuse_rehearsal": "I'm sorry, I can't request this refund: the rehearsal refused it. "
    "{problem}",
    "propose_refund": "To confirm: I will request a refund of {amount} {currency} for charge "
    "{charge_id} ({merchant}, {date}). The refund goes to {approver} ({role}) for approval, "
    "who decides within {within}.",
    "propose_email": "To confirm: I will change the email address of account {customer_id} from "
    "{old} to {new}.",
    "transfer_chargeback": "A chargeback for the {merchant} charge is already filed with your "
    "bank, so I can't request a refund; the chargeback team handles it. " + vocab.TRANSFER,
    "transfer_fraud": "Thank you for telling us. A charge you don't recognise goes to our fraud "
    "team, who will protect your card and review it. " + vocab.TRANSFER,
    "role_refunds desk": "refunds desk",
    "role_finance controller": "finance controller",
    "within": "{days} business days",
}

EN_2 = {
    **EN,
    "ask_identity": "To open your account I first have to confirm it's you. Please send me "
    "either the email you registered with, or your full name together with your card's "
    "billing postcode.",
    "explain_identity": "For your security I may only open an account once I know who I'm "
    "talking to.",
    "not_found_email": "There's no account registered under {email}.",
    "not_found_name": "{name} with postcode {postcode} doesn't match any of our accounts.",
    "ask_charge": "Could you describe the charge: when it was made, how much, the merchant on "
    "the statement, and the card's last four digits?",
    "charge_not_found": "No charge matches that description.",
    "ask_amount": "What amount should be refunded?",
    "ask_new_email": "Which email address should we use from now on?",
    "anything_else": "Can I help with something else?",
    "how_can_i_help": "What can I do for you?",
    "proceed": "{summary} Would you like me to go ahead?",
    "reassure": "No problem. {summary} Would you like me to go ahead?",
    "declined": "All right, I'll leave it as it is.",
    "write_failed": "Unfortunately the system rejected that: {error}",
    "done_request_refund": "All set: I've sent the {amount} {currency} refund request for "
    "charge {charge_id} to {approver} ({role}); you'll hear the decision within {within}. "
    "Nothing is paid out before that.",
    "done_update_email": "All set: the email of account {customer_id} is now {email}.",
    "refuse_holder": "Unfortunately I can't refund that one: the charge isn't on your account, "
    "and only the account holder can dispute a charge.",
    "refuse_window": "Unfortunately I can't refund the {merchant} charge from {date}: it is "
    "{days} days old, and a charge can only be disputed within 120 days.",
    "refuse_full": "Unfortunately I can't refund the {merchant} charge from {date}: it was "
    "already fully refunded.",
    "refuse_pending": "Unfortunately I can't file another refund for the {merchant} charge "
    "from {date}: {amount} {currency} is already pending with {approver}, who decides within "
    "{within}. Asking again creates no second refund.",
    "refuse_currency": "Unfortunately I can't pay that refund in {wanted}: refunds go out only "
    "in the currency of the charge, which is {currency}.",
    "refuse_balance": "Unfortunately I can't refund {wanted} {currency}: only {balance} "
    "{currency} is left as the refundable balance of the {merchant} charge (charged {amount}, "
    "{refunded} refunded already).",
    "refuse_rehearsal": "Unfortunately I can't file it; the sandbox rehearsal rejected it. "
    "{problem}",
    "propose_refund": "Here's what I'd do: request a refund of {amount} {currency} on charge "
    "{charge_id} ({merchant}, {date}), to be approved by {approver} ({role}) within {within}.",
    "propose_email": "Here's what I'd do: change the email of account {customer_id} from {old} "
    "to {new}.",
    "transfer_chargeback": "Your bank already has a chargeback filed for the {merchant} "
    "charge, so I can't refund it here; our chargeback team takes it from here. " + vocab.TRANSFER,
    "transfer_fraud": "Thanks for flagging it. Charges you don't recognise go to our fraud "
    "team, who will secure your card and look into it. " + vocab.TRANSFER,
}

EN_3 = {
    **EN,
    "ask_identity": "First, let me verify you: what's the email on your account? Or give me "
    "your first and last name and the billing postcode.",
    "ask_charge": "Tell me about the charge, please: the date, the amount, the merchant as it "
    "appears on the statement, and the last 4 digits of the card it was on.",
    "ask_amount": "How much do you want back?",
    "proceed": "{summary} OK to go ahead?",
    "reassure": "Sure. {summary} OK to go ahead?",
    "done_request_refund": "I've submitted the refund request: {amount} {currency} for charge "
    "{charge_id}, now waiting for {approver} ({role}), who decides within {within}. You'll get "
    "an email then.",
    "propose_refund": "I'm about to request a refund of {amount} {currency} for charge "
    "{charge_id} ({merchant} on {date}); {approver} ({role}) approves it within {within}.",
    "propose_email": "I'm about to change the email of account {customer_id} from {old} to {new}.",
    "anything_else": "Anything else I can do?",
}

ZH = {
    "ask_identity": "在帮助您之前，我需要核实您的身份。请提供您账户的邮箱地址，或您的全名和卡的账单邮编。",
    "explain_identity": "在查看您的扣款之前，我需要先核实您的身份；这是为了保护您的账户和资金。",
    "not_found_email": "我没有找到邮箱为 {email} 的账户。",
    "not_found_name": "我没有找到姓名为 {name}、账单邮编为 {postcode} 的账户。",
    "ask_charge": "您指的是哪一笔扣款？请告诉我扣款日期、金额、账单上显示的商户以及卡号后四位。",
    "charge_not_found": "我没有找到与这些信息相符的扣款。",
    "ask_amount": "您希望退还这笔扣款中的多少金额？",
    "ask_new_email": "新的邮箱地址是什么？",
    "anything_else": "还有什么可以帮您的吗？",
    "how_can_i_help": "请问今天有什么可以帮您？",
    "proceed": "{summary}是否继续？",
    "reassure": "我理解。{summary}是否继续？",
    "declined": "好的，我不会办理。",
    "write_failed": "抱歉，操作没有成功：{error}",
    "done_request_refund": "已完成：扣款 {charge_id} 的 {amount} {currency} 退款申请已提交给 "
    "{approver}（{role}），将在 {within}内决定。在此之前不会转出任何资金；决定结果会通过邮件通知您。",
    "done_update_email": "已完成：账户 {customer_id} 的邮箱现在是 {email}。",
    "refuse_holder": "抱歉，我无法为这笔扣款申请退款：它不在您的账户上，只有账户持有人才能对扣款提出异议。请持卡人本人联系我们。",
    "refuse_window": "抱歉，我无法为 {date} 的 {merchant} 扣款申请退款：这笔扣款是 {days} 天前的，扣款只能在 120 天内提出异议。",
    "refuse_full": "抱歉，我无法为 {date} 的 {merchant} 扣款申请退款：它已全额退款，没有可退的金额。",
    "refuse_pending": "抱歉，我不能为 {date} 的 {merchant} 扣款再提交一次退款申请：一笔 {amount} {currency} "
    "的退款已在审批中，由 {approver} 在 {within}内决定。重复的请求不会产生第二笔退款。",
    "refuse_currency": "抱歉，我无法以 {wanted} 退还 {merchant} 的扣款：退款只以扣款的原币种 {currency} 支付。",
    "refuse_balance": "抱歉，我无法申请 {wanted} {currency} 的退款：{merchant} 扣款的可退余额是 {balance} "
    "{currency}（扣款 {amount}，已退款 {refunded}）。",
    "refuse_rehearsal": "抱歉，我无法申请这笔退款：沙箱演练未通过。{problem}",
    "propose_refund": "确认一下：我将为扣款 {charge_id}（{merchant}，{date}）申请退款 {amount} {currency}，"
    "由 {approver}（{role}）审批，将在 {within}内决定。",
    "propose_email": "确认一下：我将把账户 {customer_id} 的邮箱从 {old} 改为 {new}。",
    "transfer_chargeback": "{merchant} 这笔扣款您的银行已经提出了拒付，所以我无法申请退款；由拒付团队处理。"
    "正在为您转接人工客服，请稍候。",
    "transfer_fraud": "感谢您告诉我们。您不认识的扣款由我们的反欺诈团队处理，他们会保护您的卡并进行核查。"
    "正在为您转接人工客服，请稍候。",
    "role_refunds desk": "退款服务台",
    "role_finance controller": "财务主管",
    "within": "{days} 个工作日",
}

PHRASINGS: dict[str, dict[str, str]] = {"en": EN, "en-2": EN_2, "en-3": EN_3, "zh": ZH}
REWORDINGS = ("en-2", "en-3", "zh")
