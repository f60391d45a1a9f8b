"""Deterministic readers of what is said in a conversation (lexicons, regular expressions and
clause structure; no model, no Django): `answers` reads a customer's answer to a proposal, and
is shared by the policy guard and the offline reference agents so that they cannot read the
same words two ways; `utterances` reads what an agent's message asks of the customer."""
