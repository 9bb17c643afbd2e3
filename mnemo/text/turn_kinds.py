"""What a chat turn is, by rules: a statement that tells something, or talk that does not.

Four kinds, decided sentence by sentence (:func:`mnemo.text.sentences.sentences`):

* ``non_answer``: an assistant turn that only declines, does not know or asks to be reminded
  ("I'm not sure, could you remind me?", "I don't have any information about that.");
  its other sentences, if any, are questions or courtesies;
* ``greeting``: every sentence is a courtesy: greetings, thanks, farewells and bare
  acknowledgements ("Hey Mel!", "Thanks, that's great!", "Talk soon!");
* ``question``: a turn that asks without telling: every sentence is a question or a
  courtesy, and no question says anything about the speaker (see :func:`tells_in_question`);
* ``statement``: anything else. A turn that tells even one thing is a statement.

A question tells when a first-person pronoun is used other than to ask about oneself: "Can you
suggest a name for my new puppy?" tells (there is a new puppy), "What is my dog's name?" and
"What should I cook?" do not. The rules never look at the conversation, only at one turn.
"""

from __future__ import annotations

import re
from typing import Literal

from mnemo.text.sentences import sentences

TurnKind = Literal["statement", "question", "non_answer", "greeting"]
#: Every kind, in the order of :data:`TurnKind`.
TURN_KINDS: tuple[TurnKind, ...] = ("statement", "question", "non_answer", "greeting")

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

#: Words that make a sentence a courtesy: greetings, thanks, farewells, praise, fillers.
_COURTESY_CORE = frozenset(
    [
        "hi",
        "hey",
        "hello",
        "hiya",
        "howdy",
        "yo",
        "heya",
        "morning",
        "evening",
        "afternoon",
        "night",
        "good",
        "great",
        "cool",
        "nice",
        "awesome",
        "amazing",
        "wow",
        "woah",
        "whoa",
        "oh",
        "ah",
        "aw",
        "aww",
        "haha",
        "hahaha",
        "hehe",
        "lol",
        "yeah",
        "yes",
        "yep",
        "yup",
        "nope",
        "nah",
        "ok",
        "okay",
        "sure",
        "thanks",
        "thank",
        "thx",
        "bye",
        "goodbye",
        "later",
        "soon",
        "cheers",
        "congrats",
        "congratulations",
        "glad",
        "happy",
        "fun",
        "wonderful",
        "fantastic",
        "lovely",
        "sweet",
        "care",
        "welcome",
        "pleasure",
        "sorry",
        "worries",
        "anytime",
        "luck",
        "enjoy",
        "agreed",
        "exactly",
        "indeed",
        "true",
        "super",
        "incredible",
        "impressive",
        "beautiful",
        "gorgeous",
        "cute",
        "love",
    ]
)
#: Words a courtesy may hold besides its core words ("Thanks so much for that!").
_COURTESY_GLUE = frozenset(
    [
        "you",
        "so",
        "much",
        "very",
        "see",
        "ya",
        "talk",
        "to",
        "hear",
        "that",
        "that's",
        "thats",
        "it's",
        "its",
        "sounds",
        "too",
        "again",
        "really",
        "totally",
        "absolutely",
        "definitely",
        "right",
        "well",
        "hmm",
        "um",
        "uh",
        "my",
        "bad",
        "no",
        "problem",
        "all",
        "the",
        "best",
        "hope",
        "doing",
        "have",
        "a",
        "day",
        "weekend",
        "catch",
        "up",
        "chat",
        "chatting",
        "long",
        "time",
        "of",
        "course",
        "same",
        "here",
        "me",
        "i'm",
        "im",
        "what's",
        "whats",
        "up",
        "how",
        "how's",
        "hows",
        "going",
        "been",
        "guys",
        "it",
        "i'll",
        "ill",
        "let",
        "know",
        "for",
        "your",
        "this",
        "is",
        "and",
        "take",
        "alright",
        "tomorrow",
        "wait",
        "can't",
        "cant",
        "let's",
        "lets",
        "always",
        "here",
        "there",
        "us",
        "we",
        "our",
        "keep",
        "posted",
        "on",
    ]
)
#: Phrases that say the speaker does not know, cannot help, or needs reminding.
_NON_ANSWER = re.compile(
    r"\b(?:i(?:'|’)?m|i am) (?:not sure|not certain|unsure|unable to|afraid i|sorry,? but i)"
    r"|\bi (?:do not|don(?:'|’)?t|can(?:'|’)?t|cannot|could not|couldn(?:'|’)?t) "
    r"(?:know|recall|remember|say|tell|find|help|access|answer|see)"
    r"|\bi (?:do not|don(?:'|’)?t) have (?:any |enough |that |the )?"
    r"(?:information|info|details|record|records|memory|memories|access|context|data)"
    r"|\bi have no (?:information|idea|record|records|memory|memories|way of knowing|access)"
    r"|\b(?:could|can|would) you (?:please )?remind me\b"
    r"|\byou (?:haven(?:'|’)?t|have not|didn(?:'|’)?t|did not) (?:told|tell|mentioned|mention"
    r"|shared|share|said|say)"
    r"|\bas an ai\b|\bno idea\b|\bnot sure\b",
    re.IGNORECASE,
)

