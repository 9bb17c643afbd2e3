"""Turn kinds by rules: statements, questions that ask without telling, non-answers, courtesies."""

from __future__ import annotations

import pytest

from mnemo.text.turn_kinds import classify, is_courtesy, sentences, tells_in_question


@pytest.mark.parametrize(
    ("role", "text", "kind"),
    [
        ("user", "What is my dog's name?", "question"),
        ("user", "What should I cook tonight?", "question"),
        ("user", "Wow! How did the game go?", "question"),
        ("user", "Can you suggest a name for my new beagle puppy?", "statement"),
        ("user", "I adopted a beagle called Biscuit, what should I feed him?", "statement"),
        ("user", "Since I'm vegan, what could I cook?", "statement"),
        ("assistant", "I'm not sure, could you remind me?", "non_answer"),
        ("assistant", "I don't have any information about your dog.", "non_answer"),
        ("assistant", "As an AI language model, I cannot feel emotions.", "non_answer"),
        ("assistant", "I'm not sure yet. I think I'll go hiking on Saturday.", "statement"),
        ("user", "I'm not sure, could you remind me?", "statement"),  # only assistants decline
        ("user", "Thanks! Talk to you later!", "greeting"),
        ("assistant", "Bye Joanna! Good luck!", "greeting"),
        ("user", "It's Shia Labeouf!", "statement"),  # names alone are no courtesy
        ("user", "Congratulations on Biscuit!", "greeting"),
        ("user", "我喜欢猫", "statement"),
        ("user", "   ", "greeting"),
    ],
)
def test_classify(role: str, text: str, kind: str) -> None:
    assert classify(role, text) == kind


def test_sentences_and_parts() -> None:
    assert sentences("Hi Ann! How are you?\nI moved to Lyon.") == [
        "Hi Ann!",
        "How are you?",
        "I moved to Lyon.",
    ]
    assert is_courtesy("Wow, that's great!") and not is_courtesy("I moved to Lyon.")
    assert not tells_in_question("Where did I park?")
    assert tells_in_question("Could you help with my nephew's birthday?")
