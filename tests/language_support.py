"""Turns in Spanish, shared by the language-hint tests (library, CLI and web UI)."""

SPANISH = [
    "Ayer fui a la sierra con mi hermano a hacer senderismo.",
    "Mi gato Churro estuvo un poco enfermo toda la semana.",
    "Desde el lunes trabajo como enfermera en el turno de noche.",
    "Me he comprometido con Elena, nos casamos el año que viene.",
    "Me he roto la muñeca jugando al pádel con unos amigos.",
    "Elena y yo hemos adoptado una perrita galga que se llama Luna.",
]