#: "what is my ...", "where was my ...": a question about the speaker's own things.
_ASKS_ABOUT_MY = re.compile(
    r"\b(?:what|which|who|whom|whose|where|when|why|how)\b(?:[\w'’ ]{0,20}?)\s+"
    r"(?:is|was|are|were|'s|’s)\s+(?:my|our)\b"
    r"|\b(?:what|which|who|where|when|how)(?:'|’)s (?:my|our)\b",
    re.IGNORECASE,
)
#: "do I", "did we", "should I", "what's my" -- the pronoun after a verb asks about the speaker.
_ASKS_ABOUT_I = re.compile(
    r"\b(?:do|did|does|have|has|had|am|was|were|are|is|can|could|should|shall|will|would"
    r"|may|might|must)(?:n(?:'|’)?t)? (?:i|we)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours)\b|\bi(?:'|’)", re.I)


def is_courtesy(sentence: str) -> bool:
    """True for a short sentence (at most 8 words) of courtesy words holding at least one
    greeting, thanks, farewell or praise word, and at most two capitalised names.

    "Hey Mel!", "Thanks so much!", "Talk soon!" and "Wow, that's great!" are courtesies; "It's
    Shia Labeouf!" is not (no courtesy in it).
    """
    words = _WORD.findall(sentence)
    if not words or len(words) > 8:
        return False
    core = names = 0
    for i, w in enumerate(words):
        low = w.lower().replace("’", "'")
        if low in _COURTESY_CORE:
            core += 1
        elif low in _COURTESY_GLUE:
            continue
        elif i > 0 and w[:1].isupper() and names < 2:
            names += 1
        else:
            return False
    return core > 0


def tells_in_question(sentence: str) -> bool:
    """True when a question says something about its speaker: a first-person pronoun used
    other than in "what is my ..." or "do I ..." ("Can you suggest toys for my nephew?")."""
    rest = _ASKS_ABOUT_I.sub(" ", _ASKS_ABOUT_MY.sub(" ", sentence))
    return bool(_FIRST_PERSON.search(rest))


def classify(role: str | None, content: str) -> TurnKind:
    """The kind of one turn (see the module docstring); ``role`` is the turn's role."""
    parts = sentences(content)
    if not parts:
        return "greeting"
    declined = False
    asked = False
    for s in parts:
        if role == "assistant" and _NON_ANSWER.search(s):
            declined = True
        elif s.endswith("?"):
            if tells_in_question(s):
                return "statement"
            asked = True
        elif not is_courtesy(s):
            return "statement"
    if declined:
        return "non_answer"
    return "question" if asked else "greeting"


__all__ = ["TURN_KINDS", "TurnKind", "classify", "is_courtesy", "sentences", "tells_in_question"]
