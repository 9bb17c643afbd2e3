"""The closed word lists the clause reader (:mod:`mnemo.text.parsed_facts`) decides with.

Words are compared lower case, as written (the parser runs without a lemmatizer, so a verb's
forms are listed). Each list is one decision: who a pronoun can stand for, which verbs make a
clause a hedge or a courtesy rather than a statement, which feelings say nothing on their own.
"""

from __future__ import annotations

#: The listener: a clause naming them is about them, or a courtesy.
SECOND_PERSON = frozenset(["you", "your", "yours", "yourself", "yourselves", "ya", "y'all", "u"])
#: "We" (and "us") said by the user, as a fact writes it: who the others are is not said, nor
#: how many ("we" of a couple, of a family, of a team), so neither is written.
WE = "User and one or more others"
#: First-person words and their third-person forms when the clause is about the user ("my"
#: -> "their") and when it is about someone else ("my" -> "User's").
FIRST_PERSON = {
    "i": ("they", "User"),
    "me": ("them", "User"),
    "my": ("their", "User's"),
    "mine": ("theirs", "User's"),
    "myself": ("themselves", "User"),
    "we": ("they", WE),
    "us": ("them", WE),
    "our": ("their", "User's"),
    "ours": ("theirs", "User's"),
    "ourselves": ("themselves", WE),
}
#: Verbs of a hedge, a courtesy, reported speech or an acknowledgement: their clause (and
#: what it reports) is not a fact of the speaker's life.
HEDGES = frozenset({
    "think", "thought", "thinking", "guess", "guessed", "hope", "hoping", "hoped", "wish",
    "wished", "wishing", "wonder", "wondering", "wondered", "bet", "suppose", "believe",
    "imagine", "mean", "meant", "agree", "appreciate", "thank", "thanks", "know", "knew",
    "feel", "felt", "feeling", "say", "said", "tell", "told", "telling", "ask", "asked",
    "need", "needed", "needs", "asking", "remembering", "reminded", "reminds", "recommend",
    "worry", "worries", "worried",
    "suggest", "promise", "understand", "hear",
    "heard", "realize", "realized", "remember", "admit", "glad", "forget",
    "forgot", "let", "please", "apologize", "apologise", "figure", "figured", "doubt", "reckon",
    "assume", "expect", "relate", "check", "look", "wait", "share",
    "shared", "send", "sent", "show", "showed", "post", "posted", "catch",
})  # fmt: skip
#: Auxiliaries of a hypothetical, a duty or advice.
MODALS = frozenset([
    "would", "could", "should", "might", "may", "must", "'d", "shall", "ought", "gotta", "got",
])  # fmt: skip
#: Auxiliaries of a plan: kept only with a time ("next month", "tomorrow").
FUTURE = frozenset(["will", "'ll", "wo", "gon", "gonna"])
#: Feelings and states that say nothing about the speaker's life on their own ("I'm so
#: excited", "I've been busy", "I'm good").
FEELINGS = frozenset({
    "happy", "glad", "sad", "excited", "sorry", "tired", "fine", "good", "great", "ok", "okay",
    "busy", "nervous", "proud", "thrilled", "grateful", "thankful", "lucky", "sure", "certain",
    "afraid", "scared", "worried", "bored", "surprised", "shocked", "touched", "moved", "stoked",
    "pumped", "psyched", "relieved", "curious", "interested", "amazed", "impressed", "blessed",
    "awesome", "well", "alright", "right", "cool", "fantastic", "amazing", "wonderful",
    "ready", "done", "back", "here", "there", "off", "new", "free", "around", "keen", "down",
    "confident", "determined", "inspired", "overwhelmed", "elated", "ecstatic", "bummed",
    "stressed", "upset", "angry", "mad",
    "frustrated", "eager", "delighted", "honored", "honoured", "humbled", "content", "jealous",
    "speechless", "sick", "exhausted", "hungry", "sleepy", "late", "early", "wrong", "serious",
    "aware", "open", "positive", "hopeful", "optimistic", "motivated", "energized",
})  # fmt: skip
#: Words that leave a clause's point unresolved when they are one of its arguments.
VAGUE = frozenset({
    "it", "this", "that", "these", "those", "them", "him", "her", "one", "ones", "stuff",
    "something", "anything", "everything", "nothing", "things", "thing", "lots", "there",
    "here", "which", "what", "whatever", "all", "same", "such", "so", "more", "some", "any",
    "someone", "anyone", "everyone", "nobody", "somebody", "everybody", "others", "other",
    "both", "either", "neither", "'em", "em", "another", "few", "couple",
})  # fmt: skip
#: Verbs that say nothing without an argument ("I'm doing well", "I got it").
LIGHT = frozenset({
    "be", "am", "'m", "is", "are", "was", "were", "been", "being", "have", "'ve", "has", "had",
    "do", "does", "did", "done", "doing", "get", "got", "gets", "getting", "gotten", "go",
    "goes", "went", "going", "gone", "make", "made", "making", "keep", "kept", "try", "tried",
    "trying", "come", "came", "coming", "take", "took", "taking", "want", "wanted", "wants",
    "like", "love", "enjoy", "start", "started", "stop", "stopped",
})  # fmt: skip
#: Openers that carry no content: dropped from the front of a clause.
DISCOURSE = frozenset({
    "well", "so", "oh", "ah", "also", "actually", "anyway", "anyways", "honestly", "yeah",
    "yes", "no", "ok", "okay", "btw", "ugh", "wow", "hey", "hi", "hello", "lol", "haha",
    "plus", "and", "but", "or", "then", "besides", "now", "though", "yep", "nope", "sure",
    "basically", "literally", "seriously", "man", "omg", "gosh", "yay", "aw", "aww", "hmm",
    "um", "uh", "alright", "right", "indeed", "totally", "definitely", "really", "just",
})  # fmt: skip
#: Adverbs that stay with the verb when a clause opens with them ("Now I live in Seattle" ->
#: "User now lives in Seattle").
WITH_VERB = frozenset({
    "now", "currently", "still", "recently", "just", "finally", "also", "already", "always",
    "never", "usually", "often", "sometimes", "rarely", "mostly", "officially",
    "eventually", "lately", "nowadays", "even", "mainly", "occasionally", "regularly",
})  # fmt: skip
#: People a pronoun can stand for, by the noun that names them: he / she.
MALE = frozenset({
    "husband", "boyfriend", "son", "brother", "dad", "father", "grandpa", "grandfather",
    "uncle", "nephew", "fiance", "stepdad", "stepson", "stepbrother", "grandson", "bf",
    "hubby", "boy", "guy", "man", "papa", "pops",
})  # fmt: skip
FEMALE = frozenset({
    "wife", "girlfriend", "daughter", "sister", "mom", "mother", "grandma", "grandmother",
    "aunt", "niece", "fiancee", "stepmom", "stepdaughter", "stepsister", "granddaughter", "gf",
    "wifey", "girl", "lady", "mum", "mama", "mommy",
})  # fmt: skip
#: Family words: "we" in a turn that names one is "User and their family".
FAMILY = MALE | FEMALE | frozenset({
    "kids", "kid", "children", "child", "family", "partner", "spouse", "parents", "twins",
    "baby", "toddler", "son", "daughter", "husband", "wife",
})  # fmt: skip
#: First words of a yes/no question without its question mark ("Do you ...", "Have you ...").
QUESTION_OPENERS = frozenset({
    "do", "does", "did", "have", "has", "had", "is", "are", "was", "were", "can", "could",
    "would", "will", "should", "shall", "may", "might", "am", "whats", "what's", "how's",
    "anything", "any",
})  # fmt: skip

