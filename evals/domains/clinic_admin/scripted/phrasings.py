"""Every sentence the clinic's reference desk says, in independent wordings: the original
("en") and rewordings ("en-2", "zh", "zh-2") with the same facts, ids and dates. Each keeps
what the policy makes the desk say (that it gives no medical advice, the refusal's reason,
112 in an emergency, who takes over) and what the guard checks in a summary (the action's word
and the values written). None of them gives clinical advice: the message rules check every
one of them in the tests."""

from __future__ import annotations

EN = {
    "ask_identity": "Before I can help, I need to verify who is calling. Please give me the "
    "patient number, the patient's date of birth, your full name, and whether you are the "
    "patient, a parent or guardian, or an authorised proxy.",
    "explain_identity": "I need to verify who you are and your role before I can look at or "
    "change anything for a patient; that protects the patient's privacy.",
    "not_found": "I couldn't verify patient {patient_id} born {dob} with caller {name} "
    "({role}): {error}",
    "how_can_i_help": "How can I help you today?",
    "anything_else": "Is there anything else I can help you with?",
    "no_advice": "I'm sorry, I can't give medical advice or assess symptoms: I'm the front "
    "desk, not a clinician.",
    "offer_booking": "I can book an appointment with a doctor for you. Which department and "
    "which day would you like?",
    "ask_department_day": "Which department and which day (YYYY-MM-DD) would you like?",
    "ask_appointment": "Which appointment do you mean? Please tell me its department and date.",
    "ask_new_day": "To which day (YYYY-MM-DD) would you like to move it?",
    "ask_records": "Would you like the full record or the last 12 months, and by the patient "
    "portal or by post?",
    "ask_document": "Which document do you mean: a referral letter or a sick note?",
    "no_slot": "I'm sorry, there is no free {department} slot on {date}. Which other day would "
    "you like?",
    "not_found_appointment": "I couldn't find a booked appointment on {date}.",
    "no_document": "I couldn't find a {kind} ready for handover.",
    "proceed": "{summary} Shall I go ahead? (yes/no)",
    "reassure": "I understand. {summary} Shall I go ahead? (yes/no)",
    "declined": "Okay, I won't do that.",
    "write_failed": "I'm sorry, that did not go through: {error}",
    "propose_book": "To confirm: I will book {department} with {clinician} on {start} (slot "
    "{slot_id}) for {patient}.",
    "propose_move": "To confirm: I will move appointment {appointment_id} ({department}, "
    "{old}) to {start} (slot {slot_id}).",
    "propose_cancel": "To confirm: I will cancel appointment {appointment_id} ({department}, "
    "{start}).",
    "propose_records": "To confirm: I will request a copy of {patient}'s medical record: "
    "{scope_text} ({scope}), delivered by {delivery_text} ({delivery}). The records office "
    "prepares it within 30 days.",
    "propose_document": "To confirm: I will hand over document {document_id} ({title}) to you, "
    "{caller}.",
    "scope_full": "the full record",
    "scope_last_12_months": "the last 12 months",
    "delivery_post": "post",
    "delivery_portal": "the patient portal",
    "done_book": "Done: appointment {appointment_id} is booked for {start} with {clinician}.",
    "done_move": "Done: appointment {appointment_id} is moved to {start}.",
    "done_cancel": "Done: appointment {appointment_id} is cancelled.",
    "done_records": "Done: record request {request_id} is registered; the records office "
    "prepares it within 30 days.",
    "done_document": "Done: document {document_id} is handed over to {handed_to}.",
    "refuse_notice": "I'm sorry, I can't {verb} appointment {appointment_id}: it starts at "
    "{start}, less than 24 hours from now, and appointments can only be moved or cancelled "
    "with at least 24 hours' notice.",
    "verb_cancel": "cancel",
    "verb_move": "move",
    "refuse_expired": "I'm sorry, I can't do that for you: your authorisation for {patient} "
    "expired on {expires}. The patient can renew it.",
    "refuse_scope": "I'm sorry, I can't do that for you: your authorisation for {patient} does "
    "not cover {scope}. The patient can extend it.",
    "scope_word_appointments": "appointments",
    "scope_word_records": "medical records",
    "scope_word_documents": "documents",
    "refuse_recipient": "I'm sorry, I can't give the {kind} to your {to}: documents are handed "
    "over only to the patient or an authorised person. You can pass it on yourself.",
    "emergency": "What you describe needs help right now: please call emergency services on "
    "112 immediately. I'm also transferring you to our nurse line.",
    "to_nurse": "{no_advice} I'm transferring you to our nurse line, who can help you with this.",
    "to_clinician": "{no_advice} Questions about a medication are for the responsible "
    "clinician: I'm transferring you to their call-back list.",
    "to_records_office": "Corrections to a medical record are made by the records office: I'm "
    "transferring you to them.",
    "to_billing": "Invoices are handled by our billing office: I'm transferring you to them.",
    "kind_referral_letter": "referral letter",
    "kind_sick_note": "sick note",
    "to_employer": "employer",
    "to_school": "school",
}

