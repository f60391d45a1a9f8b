"""Deterministic readers of what is said in a conversation (lexicons, regular expressions and
clause structure; no model), shared by the policy guard and the offline reference agents so
that they cannot read the same words two ways."""