#: Verbs of talk and company after a feeling ("glad to hear", "happy to help"): courtesy.
CHATTER = frozenset({
    "hear", "see", "help", "meet", "chat", "talk", "read", "know", "be", "have", "say", "tell",
    "share", "catch", "connect", "learn", "hearing", "seeing", "helping", "chatting", "talking",
})  # fmt: skip
#: Verbs of an attempt: what is tried is not yet a fact ("User is trying to stay positive").
ATTEMPTS = frozenset(["try", "tries", "tried", "trying", "attempt", "attempting", "struggling"])
#: Idioms of a mood ("User is over the moon", "User is on fire").
MOOD_IDIOMS = (
    "over the moon",
    "on fire",
    "on cloud nine",
    "in a good place",
    "on top of the world",
    "on the same page",
    "on a roll",
    "all set",
    "up for it",
)
#: Verbs of getting or making: without their object (in another clause) they say nothing.
TAKING = frozenset({
    "got", "get", "gets", "made", "make", "makes", "took", "take", "takes", "bought", "buy",
    "brought", "found", "gave", "give", "put",
})  # fmt: skip
#: Phrasal verbs that say nothing without an object ("User is not giving up").
BARE_IDIOMS = frozenset(["giving", "give", "gave", "pushing", "push", "hanging", "hang"])
#: Verbs of a wish: what is wished must name a thing ("User wants to help make a difference").
WISHES = frozenset(["want", "wants", "wanted", "wanting", "wanna", "hope", "wish"])
#: Adverbs of a hope or a guess: the clause is not yet a fact ("Hopefully, I can ...").
HEDGE_ADVERBS = frozenset(["hopefully", "maybe", "perhaps", "probably", "possibly"])
#: Words of VAGUE that before a noun count rather than point ("another team", "a few talks").
COUNTING = frozenset(["another", "few", "couple", "some", "both"])
#: Verbs of a taste: with a definite object and no name ("I love the colors") a reaction.
TASTES = frozenset(
    [
        "love",
        "loves",
        "loved",
        "like",
        "likes",
        "liked",
        "adore",
        "enjoy",
        "enjoyed",
        "enjoys",
        "appreciate",
        "dig",
    ]
)
#: A user's messages in a chat ("my next prompt", "my last question"): remarks about the chat.
CHAT_NOUNS = frozenset({
    "prompt", "prompts", "question", "questions", "message", "messages", "request", "requests",
    "query", "queries", "reply", "replies", "input", "instructions",
})  # fmt: skip
#: Verbs that say what the user meant in the chat ("I'm referring to the buses").
MEANING_VERBS = frozenset(["refer", "refers", "referring", "referred", "meant"])
#: What an assistant offers ("I love the tofu ideas"): a taste for these is a remark on it.
SUGGESTIONS = frozenset({
    "idea", "ideas", "tip", "tips", "suggestion", "suggestions", "recommendation",
    "recommendations", "option", "options", "example", "examples", "answer", "answers",
    "response", "responses", "list", "outline", "text", "version", "wording", "rewrite",
})  # fmt: skip
#: Nouns that "the" names without the turn: one of a kind ("explore the world").
ONE_OF_A_KIND = frozenset({
    "world", "internet", "news", "weather", "ocean", "sea", "sky", "outdoors", "environment",
    "planet", "universe", "sun", "moon", "stars", "wild", "countryside", "future", "past",
})  # fmt: skip
#: Nouns that, as an unnamed "the X", point at something the conversation named: a work, an
#: event, a plan or a thing shown ("the themes in the film", "the historical accuracy of the
#: show", "the budget for the entire trip").
DISCOURSE_NOUNS = frozenset({
    "show", "shows", "film", "films", "movie", "movies", "book", "books", "series", "episode",
    "episodes", "trip", "event", "events", "project", "projects", "topic", "topics", "story",
    "stories", "genre", "article", "articles", "post", "posts", "recipe", "recipes", "dish",
    "idea", "ideas", "plan", "plans", "game", "games", "experience", "course", "program",
    "product", "products", "item", "items", "model", "models", "option", "options", "list",
    "app", "software", "tool", "tools", "platform", "website", "site", "song", "album",
    "novel", "suggestion",
    "suggestions", "tips", "tip", "advice", "question", "answer", "method", "approach",
})  # fmt: skip
#: Verbs of a choice still open: what is chosen between must be named ("deciding on the
#: coffee beans" is a choice among what the turn listed).
CHOOSING = frozenset(["deciding", "decide", "leaning", "choosing", "torn", "debating"])
#: Verbs of spending: an amount with nothing it is spent on says little ("willing to spend
#: around $40").
SPENDING = frozenset(["spend", "spending", "spent", "pay", "paying", "budget", "budgeting"])
#: Nouns that after "this" or "that" make a purpose ("this way I can ...").
PURPOSE_NOUNS = frozenset(["way"])
#: Nouns that after "no" make an idiom, not a fact ("no idea", "no worries", "no problem").
NO_IDIOMS = frozenset(["idea", "clue", "problem", "problems", "worries", "doubt", "way", "clues"])
#: Verbs that after "can" make empathy or impatience ("I can picture it", "I can't wait").
CAN_HEDGES = frozenset({
    "see", "picture", "imagine", "tell", "understand", "relate", "feel", "hear", "wait",
    "believe", "stop", "thank", "totally", "only",
})  # fmt: skip
#: Adjectives that compare with what the turn said ("a similar experience", "the same thing").
RELATIVE_ADJ = frozenset(["similar", "same", "other", "such", "different", "exact"])
#: Statuses spelt like feelings (read as facts: "User is married", "User is retired").
STATUSES = frozenset({
    "married", "divorced", "engaged", "widowed", "retired", "employed", "unemployed",
    "vaccinated", "qualified", "certified", "based", "related", "adopted", "separated",
    "self-employed", "allergic", "licensed", "trained", "registered", "enrolled",
})  # fmt: skip
#: Adjectives of a hedge before a statement ("I'm sure ...", "I'm afraid ...").
HEDGE_STATES = frozenset(["sure", "certain", "afraid", "confident", "positive", "glad", "hopeful"])
#: Possessives of someone the clause does not name ("their support", "his idea").
OTHERS_POSS = frozenset(["their", "his", "her", "its", "whose"])
#: Irregular pasts, to tell "Got a new bike" (the speaker's) from a command.
PAST_FORMS = frozenset({
    "got", "went", "made", "took", "had", "saw", "bought", "found", "met", "ran", "began",
    "came", "won", "lost", "left", "built", "wrote", "read", "spent", "sold", "drove", "flew",
    "gave", "kept", "taught", "grew", "broke", "caught", "brought", "heard", "sent", "fell",
    "ate", "swam", "rode", "sang", "drew", "became", "did", "felt", "thought", "told", "quit",
})  # fmt: skip
#: Present forms that end like an irregular past ("overmade" is none, but "remade"...):
#: words the past-form check must leave alone.
PAST_BASES = frozenset(["read", "reread", "spread", "bread", "thread", "quit", "upset"])
#: Openers of several words that carry nothing ("On another note, I ...").
DISCOURSE_PHRASES = (
    "on another note", "on a different note", "on a side note", "by the way",
    "speaking of which", "in fact", "for example", "to be honest", "guess what",
    "you know what", "in other news", "fun fact",
)  # fmt: skip
#: Nouns and adjectives that say nothing on their own ("make a difference", "do their best").
STOCK = frozenset({
    "difference", "best", "effort", "efforts", "lot", "lots", "way", "ways", "time", "times",
    "thing", "things", "stuff", "fun", "blast", "progress", "journey", "feeling", "feelings",
    "chance", "bit", "deal", "kind", "sort", "part", "moment", "moments",
    "hard", "much", "many", "more", "most", "few", "little", "whole", "sure", "able", "own",
    "lease", "life", "dreams", "dream", "passion", "goals", "point", "idea", "ideas", "step",
    "project", "plan", "plans", "fan", "opportunity", "challenge", "adventure", "goal",
    "options", "experience", "surge", "energy", "purpose", "mix", "fingers", "heart",
    "hearts", "self", "huge", "big", "great", "real", "true", "impact", "people", "news",
    "positive", "world", "others", "cheers", "story", "stories", "details", "setback",
    "ambition", "ambitions", "comfort", "memory", "memories", "attitude", "balance", "unknown",
    "help", "support", "motivation", "inspiration", "confidence", "courage", "strength",
    "hope", "joy", "happiness", "peace", "growth", "success", "failure", "challenges",
    "struggle", "struggles", "risk", "risks", "results", "future", "past", "experiences",
    "opportunities", "decision", "choice", "choices", "mind", "head", "emotions", "mood",
    "vibe", "vibes", "situation", "issue", "issues", "problem", "problems", "update",
    "updates", "path", "steps", "change", "changes", "meaning", "copy", "picture", "photo",
    "pic", "pics", "thought", "thoughts", "setbacks", "attention", "care", "advice", "tips",
    "recommendations", "suggestions", "recommendation", "suggestion", "tip", "rut",
})  # fmt: skip
#: People and pets a pronoun can stand for ("my sister ... she", "our twins ... they").
PEOPLE = MALE | FEMALE | FAMILY | frozenset({
    "friend", "friends", "pet", "pets", "dog", "dogs", "cat", "cats", "puppy", "kitten",
    "colleague", "colleagues", "coworker", "coworkers", "teammate", "teammates", "roommate",
    "neighbor", "neighbour", "neighbors", "neighbours", "boss", "cousin", "cousins", "fam",
    "grandparents", "in-laws", "bestie", "buddy", "mentor", "teacher", "coach", "students",
})  # fmt: skip
#: Prepositions of a place ("in the mountains", "to Oregon").
PLACE_PREPS = frozenset(["to", "in", "at", "on", "near", "from", "around", "across", "through"])
#: Nouns of a time: "this month", "that summer" point at no thing.
TIME_NOUNS = frozenset({
    "morning", "afternoon", "evening", "night", "day", "week", "weekend", "month", "year",
    "summer", "winter", "spring", "fall", "autumn", "time", "season", "semester", "term",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekday",
})  # fmt: skip

__all__ = [
    "ATTEMPTS",
    "BARE_IDIOMS",
    "CAN_HEDGES",
    "CHATTER",
    "CHAT_NOUNS",
    "COUNTING",
    "DISCOURSE",
    "DISCOURSE_PHRASES",
    "FAMILY",
    "FEELINGS",
    "FEMALE",
    "FIRST_PERSON",
    "FUTURE",
    "HEDGES",
    "HEDGE_ADVERBS",
    "HEDGE_STATES",
    "LIGHT",
    "MALE",
    "MEANING_VERBS",
    "MODALS",
    "MOOD_IDIOMS",
    "NO_IDIOMS",
    "OTHERS_POSS",
    "PAST_BASES",
    "PAST_FORMS",
    "PEOPLE",
    "PLACE_PREPS",
    "QUESTION_OPENERS",
    "RELATIVE_ADJ",
    "SECOND_PERSON",
    "STATUSES",
    "STOCK",
    "SUGGESTIONS",
    "TAKING",
    "TASTES",
    "TIME_NOUNS",
    "VAGUE",
    "WE",
    "WISHES",
    "WITH_VERB",
]