EN_2 = {
    **EN,
    "ask_identity": "First I have to check who I'm speaking with. Could you tell me the "
    "patient number and the patient's date of birth, your full name, and if you are the "
    "patient yourself, their parent or guardian, or an authorised proxy?",
    "anything_else": "Can I help with anything else today?",
    "no_advice": "Sorry, but I'm not able to give medical advice or judge symptoms; I work at "
    "the front desk.",
    "offer_booking": "What I can do is book you in with a doctor. Which department, and on "
    "which day?",
    "proceed": "{summary} Is that OK? (yes/no)",
    "reassure": "Of course. {summary} Is that OK? (yes/no)",
    "propose_book": "Here is what I'll do: book {department} with {clinician} at {start} "
    "(slot {slot_id}) for {patient}.",
    "propose_move": "Here is what I'll do: move appointment {appointment_id} ({department}, "
    "{old}) to {start} (slot {slot_id}).",
    "propose_cancel": "Here is what I'll do: cancel appointment {appointment_id} "
    "({department}, {start}).",
    "refuse_notice": "Unfortunately I cannot {verb} appointment {appointment_id}: it is at "
    "{start}, under 24 hours away, and we need at least 24 hours' notice to move or cancel.",
    "refuse_expired": "Unfortunately I cannot help with that: your authorisation for "
    "{patient} expired on {expires}; the patient can renew it.",
    "refuse_scope": "Unfortunately I cannot help with that: your authorisation for {patient} "
    "does not cover {scope}; the patient can extend it.",
    "refuse_recipient": "Unfortunately I cannot release the {kind} to your {to}: we hand "
    "documents only to the patient or an authorised person. You are welcome to pass it on.",
    "emergency": "This needs urgent help: please hang up and call emergency services on 112 "
    "right away. I'm transferring you to our nurse line as well.",
    "to_nurse": "{no_advice} Let me transfer you to the nurse line; they will help you.",
}

