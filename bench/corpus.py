"""Deterministic, conversation-like text for the benchmarks (no download, no shared dataset).

``synthetic_turns(n, seed)`` yields ``n`` distinct chat turns (alternating user / assistant, in
sessions of ``SESSION_TURNS`` turns, one session per day) built from templates and word lists
with a seeded ``random.Random``. The first ``k`` turns of ``synthetic_turns(n)`` are the same for
every ``n >= k``. ``synthetic_queries(n, seed)`` gives ``n`` distinct questions a user might ask
about such a history.

``locomo_turns`` / ``locomo_queries`` read the shared LoCoMo dev split at run time (opt-in
``--corpus locomo``); LoCoMo has about 3,000 turns, so larger sizes are topped up with synthetic
turns.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

#: Bump when the generator changes, so cached databases are rebuilt.
CORPUS_VERSION = 2
SESSION_TURNS = 24
LOCOMO_PATH = Path("/work/shared/data/locomo-dev.json")
_START = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.split(",") if w.strip()]


PEOPLE = _words(
    """my sister Ana, my brother Tom, my mom, my dad, my grandma, my cousin Leo, my friend Maria,
    my friend Raj, my friend Chen, my roommate Sam, my coworker Priya, my boss Daniel,
    my neighbour Olga, my partner Alex, my son Noah, my daughter Mia, my uncle Pedro,
    my aunt Rosa, my old classmate Jin, my therapist, my yoga teacher, my landlord,
    my best friend Jess, my friend Kofi, my colleague Sven, my mentor Laura, my niece Emma,
    my nephew Oliver, my friend Yusuf, my friend Hana, my teammate Carlos, my doctor,
    my friend Zoe, my piano teacher, my running buddy Mark, my friend Aisha, my flatmate Ben,
    my manager Grace, my friend Tariq, my book club friends, my friend Ines, my stepdad,
    my in-laws, my friend Dmitri, my friend Lucia, my climbing partner Ravi, my friend Nora,
    my godmother, my friend Theo, my colleague Fatima"""
)
ACTIVITIES = _words(
    """hiking, baking sourdough, learning Portuguese, painting watercolors, rock climbing,
    running a half marathon, playing chess, gardening, birdwatching, knitting a scarf,
    practicing guitar, swimming laps, doing pottery, training for a triathlon, camping,
    building a bookshelf, fixing my bike, volunteering at the shelter, writing a short story,
    learning to code in Rust, making pasta from scratch, kayaking, ice skating, photography,
    journaling, meditating, salsa dancing, playing tennis, brewing kombucha,
    restoring an old chair, studying for the GRE, learning sign language, skiing, surfing,
    playing board games, cycling to work, reading fantasy novels, composting, making candles,
    practicing calligraphy, bouldering, baking birthday cakes, learning the violin,
    playing basketball, planting tomatoes, assembling a puzzle, cooking Thai curry,
    sewing a dress, doing crossword puzzles, walking the dog, lifting weights, scuba diving,
    stargazing, playing the drums, learning Japanese, decorating the nursery,
    renovating the bathroom, fostering kittens, doing improv, making ceramics, fly fishing,
    learning to drive, trail running, making jam, building a treehouse, playing volleyball,
    doing a coding bootcamp, teaching kids to swim, refinishing the floors, sketching portraits,
    learning astronomy, foraging mushrooms, playing ukulele, practicing archery,
    learning to sail, doing stand-up paddleboarding, bird photography, making sushi"""
)
PLACES = _words(
    """Lisbon, Kyoto, the lake house, Denver, the farmers market, Barcelona, the coast,
    Chicago, the mountains, Montreal, the community center, Mexico City, the old library,
    Seattle, Edinburgh, the botanical garden, Cape Town, the gym downtown, Vancouver, Berlin,
    the cabin, Austin, the art museum, Istanbul, the beach, Prague, the climbing gym, Hanoi,
    the park near work, Buenos Aires, the ski resort, Reykjavik, the bookstore cafe, Nairobi,
    the campsite, Oaxaca, the jazz club, Melbourne, the county fair, Copenhagen, the trailhead,
    Marrakesh, the wedding venue, Portland, the night market, Dublin, the harbor, Seoul,
    the vineyard, Athens, my parents' place, Toronto, the dog park, Vienna, the airport,
    San Diego, the concert hall, Bangkok, the hospital, Amsterdam, the national park,
    New Orleans, the pottery studio, Oslo, the food festival, Santiago, the rooftop bar,
    Boston, the zoo, Florence, the island, Singapore, the old town, Budapest"""
)
FOODS = _words(
    """ramen, tacos al pastor, a mushroom risotto, banana bread, pho, dumplings, paella,
    a lemon tart, shakshuka, pad thai, a vegan lasagna, croissants, fish and chips,
    a chickpea curry, bibimbap, pierogi, a peach cobbler, falafel, empanadas, sushi,
    a beef stew, tiramisu, a Greek salad, pancakes, butter chicken, ceviche, gnocchi,
    a carrot cake, miso soup, a burrito bowl, churros, lamb tagine, a pumpkin pie,
    spring rolls, mac and cheese, a poke bowl, apple strudel, jollof rice, arepas,
    a cheese fondue, baklava, a quiche, laksa, khachapuri, mole, a blueberry muffin"""
)
THINGS = _words(
    """a new laptop, a used car, a vintage camera, a standing desk, a sourdough starter,
    running shoes, a telescope, a fiddle leaf fig, an e-reader, noise-cancelling headphones,
    a rescue dog, a kitten, a record player, a bread machine, a tent, a road bike,
    a sewing machine, a drone, a kayak, a fish tank, a 3D printer, an espresso machine,
    a weighted blanket, a mechanical keyboard, a painting of the sea, a houseplant collection,
    a smartwatch, a guitar amp, a pair of hiking boots, a camping stove, a yoga mat,
    a board game, a cookbook, a winter coat, a puzzle with 2000 pieces, a film camera,
    a new phone, an air fryer, a rowing machine, a sketchbook, a bird feeder, a hammock"""
)
WHENS = _words(
    """last weekend, yesterday, this morning, on Tuesday, two weeks ago, last summer,
    over the holidays, on my birthday, last night, a few days ago, in March, this spring,
    after work on Friday, during my vacation, on Sunday afternoon, last month, at New Year,
    back in college, over Easter, right before the move, during the heat wave,
    after the conference, on our anniversary, earlier today, last autumn, in January,
    on the long weekend, before the wedding, after my exam, during the snowstorm"""
)
FEELINGS = _words(
    """really happy, a bit nervous, exhausted, proud of myself, relaxed, overwhelmed,
    so grateful, kind of lonely, excited, frustrated, calm, stressed out, inspired,
    homesick, relieved, anxious, hopeful, bored, energized, nostalgic, motivated,
    disappointed, content, curious, confident, sore but happy, a little sad, thrilled"""
)
REASONS = _words(
    """it helps me unwind, my doctor suggested it, I want to meet new people,
    it reminds me of my childhood, I need a break from screens, it keeps me fit,
    my kids love it, I want to challenge myself, it saves money, a friend got me into it,
    it is good for my back, I have more free time now, I want to impress my family,
    it makes me feel creative, work has been stressful, I promised myself this year"""
)
JOBS = _words(
    """the quarterly report, a client presentation, the product launch, a job interview,
    my performance review, the budget spreadsheet, a grant proposal, the team offsite,
    my thesis defense, a conference talk, the website redesign, a hiring panel,
    the data migration, my first week at the new job, a tricky bug in production,
    the annual audit, a workshop I am running, a promotion application"""
)
PETS = _words(
    """Biscuit, Luna, Pepper, Milo, Nala, Rocky, Mochi, Olive, Ziggy, Pumpkin, Bear, Kiwi,
    Shadow, Maple, Oscar, Willow, Tofu, Juniper, Ginger, Pickles"""
)
PET_KINDS = _words("dog, cat, rabbit, parrot, hamster, turtle, puppy, kitten, gecko, goldfish")

USER_TEMPLATES = [
    "I went {activity} with {person} in {place} {when}.",
    "{when_cap} I tried {food} at a little place in {place} and it was amazing.",
    "I've been {activity} a lot lately because {reason}.",
    "{person_cap} and I are planning a trip to {place} next month.",
    "I finally bought {thing} {when}, I'm {feeling} about it.",
    "I'm {feeling} about {job} at work.",
    "Our {pet_kind} {pet} got sick {when}, we had to go to the vet.",
    "{person_cap} taught me how to make {food} {when}.",
    "I think I want to start {activity}, {person} says it's fun.",
    "I felt {feeling} after {activity} {when}.",
    "Can you remind me what I said about {job}?",
    "{person_cap} is moving to {place}, I'll really miss them.",
    "I'm thinking of getting {thing} for {person}'s birthday.",
    "{when_cap} I spent the whole day {activity} at {place}.",
    "I can't decide between {food} and {food2} for the dinner party.",
    "My {pet_kind} {pet} loves it when we go to {place}.",
    "I had a long talk with {person} about {job} {when}.",
    "I signed up for a class on {activity} near {place}.",
    "I'm not a fan of {food}, but {person} keeps ordering it.",
    "{when_cap} was rough, I was {feeling} the whole time because of {job}.",
    "I lent {thing} to {person} {when} and haven't gotten it back.",
    "We celebrated {person}'s promotion with {food} in {place}.",
    "My goal this year is to get better at {activity} because {reason}.",
    "I met {person} at {place} {when}, we hadn't seen each other in years.",
    "I broke {thing} {when}, so I'm {feeling}.",
]
ASSISTANT_TEMPLATES = [
    "That sounds wonderful! How long have you been {activity}?",
    "It's great that you got to see {person}. What was the best part of {place}?",
    "Sorry to hear that. Do you want to talk about {job}?",
    "{food_cap} is a great choice. Did you make it yourself or go out in {place}?",
    "Noted: you bought {thing} {when}. Would you like tips on getting started with it?",
    "I'll remember that {person} is moving to {place}. Are you planning to visit?",
    "It makes sense to feel {feeling}. What would help you most right now?",
    "Good luck with {job}! Would it help to plan the next steps together?",
    "Sure. Last time you mentioned {activity} with {person} in {place}.",
    "How is {pet} the {pet_kind} doing now? I hope the vet visit went well.",
    "A class on {activity} sounds like a nice way to meet people near {place}.",
    "If {food} isn't your thing, maybe suggest {food2} next time with {person}.",
    "That's a lovely gift idea. {thing_cap} could be perfect for {person}.",
    "You said {activity} helps because {reason}. Is that still true?",
    "Reconnecting with {person} after so long must have felt {feeling}.",
    "Would you like me to keep a list of places to visit, starting with {place}?",
]
USER_TAILS = [
    "It was {when} and I was {feeling}.",
    "Next time I want to try {food}.",
    "{person_cap} came along too.",
    "Honestly I did it because {reason}.",
    "I still think about {place} a lot.",
    "Also, {job} is coming up soon.",
    "By the way, {pet} the {pet_kind} says hi.",
    "I should probably get {thing} at some point.",
    "Maybe I'll take up {activity} again.",
    "We ended up having {food} afterwards.",
]
ASSISTANT_TAILS = [
    "Let me know if you want to plan {activity} together.",
    "I'll keep that in mind next time you mention {place}.",
    "By the way, how did {job} go?",
    "Say hi to {person} for me!",
    "You could also try {food} next time.",
    "That reminds me of when you felt {feeling} {when}.",
    "Is {pet} the {pet_kind} doing okay?",
]
QUERY_TEMPLATES = [
    "When did I go {activity} with {person}?",
    "What did I eat in {place}?",
    "Why did I start {activity}?",
    "Where are {person} and I planning to travel?",
    "When did I buy {thing}?",
    "How did I feel about {job}?",
    "What happened to my {pet_kind} {pet}?",
    "Who taught me how to make {food}?",
    "What hobby did {person} suggest to me?",
    "How did I feel after {activity}?",
    "Where is {person} moving to?",
    "What gift was I considering for {person}?",
    "Which class did I sign up for near {place}?",
    "Who keeps ordering {food}?",
    "Who did I lend {thing} to?",
    "How did we celebrate {person}'s promotion?",
    "What is my goal for this year regarding {activity}?",
    "Where did I run into {person}?",
    "What did I break {when}?",
    "What did I talk about with {person} {when}?",
    "Did I ever mention {food} or {food2}?",
    "What do I like to do in {place}?",
    "What have I told you about {activity} and {thing}?",
    "Which trip with {person} did I enjoy the most?",
]


def _fill(template: str, rng: random.Random) -> str:
    food, food2 = rng.sample(FOODS, 2)
    slots = {
        "activity": rng.choice(ACTIVITIES),
        "person": rng.choice(PEOPLE),
        "place": rng.choice(PLACES),
        "when": rng.choice(WHENS),
        "food": food,
        "food2": food2,
        "thing": rng.choice(THINGS),
        "feeling": rng.choice(FEELINGS),
        "reason": rng.choice(REASONS),
        "job": rng.choice(JOBS),
        "pet": rng.choice(PETS),
        "pet_kind": rng.choice(PET_KINDS),
    }
    for key in ("person", "when", "food", "thing"):
        slots[f"{key}_cap"] = slots[key][0].upper() + slots[key][1:]
    return template.format(**slots)


def _distinct(
    templates: list[str],
    n: int,
    rng: random.Random,
    seen: set[str],
    tails: list[str] | None = None,
    tail_p: float = 0.0,
) -> Iterator[str]:
    made = 0
    while made < n:
        text = _fill(rng.choice(templates), rng)
        if tails and rng.random() < tail_p:
            text = f"{text} {_fill(rng.choice(tails), rng)}"
        for _ in range(5 if tails else 0):
            if text not in seen:
                break
            text = f"{_fill(rng.choice(templates), rng)} {_fill(rng.choice(tails or []), rng)}"
        if text in seen:
            # Combinations run out eventually: append a deterministic detail.
            text = f"{text[:-1]} (note {len(seen)})."
        if text not in seen:
            seen.add(text)
            made += 1
            yield text


def synthetic_turns(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` distinct turns ``{role, content, created_at, session_id}``, one session per day."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    users = _distinct(USER_TEMPLATES, n, rng, seen, USER_TAILS, 0.4)
    helper = _distinct(ASSISTANT_TEMPLATES, n, random.Random(seed + 1), seen, ASSISTANT_TAILS, 0.7)
    for i in range(n):
        session = i // SESSION_TURNS
        when = _START + timedelta(days=session, minutes=2 * (i % SESSION_TURNS))
        role = "user" if i % 2 == 0 else "assistant"
        out.append(
            {
                "role": role,
                "content": next(users) if role == "user" else next(helper),
                "created_at": when.isoformat(),
                "session_id": f"s{session:05d}",
            }
        )
    return out


def synthetic_queries(n: int, seed: int = 1000) -> list[str]:
    """``n`` distinct questions about a synthetic history."""
    return list(_distinct(QUERY_TEMPLATES, n, random.Random(seed), set()))


def _locomo(path: Path = LOCOMO_PATH) -> list[dict[str, Any]]:
    if not path.is_file():
        raise SystemExit(f"--corpus locomo needs {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def locomo_turns(n: int, path: Path = LOCOMO_PATH) -> list[dict[str, Any]]:
    """Up to ``n`` distinct LoCoMo turns (``speaker: text [image: caption]``), synthetic after."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for sample in _locomo(path):
        conv = sample["conversation"]
        k = 1
        while f"session_{k}_date_time" in conv:
            for t, turn in enumerate(conv.get(f"session_{k}") or []):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [image: {turn['blip_caption']}]"
                if text in seen:
                    continue
                seen.add(text)
                when = _START + timedelta(days=len(out) // SESSION_TURNS, minutes=2 * t)
                out.append(
                    {
                        "role": "user",
                        "name": turn["speaker"],
                        "content": text,
                        "created_at": when.isoformat(),
                        "session_id": f"{sample['sample_id']}-s{k:03d}",
                    }
                )
            k += 1
    out = out[:n]
    if len(out) < n:
        extra = [t for t in synthetic_turns(n) if t["content"] not in seen]
        out += extra[: n - len(out)]
    return out


def locomo_queries(n: int, path: Path = LOCOMO_PATH) -> list[str]:
    """Distinct LoCoMo questions (categories 1-4), topped up with synthetic ones."""
    out = list(
        dict.fromkeys(
            qa["question"]
            for sample in _locomo(path)
            for qa in sample["qa"]
            if qa.get("category") in (1, 2, 3, 4)
        )
    )[:n]
    if len(out) < n:
        out += [q for q in synthetic_queries(2 * n) if q not in out][: n - len(out)]
    return out


def turns(corpus: str, n: int) -> list[dict[str, Any]]:
    """``n`` turns of ``corpus`` (synthetic or locomo)."""
    return locomo_turns(n) if corpus == "locomo" else synthetic_turns(n)


def queries(corpus: str, n: int) -> list[str]:
    """``n`` distinct queries for ``corpus``."""
    return locomo_queries(n) if corpus == "locomo" else synthetic_queries(n)