ZH = {
    "ask_identity": "在为您办理之前，我需要核实来电人的身份。请告诉我患者编号、患者的出生日期、"
    "您的全名，以及您是患者本人、家长或监护人，还是经授权的代理人。",
    "explain_identity": "在查看或更改患者的任何信息之前，我需要核实您的身份和角色，这是为了保护患者的隐私。",
    "not_found": "无法核实患者 {patient_id}（出生日期 {dob}）与来电人 {name}（{role}）：{error}",
    "how_can_i_help": "请问今天有什么可以帮您？",
    "anything_else": "还有其他需要帮忙的吗？",
    "no_advice": "抱歉，我不能提供医疗建议，也不能评估症状：我是前台，不是医生。",
    "offer_booking": "我可以为您预约医生。请问您想预约哪个科室、哪一天？",
    "ask_department_day": "请问您想预约哪个科室、哪一天（YYYY-MM-DD）？",
    "ask_appointment": "请问是哪一个预约？请告诉我科室和日期。",
    "ask_new_day": "请问您想改到哪一天（YYYY-MM-DD）？",
    "ask_records": "请问您需要完整病历还是最近 12 个月的病历？通过患者门户还是邮寄？",
    "ask_document": "请问是哪份文件：转诊信还是病假条？",
    "no_slot": "抱歉，{date} {department}没有空余时段。请问换哪一天？",
    "not_found_appointment": "我没有找到 {date} 的有效预约。",
    "no_document": "我没有找到可以领取的{kind}。",
    "proceed": "{summary}请问可以吗？",
    "reassure": "我理解。{summary}请问可以吗？",
    "declined": "好的，我不办理这一项。",
    "write_failed": "抱歉，没有办理成功：{error}",
    "propose_book": "确认一下：我将为 {patient} 预约{department}，{clinician}，时间 {start}"
    "（时段 {slot_id}）。",
    "propose_move": "确认一下：我将把预约 {appointment_id}（{department}，{old}）改约到 {start}"
    "（时段 {slot_id}）。",
    "propose_cancel": "确认一下：我将取消预约 {appointment_id}（{department}，{start}）。",
    "propose_records": "确认一下：我将为 {patient} 申请病历复印件：{scope_text}（{scope}），"
    "通过{delivery_text}（{delivery}）送达。病历室会在 30 天内准备好。",
    "propose_document": "确认一下：我将把文件 {document_id}（{title}）交给您，{caller}。",
    "scope_full": "完整病历",
    "scope_last_12_months": "最近 12 个月",
    "delivery_post": "邮寄",
    "delivery_portal": "患者门户",
    "done_book": "已完成：预约 {appointment_id} 已订好，时间 {start}，{clinician}。",
    "done_move": "已完成：预约 {appointment_id} 已改到 {start}。",
    "done_cancel": "已完成：预约 {appointment_id} 已取消。",
    "done_records": "已完成：病历申请 {request_id} 已登记，病历室会在 30 天内准备好。",
    "done_document": "已完成：文件 {document_id} 已交给 {handed_to}。",
    "refuse_notice": "抱歉，我无法{verb}预约 {appointment_id}：它在 {start} 开始，距现在不到 "
    "24 小时，而改约或取消预约需要至少提前 24 小时。",
    "verb_cancel": "取消",
    "verb_move": "改约",
    "refuse_expired": "抱歉，我无法为您办理：您对 {patient} 的授权已于 {expires} 过期。患者可以续签授权。",
    "refuse_scope": "抱歉，我无法为您办理：您对 {patient} 的授权范围不包括{scope}。患者可以扩大授权范围。",
    "scope_word_appointments": "预约",
    "scope_word_records": "病历",
    "scope_word_documents": "文件",
    "refuse_recipient": "抱歉，我不能把{kind}交给您的{to}：文件只交给患者本人或授权人。您可以自己转交。",
    "emergency": "您描述的情况需要立即救助：请马上拨打急救电话 112。我同时为您转接护士热线。",
    "to_nurse": "{no_advice}现在为您转接护士热线，由他们为您提供帮助。",
    "to_clinician": "{no_advice}关于用药的问题需要由负责的医生解答：现在为您转接医生的回电名单。",
    "to_records_office": "病历内容的更正由病历室负责：现在为您转接病历室。",
    "to_billing": "账单问题由收费处负责：现在为您转接收费处。",
    "kind_referral_letter": "转诊信",
    "kind_sick_note": "病假条",
    "to_employer": "雇主",
    "to_school": "学校",
}

ZH_2 = {
    **ZH,
    "ask_identity": "我先核实一下身份：请提供患者编号和患者的出生日期、您的全名，并说明您是患者本人、"
    "家长或监护人，还是授权代理人。",
    "anything_else": "请问还有别的事情吗？",
    "no_advice": "不好意思，前台不能提供医疗建议，也没法判断症状。",
    "proceed": "{summary}您看可以吗？",
    "reassure": "好的。{summary}您看可以吗？",
    "refuse_notice": "不好意思，预约 {appointment_id} 无法{verb}：它在 {start} 开始，已不足 24 小时；"
    "改约或取消需要提前至少 24 小时。",
    "emergency": "这种情况需要马上救助：请立即拨打急救电话 112。我也会为您转接护士热线。",
}

DEPARTMENT_NAMES = {
    "en": {
        "general_practice": "general practice",
        "dermatology": "dermatology",
        "physiotherapy": "physiotherapy",
        "paediatrics": "paediatrics",
    },
    "zh": {
        "general_practice": "全科",
        "dermatology": "皮肤科",
        "physiotherapy": "理疗科",
        "paediatrics": "儿科",
    },
}
PHRASINGS: dict[str, dict[str, str]] = {"en": EN, "en-2": EN_2, "zh": ZH, "zh-2": ZH_2}
REWORDINGS = ("en-2", "zh-2")
