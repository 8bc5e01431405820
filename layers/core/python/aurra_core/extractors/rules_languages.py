"""Spanish, French, German, Portuguese, Dutch, Italian and Hindi written in Latin letters
("Hinglish") first-person statements, put in English words for the rules extractor, and informal
English put in plain English.

Not a translator: a phrase table for the ways people say where they live, where and as what
they work, what they use, have, like, moved to and switched to, and a small dictionary of the
nouns such facts name (pets, family, work, numbers, months, "now", "last month"). Words it does
not know stay as written, so names, places and tools pass through. A sentence is read in a
language only when its own words say so (`language_of`), never on a guess from one word.
"""

from __future__ import annotations

import re
import unicodedata

from aurra_core.extractors.base import SAID
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import FOREIGN_WEEKDAYS

# Words that mark a sentence as written in a language: at least two of them must be present,
# more than of any other, before its phrase table is used. None an English word too ("we",
# "met", "come", "non"), nor a name ("Ben", "Mia", "Al").
_MARKERS = {
    "es": set(
        "yo mi mis vivo trabajo tengo soy estoy uso usamos me mudé nos mudamos ahora el la los las "
        "y en con pero que una un del ya mes pasado año semana llamo llama somos tenemos hijos "
        "perro gato empresa equipo también muy desde hace cambié dejé empecé".split()
    ),
    "fr": set(
        "je j' j'ai j'habite mon ma mes nous notre nos suis travaille chez et le la les un une "
        "des du avec maintenant depuis mois dernier appelle utilise habite vis déménagé passé "
        "chien chat enfants équipe entreprise aussi très".split()
    ),
    "de": set(
        "ich mein meine meinen meinem meiner wir unser unsere bin habe wohne arbeite bei und "
        "der die das ein eine mit jetzt seit letzten monat heiße benutze nutze gezogen umgezogen "
        "hund katze kinder firma auch sehr nach".split()
    ),
    "pt": set(
        "eu meu minha meus minhas moro trabalho tenho sou estou uso usamos mudei agora e em no na "
        "com mas que um uma do da mês passado chamo nós nosso nossa também cachorro gato filhos "
        "empresa equipe desde mora ele ela dele dela pra pro tá então".split()
    ),
    "nl": set(
        "ik mijn wij ons onze woon wonen werk werken heb hebben zijn gebruik gebruiken "
        "verhuisd nu sinds bij het een maar ook niet meer naar vorige maand jaar heet "
        "hond kat kinderen bedrijf zit zitten nog steeds woont werkt heeft zus broer vriendin "
        "vriend vrouw moeder vader op echt te dus geen veel heel wel draait".split()
    ),
    "hi": set(
        "hai hain hoon hu hun mein mera meri ka ki ko se ne tha thi gaya gayi gaye kar diya liya yaar "
        "bhai abhi aur nahi bahut raha rahi karta karti wala wali sab yahi kya kyun toh bhi baje "
        "rehta rehti chahiye pe dekhta jaata jaati".split()
    ),
    "it": set(
        "mio miei mie noi nostro nostra abito lavoro sono sto usiamo di il nel nella cerco sera "
        "trasferito trasferita trasferiti adesso gli della del anche molto mese scorso "
        "anno settimana chiamo siamo abbiamo figli cane gatto azienda più perché è "
        "allora ancora sempre presso alla moglie marito sorella fratello madre padre ragazza "
        "gatti cani due quattro cinque chiama ho quindi sere niente tirocinio "
        "ragazzo".split()
    ),
}
_ENGLISH = set(
    "i i'm i've my we we're our the and is are in at to with now have has use live work moved "
    "um uh so ok okay lol it's that's".split()  # the fillers of English speech ("I'm 31, um no, 41")
)

# (pattern, replacement) in order, per language; patterns are matched case-insensitively.
_PHRASES: dict[str, list[tuple[str, str]]] = {
    "es": [
        (r"\bcambio de planes\b", "change of plans"),
        (r"\b(?:grandes )?novedades\b|\bnoticias\b", "news"),
        (r"\bya no vivo en\b", "I no longer live in"),
        # "ya estoy en Guadalajara": where the user is now, said as arrived
        (r"\b(?:ya|ahora) (?:estoy|vivo) en\b", "I now live in"),
        (r"\b(?:ya|ahora) (?:estamos|vivimos) en\b", "we now live in"),
        # "ya no estoy en el hospital": where the user no longer is (not where they are)
        (r"\bya no (?:estoy|sigo) (?:en|con)\b", "I'm no longer at"),
        (r"\bya no (?:estamos|seguimos) (?:en|con)\b", "we're no longer at"),
        (r"\bya no trabajo en\b", "I no longer work at"),
        (
            r"\bconsegu[ií] (?:una )?plaza en\b|\bconsegu[ií] (?:un )?(?:trabajo|curro|puesto) en\b",
            "I started working at",
        ),
        (r"\bme (?:he )?mudado a\b|\bme mudé a\b|\bme mude a\b", "I moved to"),
        (r"\bnos (?:hemos )?mudado a\b|\bnos mudamos a\b", "we moved to"),
        (r"\bme voy a mudar a\b|\bme mudo a\b|\bme estoy mudando a\b", "I'm moving to"),
        (r"\bnos vamos a mudar a\b|\bnos mudamos a\b|\bnos estamos mudando a\b", "we're moving to"),
        (r"\btengo (\d+) años\b", r"I am \1 years old"),
        (r"\bestoy trabajando (?:en|para)\b", "I'm working at"),
        (r"\bestoy viviendo en\b", "I'm living in"),
        (r"\b(?:me )?cambié de (?:empresa|trabajo|curro)\b", "I changed jobs"),
        (r"\bvivo en\b", "I live in"),
        (r"\bvivimos en\b", "we live in"),
        (r"\btrabajo (?:como|de)\b", "I work as"),
        (r"\btrabajo (?:en|para)\b", "I work at"),
        (r"\btrabajamos (?:con|en)\b", "we work with"),
        (r"\bempecé a trabajar en\b|\bempecé en\b", "I started working at"),
        (r"\bdejé (?:mi trabajo en|de trabajar en)\b", "I left my job at"),
        (r"\bdejé de\b", "I stopped"),
        (r"\bme ascendieron a\b|\bme han ascendido a\b", "I got promoted to"),
        (r"\bme cambié a\b|\bcambié a\b|\bme pasé a\b", "I switched to"),
        (r"\bcambié de (.+?) a\b", r"I switched from \1 to"),
        (r"\bnos cambiamos a\b|\bcambiamos a\b|\bnos pasamos a\b|\bmigramos a\b", "we switched to"),
        (r"\bestamos migrando a\b", "we're migrating to"),
        (r"\bme llamo\b|\bmi nombre es\b", "my name is"),
        (r"\bse llama\b|\bllamad[oa]\b", "named"),
        (r"\bya no\b", "no longer"),
        (r"\bme encanta\b|\bme encantan\b", "I love"),
        (r"\bme gusta\b|\bme gustan\b", "I like"),
        (r"\bprefiero\b", "I prefer"),
        (r"\bodio\b", "I hate"),
        (r"\busamos\b", "we use"),
        (r"\buso\b", "I use"),
        (r"\btenemos\b", "we have"),
        (r"\btengo\b", "I have"),
        (r"\bsomos\b", "we are"),
        (r"\bsoy\b", "I am"),
        (r"\bestoy\b", "I am"),
        (r"\bhablo\b", "I speak"),
        (r"\bestudio\b", "I study"),
        (r"\bjuego\b", "I play"),
        (r"\bconduzco\b|\bmanejo\b", "I drive"),
        (r"\bpago\b", "I pay"),
        (r"\bgano\b", "I earn"),
        (r"\bcompré\b", "I bought"),
        (r"\bvendí\b", "I sold"),
        (r"\bempecé\b", "I started"),
        (r"\bterminé\b", "I finished"),
        (r"\badopté\b", "I adopted"),
        (r"\bme casé\b", "I got married"),
        (r"\bvive en\b", "lives in"),
        (r"\btrabaja (?:en|para)\b", "works at"),
        (r"\bse mudó a\b", "moved to"),
        (r"\btiene\b", "has"),
        (r"\bel mes pasado\b", "last month"),
        (r"\bla semana pasada\b", "last week"),
        (r"\bel año pasado\b", "last year"),
        (r"\bel próximo mes\b|\bel mes que viene\b", "next month"),
    ],
    "fr": [
        (r"\bchangement de plans?\b", "change of plans"),
        (r"\b(?:grosse|grande) nouvelle\b|\bnouvelles\b", "big news"),
        (r"\bj'ai (\d+) ans\b", r"I am \1 years old"),
        (r"\bj'ai déménagé (?:à|a|en|au)\b|\bje me suis installée? (?:à|a|en|au)\b", "I moved to"),
        (r"\bje viens de déménager (?:à|a|en|au)\b", "I just moved to"),
        (r"\bon a déménagé (?:à|a|en|au)\b|\bnous avons déménagé (?:à|a|en|au)\b", "we moved to"),
        (r"\bje déménage (?:à|a|en|au)\b|\bje vais déménager (?:à|a|en|au)\b", "I'm moving to"),
        (r"\bon déménage (?:à|a|en|au)\b", "we're moving to"),
        (r"\bj'habite (?:à|a|en|au|aux|dans)\b|\bje vis (?:à|a|en|au|aux|dans)\b", "I live in"),
        (r"\bon habite (?:à|a|en|au|dans)\b|\bnous habitons (?:à|a|en|au|dans)\b", "we live in"),
        (r"\bje travaille (?:comme|en tant que)\b", "I work as"),
        (r"\bje travaille (?:chez|à|a|pour|au)\b", "I work at"),
        (r"\bje bosse (?:chez|à|pour)\b", "I work at"),
        (r"\bj'ai commencé (?:chez|à)\b|\bje commence (?:chez|à)\b", "I started at"),
        (r"\bj'ai quitté\b", "I left"),
        (r"\bj'ai (?:reçu|eu|obtenu)\b", "I got"),
        (r"\bje suis (.+?) chez\b", r"I am \1 at"),
        (r"\bj'ai arrêté\b", "I stopped"),
        (r"\bj'ai été promue? (?:à|au poste de)?\b", "I got promoted to"),
        (r"\bje suis passée? (?:à|sur)\b", "I switched to"),
        (r"\bon est passés? (?:à|sur)\b|\bnous sommes passés (?:à|sur)\b", "we switched to"),
        (r"\bje m'appelle\b|\bmon nom est\b", "my name is"),
        (r"\bqui s'appelle\b|\bs'appelle\b|\bnommée?\b|\bappelée?\b", "named"),
        (r"\bj'utilise\b", "I use"),
        (r"\bon utilise\b|\bnous utilisons\b", "we use"),
        (r"\bj'adore\b", "I love"),
        (r"\bj'aime\b", "I like"),
        (r"\bje préfère\b", "I prefer"),
        (r"\bje déteste\b", "I hate"),
        (r"\bje parle\b", "I speak"),
        (r"\bje joue\b", "I play"),
        (r"\bje conduis\b", "I drive"),
        (r"\bje paie\b|\bje paye\b", "I pay"),
        (r"\bje ne suis plus (?:chez|à|a|au|dans|en)\b", "I'm no longer at"),
        (r"\bje ne travaille plus (?:chez|à|a|au|pour|dans)\b", "I no longer work at"),
        (r"\bje n'habite plus (?:à|a|au|en|dans)\b", "I no longer live in"),
        (r"\bje ne (\w+) plus\b", r"I no longer \1"),
        (r"\bj'ai\b", "I have"),
        (r"\bon a\b|\bnous avons\b", "we have"),
        (r"\bje suis\b", "I am"),
        (r"\bon est\b|\bnous sommes\b", "we are"),
        (r"\bhabite (?:à|a|en|au|dans)\b", "lives in"),
        (r"\btravaille (?:chez|à|pour)\b", "works at"),
        (r"\ba déménagé (?:à|a|en|au)\b", "moved to"),
        (r"\ble mois dernier\b", "last month"),
        (r"\bla semaine dernière\b", "last week"),
        (r"\bl'année dernière\b|\bl'an dernier\b", "last year"),
        (r"\ble mois prochain\b", "next month"),
    ],
    "de": [
        (r"\bich bin (\d+)(?: jahre alt)?\b", r"I am \1 years old"),
        (r"\bich bin (.*?)nach (\S+) (?:um)?gezogen\b", r"I moved \1to \2"),
        (r"\bwir sind (.*?)nach (\S+) (?:um)?gezogen\b", r"we moved \1to \2"),
        (r"\bich ziehe (.*?)nach (\S+)(?: um)?\b", r"I'm moving \1to \2"),
        (r"\bwir ziehen (.*?)nach (\S+)(?: um)?\b", r"we're moving \1to \2"),
        (r"\b(?:und|aber) (?:jetzt )?(?:wohne|lebe) in\b", "and I live in"),
        (r"\b(?:und|aber) (?:jetzt )?arbeite (?:bei|für)\b", "and I work at"),
        (r"\b(?:und|aber) (?:jetzt )?arbeite als\b", "and I work as"),
        (r"\b(?:und|aber) habe\b", "and I have"),
        (r"\b(?:und|aber) bin\b", "and I am"),
        (r"\bich (?:wohne|lebe) (jetzt |nun |mittlerweile )?in\b", r"I live \1in"),
        (r"\bwir wohnen in\b|\bwir leben in\b", "we live in"),
        (r"\bich arbeite (jetzt )?als\b", r"I work \1as"),
        # "ich bin Embedded-Entwickler bei Siemens": one developer, where "5 Entwickler" are several
        (r"\bich bin (?:jetzt )?(?:ein |eine )?([\w-]*?)entwickler(?:in)?\b", r"I am a \1developer"),
        (r"\bich arbeite (jetzt )?(?:bei|für)\b", r"I work \1at"),
        # "seit Oktober bin ich bei Bosch": where the user works, since when
        (r"\bbin ich (jetzt )?bei\b", r"I work \1at"),
        (r"\bich habe (.*?)bei (\S+) angefangen\b", r"I started \1at \2"),
        (r"\bich habe (.*?)gekündigt\b", r"I quit \1"),
        (r"\bich wurde (.*?)befördert\b|\bich bin (.*?)befördert worden\b", r"I got promoted \1\2"),
        (r"\bich bin (?:auf|zu) (\S+) (?:umgestiegen|gewechselt)\b", r"I switched to \1"),
        (r"\bwir sind (?:auf|zu) (\S+) (?:umgestiegen|gewechselt)\b", r"we switched to \1"),
        (r"\bich habe (?:auf|zu) (\S+) gewechselt\b", r"I switched to \1"),
        (r"\bwir haben (?:auf|zu) (\S+) gewechselt\b", r"we switched to \1"),
        (r"\bich heiße\b|\bmein name ist\b", "my name is"),
        (r"\bheißt\b|\bnamens\b", "named"),
        (r"\bich benutze\b|\bich nutze\b|\bich verwende\b", "I use"),
        (r"\bwir benutzen\b|\bwir nutzen\b|\bwir verwenden\b", "we use"),
        (r"\bich liebe\b", "I love"),
        (r"\bich mag\b", "I like"),
        (r"\bich bevorzuge\b", "I prefer"),
        (r"\bich hasse\b", "I hate"),
        (r"\bich spreche\b", "I speak"),
        (r"\bich spiele\b", "I play"),
        (r"\bich fahre\b", "I drive"),
        (r"\bich zahle\b", "I pay"),
        (r"\bich habe\b|\bich hab\b", "I have"),
        (r"\bwir haben\b", "we have"),
        (r"\bich bin\b", "I am"),
        (r"\bwir sind\b", "we are"),
        (r"\bnicht mehr\b", "no longer"),
        (r"\bwohnt in\b|\blebt in\b", "lives in"),
        (r"\bist (?:jetzt )?nach (\S+) gezogen\b|\bist (?:jetzt )?nach (\S+) umgezogen\b", r"moved to \1\2"),
        (r"\barbeitet bei\b", "works at"),
        (r"\bletzten monat\b|\bletzen monat\b", "last month"),
        (r"\bletzte woche\b", "last week"),
        (r"\bletztes jahr\b", "last year"),
        (r"\bnächsten monat\b", "next month"),
    ],
    "pt": [
        (r"\bmudança de planos?\b", "change of plans"),
        (r"\b(?:grande )?novidades?\b|\bnotícias\b", "news"),
        (r"\bse mudou (?:pra|para|pro|para o|para a)\b", "moved to"),  # "minha mãe se mudou pra Floripa"
        (r"\btenho (\d+) anos\b", r"I am \1 years old"),
        (r"\bestou trabalhando (?:na|no|em|para)\b", "I'm working at"),
        (r"\bme mudei para\b|\bmudei-me para\b|\bmudei para\b", "I moved to"),
        (r"\bnos mudamos para\b|\bmudamos para\b", "we moved to"),
        (r"\bvou me mudar para\b|\bestou me mudando para\b", "I'm moving to"),
        (r"\bmoro (?:em|no|na|nos|nas)\b|\bvivo (?:em|no|na)\b", "I live in"),
        (r"\bmoramos (?:em|no|na)\b", "we live in"),
        (r"\btrabalho como\b", "I work as"),
        (r"\btrabalho (?:na|no|em|para|pra)\b", "I work at"),
        (r"\bcomecei (?:a trabalhar )?(?:na|no|em)\b", "I started at"),
        (r"\bsaí d[aoe]\b|\bdeixei (?:a|o)\b", "I left"),
        (r"\bparei de\b", "I stopped"),
        (r"\bfui promovid[oa] a\b|\bfui promovid[oa] para\b", "I got promoted to"),
        (r"\btroquei (?:o |a )?(.+?) pel[oa]\b", r"I switched from \1 to"),
        (r"\bmudei (?:para|pro|pra)\b", "I switched to"),
        (r"\bme chamo\b|\bmeu nome é\b", "my name is"),
        (r"\bque se chama\b|\bchamad[oa]\b", "named"),
        (
            r"\b(?:não|nao) (?:estou|to|tô) mais (?:na|no|em)\b|\bjá não estou (?:na|no|em)\b",
            "I'm no longer at",
        ),
        (r"\b(?:não|nao) trabalho mais (?:na|no|em|para|pra)\b", "I no longer work at"),
        (r"\b(?:não|nao) moro mais (?:na|no|em)\b", "I no longer live in"),
        (r"\bnão (\w+) mais\b", r"no longer \1"),
        (r"\busamos\b", "we use"),
        (r"\buso\b", "I use"),
        (r"\bamo\b|\badoro\b", "I love"),
        (r"\bgosto de\b", "I like"),
        (r"\bprefiro\b", "I prefer"),
        (r"\bodeio\b", "I hate"),
        (r"\bfalo\b", "I speak"),
        (r"\bjogo\b", "I play"),
        (r"\bdirijo\b", "I drive"),
        (r"\bpago\b", "I pay"),
        (r"\btemos\b", "we have"),
        (r"\btenho\b", "I have"),
        (r"\bsomos\b", "we are"),
        (r"\bsou\b", "I am"),
        (r"\bestou\b", "I am"),
        (r"\bmora (?:em|no|na)\b", "lives in"),
        (r"\btrabalha (?:na|no|em)\b", "works at"),
        (r"\bno mês passado\b|\bmês passado\b", "last month"),
        (r"\bsemana passada\b", "last week"),
        (r"\bno ano passado\b|\bano passado\b", "last year"),
        (r"\bmês que vem\b|\bpróximo mês\b", "next month"),
    ],
    "nl": [
        (r"\bgroot nieuws\b|\bnieuws\b", "news"),
        (r"\bik ben (\d+)(?: jaar(?: oud)?)?\b", r"I am \1 years old"),
        (r"\bik woon niet meer in\b", "I no longer live in"),
        (r"\bik werk niet meer (?:bij|voor|in)\b", "I no longer work at"),
        (r"\bik ben (.*?)verhuisd naar\b", r"I moved \1to"),
        (r"\b(?:we|wij) zijn (.*?)verhuisd naar\b", r"we moved \1to"),
        (r"\bik verhuis (.*?)naar\b|\bik ga (.*?)verhuizen naar\b", r"I'm moving \1\2to"),
        (
            r"\b(?:we|wij) verhuizen (.*?)naar\b|\b(?:we|wij) gaan (.*?)verhuizen naar\b",
            r"we're moving \1\2to",
        ),
        (r"\b(?:ik woon|woon ik) (nu )?in\b", r"I live \1in"),
        (r"\b(?:we|wij) wonen (nu )?in\b|\bwonen (?:we|wij) (nu )?in\b", r"we live \1\2in"),
        # "ik woon in Haarlem en werk als verpleegkundige": the second verb's "ik" left out
        (r"\b(?:en|maar) (?:ik )?werk (nu )?als\b", r"and I work \1as"),
        (r"\b(?:en|maar) (?:ik )?werk (nu )?(?:bij|voor)\b", r"and I work \1at"),
        (r"\b(?:ik werk|werk ik) (nu )?als\b", r"I work \1as"),
        (r"\b(?:ik werk|werk ik) (nu )?(?:bij|voor)\b", r"I work \1at"),
        # "sinds juni zit ik bij Telenet": where the user works
        (r"\b(?:ik zit|zit ik) (nu )?bij\b", r"I work \1at"),
        (r"\bik ben (.*?)begonnen (?:bij|als)\b", r"I started \1at"),
        (r"\bik ben (.*?)gestopt met\b", r"I \1stopped"),
        (r"\bik heb (.*?)ontslag genomen\b", r"I quit \1"),
        (r"\bik ben (.*?)(?:gepromoveerd|bevorderd) tot\b", r"I got \1promoted to"),
        (r"\bik ben (.*?)overgestapt (?:naar|op)\b", r"I \1switched to"),
        (r"\b(?:we|wij) zijn (.*?)overgestapt (?:naar|op)\b", r"we \1switched to"),
        (r"\bik heet\b|\bmijn naam is\b", "my name is"),
        (r"\bdie (?:heet|heten)\b|\bgenaamd\b", "named"),
        (r"\bik gebruik\b", "I use"),
        (r"\b(?:we|wij) gebruiken\b", "we use"),
        (r"\bik hou van\b|\bik houd van\b", "I love"),
        (r"\bik heb een hekel aan\b", "I hate"),
        (r"\bik spreek\b", "I speak"),
        (r"\bik speel\b", "I play"),
        (r"\bik rijd\b", "I drive"),
        (r"\bik betaal\b", "I pay"),
        (r"\b(?:ik heb|heb ik)\b", "I have"),
        (r"\b(?:we|wij) hebben\b|\bhebben (?:we|wij)\b", "we have"),
        (r"\b(?:ik ben|ben ik)\b", "I am"),
        (r"\b(?:we|wij) zijn\b|\bzijn (?:we|wij)\b", "we are"),
        (r"\bniet meer\b", "no longer"),
        (r"\bwoont in\b", "lives in"),
        (r"\bwerkt (?:bij|voor)\b", "works at"),
        (r"\bis (?:nu )?verhuisd naar\b", "moved to"),
        (r"\bvorige maand\b", "last month"),
        (r"\bvorige week\b", "last week"),
        (r"\bvorig jaar\b", "last year"),
        (r"\bvolgende maand\b", "next month"),
    ],
    "it": [
        (r"\bcambio di programma\b", "change of plans"),
        (r"\bnovità\b|\bnotizie\b", "news"),
        (r"\bho (\d+) anni\b", r"I am \1 years old"),
        (r"\bnon (?:abito|vivo) più (?:a|in)\b", "I no longer live in"),
        (r"\bnon lavoro più (?:da|per|presso|in|a|alla|al)\b", "I no longer work at"),
        (r"\bmi sono (.*?)trasferit[oa] (?:a|in)\b", r"I moved \1to"),
        (r"\bci siamo (.*?)trasferiti (?:a|in)\b", r"we moved \1to"),
        (r"\bmi trasferisco (.*?)(?:a|in)\b|\bmi sto trasferendo (?:a|in)\b", r"I'm moving \1to"),
        (r"\bci trasferiamo (?:a|in)\b", "we're moving to"),
        (r"\b(?:abito|vivo) (?:adesso |ora )?(?:a|in)\b", "I live in"),
        (r"\b(?:abitiamo|viviamo) (?:a|in)\b", "we live in"),
        (r"\blavoro come\b", "I work as"),
        # "lavoro da Google", not "lavoro da casa" (from home) nor "da tre anni" (for three years)
        (r"\blavoro (?:per|presso|alla|al)\b|\blavoro (?:da|a|in)\b(?= (?-i:[A-Z]))", "I work at"),
        (r"\bho iniziato (?:a lavorare )?(?:da|presso|in|a|alla|al)\b", "I started at"),
        (r"\bho lasciato\b", "I left"),
        (r"\bho smesso di\b", "I stopped"),
        (r"\bsono stat[oa] promoss[oa] a\b|\bmi hanno promoss[oa] a\b", "I got promoted to"),
        (r"\bsono passat[oa] (?:a|su)\b", "I switched to"),
        (r"\bsiamo passati (?:a|su)\b", "we switched to"),
        (r"\bmi chiamo\b|\bil mio nome è\b", "my name is"),
        (r"\bche si chiama\b|\bsi chiama\b|\bchiamat[oa]\b", "named"),
        (r"\busiamo\b", "we use"),
        (r"\buso\b", "I use"),
        (r"\badoro\b|\bamo\b", "I love"),
        (r"\bmi piace\b|\bmi piacciono\b", "I like"),
        (r"\bpreferisco\b", "I prefer"),
        (r"\bodio\b", "I hate"),
        (r"\bparlo\b", "I speak"),
        (r"\bgioco\b", "I play"),
        (r"\bguido\b", "I drive"),
        (r"\bpago\b", "I pay"),
        (r"\bnon (\w+) più\b", r"no longer \1"),
        (r"\babbiamo\b", "we have"),
        (r"\bho\b", "I have"),
        (r"\bsiamo\b", "we are"),
        (r"\bsono\b", "I am"),
        (r"\babita (?:a|in)\b|\bvive (?:a|in)\b", "lives in"),
        (r"\blavora (?:per|presso|alla|al)\b|\blavora (?:da|a|in)\b(?= (?-i:[A-Z]))", "works at"),
        (r"\bsi è trasferit[oa] (?:a|in)\b", "moved to"),
        (r"\bil mese scorso\b|\bmese scorso\b", "last month"),
        (r"\bla settimana scorsa\b", "last week"),
        (r"\bl'anno scorso\b", "last year"),
        (r"\bil mese prossimo\b", "next month"),
    ],
    # Hindi written in Latin letters, as chat mixes it with English ("Hinglish")
    "hi": [
        (r"\bmera office ([\w ]+?) mein hai\b", r"my office is in \1"),
        (r"\b(?:hamara |mera )?office shift ho (?:gaya|gayi) ([\w ]+?) mein\b", r"the office moved to \1"),
        (r"\b(?!office\b|shift\b|time\b|timing\b)(\w+) shift ho (?:gaya|gayi|gaye)\b", r"I moved to \1"),
        (r"\b(\w+(?: \w+)?) mein reh(?:ta|ti|te) (?:hu|hoon|hun|hain)\b", r"I live in \1"),
        (r"\b(\w+(?: \w+)?) mein kaam kar(?:ta|ti) (?:hu|hoon|hun)\b", r"I work at \1"),
        (r"\babhi (\d+(?:\.\d+)?) ?kg (?:hu|hoon|hun)\b", r"I weigh \1 kg now"),
        (r"\b(\d+(?:\.\d+)?) ?kg pe aa (?:gaya|gayi)\b", r"I'm down to \1 kg"),
    ],
}

_WORDS: dict[str, dict[str, str]] = {
    "es": {
        "once": "eleven", "doce": "twelve", "veinte": "twenty", "treinta": "thirty", "cien": "hundred",
        "mi": "my", "mis": "my", "nuestro": "our", "nuestra": "our", "nuestros": "our",
        "nuestras": "our", "y": "and", "en": "in", "con": "with", "para": "for", "un": "a",
        "una": "a", "el": "the", "la": "the", "los": "the", "las": "the", "de": "of", "del": "of the",
        "ahora": "now", "también": "also", "desde": "since", "perro": "dog", "perra": "dog",
        "perros": "dogs", "gato": "cat", "gata": "cat", "gatos": "cats", "hijo": "son",
        "hija": "daughter", "hijos": "kids", "hermana": "sister", "hermano": "brother",
        "madre": "mother", "mamá": "mom", "padre": "father", "papá": "dad", "esposa": "wife",
        "mujer": "wife", "marido": "husband", "esposo": "husband", "novia": "girlfriend",
        "novio": "boyfriend", "pareja": "partner", "trabajo": "job", "empresa": "company",
        "equipo": "team", "casa": "house", "piso": "apartment", "coche": "car", "carro": "car",
        "ingeniero": "engineer", "ingeniera": "engineer", "profesor": "teacher",
        "profesora": "teacher", "médico": "doctor", "médica": "doctor", "enfermero": "nurse",
        "enfermera": "nurse", "jefe": "manager", "jefa": "manager", "inglés": "English",
        "español": "Spanish", "vegetariano": "vegetarian", "vegetariana": "vegetarian",
        "vegano": "vegan", "vegana": "vegan", "años": "years", "meses": "months", "dos": "two",
        "tres": "three", "cuatro": "four", "cinco": "five", "seis": "six", "siete": "seven",
        "ocho": "eight", "nueve": "nine", "diez": "ten", "personas": "people",
        "ingenieros": "engineers", "empleados": "employees", "al": "to the", "a": "to",
        "sénior": "senior", "jefe de": "head of", "por": "for", "mes": "month",
        "trabajando": "working", "viviendo": "living", "es": "is", "está": "is", "vive": "lives",
        "trabaja": "works", "empezó": "started", "dejó": "left",
    },
    "fr": {
        "onze": "eleven", "douze": "twelve", "vingt": "twenty", "trente": "thirty", "cent": "hundred",
        "mon": "my", "ma": "my", "mes": "my", "notre": "our", "nos": "our", "et": "and",
        "à": "in", "au": "in", "en": "in", "avec": "with", "pour": "for", "un": "a", "une": "a",
        "le": "the", "la": "the", "les": "the", "l'": "the ", "de": "of", "du": "of the",
        "des": "of the", "maintenant": "now", "aussi": "also", "depuis": "since", "chien": "dog",
        "chienne": "dog", "chiens": "dogs", "chat": "cat", "chats": "cats", "fils": "son",
        "fille": "daughter", "enfants": "kids", "soeur": "sister", "sœur": "sister",
        "frère": "brother", "mère": "mother", "maman": "mom", "père": "father", "papa": "dad",
        "femme": "wife", "mari": "husband", "copine": "girlfriend", "copain": "boyfriend",
        "boulot": "job", "travail": "job", "entreprise": "company", "boîte": "company",
        "équipe": "team", "maison": "house", "appartement": "apartment", "voiture": "car",
        "ingénieur": "engineer", "ingénieure": "engineer", "professeur": "teacher",
        "prof": "teacher", "médecin": "doctor", "infirmière": "nurse", "infirmier": "nurse",
        "anglais": "English", "français": "French", "végétarien": "vegetarian",
        "végétarienne": "vegetarian", "végane": "vegan", "ans": "years", "mois": "months",
        "deux": "two", "trois": "three", "quatre": "four", "cinq": "five", "six": "six",
        "sept": "seven", "huit": "eight", "neuf": "nine", "dix": "ten", "personnes": "people",
        "ingénieurs": "engineers", "développeur": "developer", "développeuse": "developer",
        "est": "is", "vit": "lives",
    },
    "de": {
        "elf": "eleven", "zwölf": "twelve", "zwanzig": "twenty", "dreißig": "thirty", "hundert": "hundred",
        "mein": "my", "meine": "my", "meinen": "my", "meinem": "my", "meiner": "my",
        "unser": "our", "unsere": "our", "unseren": "our", "und": "and", "in": "in", "bei": "at",
        "mit": "with", "für": "for", "ein": "a", "eine": "a", "einen": "a", "der": "the",
        "die": "the", "das": "the", "den": "the", "jetzt": "now", "nun": "now",
        "mittlerweile": "now", "auch": "also", "seit": "since", "hund": "dog", "hunde": "dogs",
        "katze": "cat", "katzen": "cats", "sohn": "son", "tochter": "daughter", "kinder": "kids",
        "schwester": "sister", "bruder": "brother", "mutter": "mother", "mama": "mom",
        "vater": "father", "papa": "dad", "frau": "wife", "mann": "husband",
        "freundin": "girlfriend", "freund": "boyfriend", "job": "job", "firma": "company",
        "team": "team", "haus": "house", "wohnung": "apartment", "auto": "car",
        "ingenieur": "engineer", "ingenieurin": "engineer", "lehrer": "teacher",
        "lehrerin": "teacher", "arzt": "doctor", "ärztin": "doctor", "englisch": "English",
        "deutsch": "German", "vegetarier": "vegetarian", "vegetarierin": "vegetarian",
        "veganer": "vegan", "jahre": "years", "monate": "months", "zwei": "two", "drei": "three",
        "vier": "four", "fünf": "five", "sechs": "six", "sieben": "seven", "acht": "eight",
        "neun": "nine", "zehn": "ten", "leute": "people", "entwickler": "developers",
        "entwicklerin": "developer", "nach": "to", "als": "as", "alt": "old", "ist": "is",
        "hat": "has", "wohnt": "lives", "arbeitet": "works", "geboren": "born", "im": "in",
    },
    "pt": {
        "onze": "eleven", "doze": "twelve", "vinte": "twenty", "trinta": "thirty", "cem": "hundred",
        "meu": "my", "minha": "my", "meus": "my", "minhas": "my", "nosso": "our", "nossa": "our",
        "e": "and", "em": "in", "no": "in the", "na": "in the", "com": "with", "para": "for",
        "um": "a", "uma": "a", "o": "the", "os": "the", "as": "the", "de": "of", "do": "of the",
        "da": "of the", "agora": "now", "também": "also", "desde": "since", "cachorro": "dog",
        "cão": "dog", "cadela": "dog", "cachorros": "dogs", "gato": "cat", "gata": "cat",
        "gatos": "cats", "filho": "son", "filha": "daughter", "filhos": "kids", "irmã": "sister",
        "irmão": "brother", "mãe": "mother", "mamã": "mom", "pai": "father", "esposa": "wife", "mulher": "wife",
        "marido": "husband", "namorada": "girlfriend", "namorado": "boyfriend",
        "trabalho": "job", "emprego": "job", "empresa": "company", "equipe": "team",
        "equipa": "team", "casa": "house", "apartamento": "apartment", "carro": "car",
        "engenheiro": "engineer", "engenheira": "engineer", "professor": "teacher",
        "professora": "teacher", "médico": "doctor", "médica": "doctor", "enfermeira": "nurse",
        "inglês": "English", "português": "Portuguese", "vegetariano": "vegetarian",
        "vegetariana": "vegetarian", "vegano": "vegan", "anos": "years", "meses": "months",
        "dois": "two", "duas": "two", "três": "three", "quatro": "four", "cinco": "five",
        "seis": "six", "sete": "seven", "oito": "eight", "nove": "nine", "dez": "ten",
        "pessoas": "people", "pra": "to", "pro": "to the", "trabalhando": "working",
        "morando": "living", "é": "is", "está": "is", "mora": "lives", "trabalha": "works",
    },
    "nl": {
        "elf": "eleven", "twaalf": "twelve", "twintig": "twenty", "dertig": "thirty", "honderd": "hundred",
        "mijn": "my", "ons": "our", "onze": "our", "en": "and", "in": "in", "bij": "at",
        "met": "with", "voor": "for", "een": "a", "de": "the", "het": "the", "van": "of",
        "nu": "now", "ook": "also", "sinds": "since", "hond": "dog", "honden": "dogs",
        "kat": "cat", "katten": "cats", "poes": "cat", "zoon": "son", "dochter": "daughter",
        "kinderen": "kids", "zus": "sister", "zuster": "sister", "broer": "brother",
        "moeder": "mother", "mama": "mom", "vader": "father", "papa": "dad", "vrouw": "wife",
        "man": "husband", "vriendin": "girlfriend", "vriend": "boyfriend", "baan": "job",
        "bedrijf": "company", "team": "team", "huis": "house", "appartement": "apartment",
        "auto": "car", "ingenieur": "engineer", "leraar": "teacher", "lerares": "teacher",
        "docent": "teacher", "arts": "doctor", "dokter": "doctor", "verpleegkundige": "nurse",
        "jaar": "years", "maanden": "months", "twee": "two", "drie": "three", "vier": "four",
        "vijf": "five", "zes": "six", "zeven": "seven", "acht": "eight", "negen": "nine",
        "tien": "ten", "mensen": "people", "naar": "to", "als": "as", "is": "is",
        "heeft": "has", "woont": "lives", "werkt": "works", "op": "on", "nog": "still",
        "steeds": "still", "deze": "this", "maand": "month",
    },
    "it": {
        "undici": "eleven", "dodici": "twelve", "venti": "twenty", "trenta": "thirty", "cento": "hundred",
        "mio": "my", "mia": "my", "miei": "my", "mie": "my", "nostro": "our", "nostra": "our",
        "e": "and", "in": "in", "con": "with", "per": "for", "un": "a", "una": "a", "uno": "a",
        "il": "the", "lo": "the", "la": "the", "gli": "the", "le": "the", "di": "of",
        "del": "of the", "della": "of the", "ora": "now", "adesso": "now", "anche": "also",
        "cane": "dog", "cani": "dogs", "gatto": "cat", "gatti": "cats", "figlio": "son",
        "figlia": "daughter", "figli": "kids", "sorella": "sister", "fratello": "brother",
        "madre": "mother", "mamma": "mom", "padre": "father", "papà": "dad", "moglie": "wife",
        "marito": "husband", "ragazza": "girlfriend", "ragazzo": "boyfriend", "lavoro": "job",
        "azienda": "company", "squadra": "team", "casa": "house", "appartamento": "apartment",
        "macchina": "car", "ingegnere": "engineer", "insegnante": "teacher",
        "professore": "teacher", "professoressa": "teacher", "medico": "doctor",
        "infermiera": "nurse", "infermiere": "nurse", "anni": "years", "mesi": "months",
        "due": "two", "tre": "three", "quattro": "four", "cinque": "five", "sei": "six",
        "sette": "seven", "otto": "eight", "nove": "nine", "dieci": "ten", "persone": "people",
        "è": "is", "abita": "lives", "lavora": "works", "ancora": "still", "sempre": "always",
        "al": "at the", "alla": "at the", "insegna": "teaches", "studia": "studies",
    },
    "hi": {
        "mein": "in", "hai": "is", "hain": "are", "mera": "my", "meri": "my", "aur": "and", "abhi": "now",
        "ab": "now", "bhi": "also", "nahi": "not", "yaar": "", "bhai": "",
    },
}  # fmt: skip

# Places with an English name of their own.
_PLACES = {
    "lisboa": "Lisbon", "sevilla": "Seville", "londres": "London", "nueva york": "New York",
    "nova iorque": "New York", "münchen": "Munich", "köln": "Cologne", "wien": "Vienna",
    "genève": "Geneva", "bruxelles": "Brussels", "praga": "Prague", "varsovia": "Warsaw",
    "atenas": "Athens", "roma": "Rome", "milán": "Milan", "zürich": "Zurich", "nürnberg": "Nuremberg",
    "milano": "Milan", "torino": "Turin", "firenze": "Florence", "napoli": "Naples",
    "venezia": "Venice", "genova": "Genoa", "padova": "Padua", "den haag": "The Hague",
    "antwerpen": "Antwerp", "brussel": "Brussels", "gent": "Ghent",
}  # fmt: skip
_PLACE = re.compile(r"\b(" + "|".join(re.escape(p) for p in _PLACES) + r")\b", re.IGNORECASE)
_MONTHS = {
    "enero": "January", "febrero": "February", "marzo": "March", "abril": "April", "mayo": "May",
    "junio": "June", "julio": "July", "agosto": "August", "septiembre": "September",
    "octubre": "October", "noviembre": "November", "diciembre": "December", "janvier": "January",
    "février": "February", "mars": "March", "avril": "April", "mai": "May", "juin": "June",
    "juillet": "July", "août": "August", "octobre": "October", "novembre": "November",
    "décembre": "December", "januar": "January", "februar": "February", "märz": "March",
    "juni": "June", "juli": "July", "oktober": "October", "dezember": "December",
    "janeiro": "January", "fevereiro": "February", "março": "March", "maio": "May",
    "junho": "June", "julho": "July", "setembro": "September", "outubro": "October",
    "novembro": "November", "dezembro": "December", "januari": "January", "februari": "February",
    "maart": "March", "mei": "May", "augustus": "August", "gennaio": "January",
    "febbraio": "February", "aprile": "April", "maggio": "May", "giugno": "June",
    "luglio": "July", "settembre": "September", "ottobre": "October", "dicembre": "December",
}  # fmt: skip


_ENGLISH_DAYS = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}
# Weekdays, in any of these languages (the normaliser's table): "el pádel es los jueves",
# "Handball ist jetzt donnerstags". One word each: a sentence is translated word by word.
_DAYS: dict[str, str] = {}
for _name, _code in FOREIGN_WEEKDAYS.items():
    if " " not in _name:
        _DAYS[_name] = _ENGLISH_DAYS[_code]
        _DAYS.setdefault(_name + "s", _ENGLISH_DAYS[_code] + "s")  # "jeudis", "donnerstags", "sábados"


def _words(sentence: str) -> list[str]:
    # "i'm", "j'ai": a contraction is one word
    return re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?'?|[^\W\d_]*'", sentence.lower())


def language_of(sentence: str) -> str | None:
    """ "es", "fr", "de", "pt", "nl", "it" or "hi" when the sentence's own words say so; None for English or when
    they do not."""
    words = _words(sentence)
    if not words:
        return None
    english = sum(1 for w in words if w in _ENGLISH)
    best, hits = None, 0
    for language, markers in _MARKERS.items():
        # a marker with a letter English never writes ("déménagé", "à", "mudança") counts twice:
        # "on a déménagé à grenoble" is French, though "on" and "a" are English words too
        count = sum(1 if w.isascii() else 2 for w in words if w in markers)
        if count > hits:
            best, hits = language, count
    if best is None or hits < 2 or hits <= english:
        return None
    return best


# Words translated even when capitalised (a name is left alone otherwise: "Mi" is "my", "Porto" a city).
_ALWAYS = frozenset(
    "mi mis mein meine meinen meu minha meus minhas mon ma mes notre nos nuestro nuestra unser "
    "unsere nosso nossa ahora agora jetzt maintenant nun también aussi auch também".split()
)


def _word(match: re.Match[str], words: dict[str, str], german: bool = False) -> str:
    word = match.group(0)
    lower = word.lower()
    if lower == "no" and match.string.startswith(" longer", match.end()):
        return word  # the phrase table's own English ("no longer"), not Portuguese "no" ("in the")
    if lower in _MONTHS:
        return _MONTHS[lower]
    if lower in _DAYS:
        return _DAYS[lower]
    if lower in words and (not word[0].isupper() or lower in _ALWAYS or match.start() == 0 or german):
        return words[lower]
    return word


# The word tables' words for a relative ("mãe", "mamá", "Schwester"), as the classifier reads a
# memory kept in the user's words
RELATIVE_WORDS = frozenset(
    word for table in _WORDS.values() for word, english in table.items() if english in lex.RELATION_NOUNS
)


_TITLE_WITHOUT_ARTICLE = re.compile(
    r"\b(I am|I'm|I work as|we are)\s+(?=(?:[a-z]+\s+)?(?:"
    + "|".join(sorted(lex.ROLE_NOUNS, key=len, reverse=True))
    + r")\b)"
    r"(?!(?:a|an|the|my|our|no|not|now|still)\b)(?=([a-z]))",
)


def to_english(sentence: str, language: str) -> str:
    """The sentence with its first-person phrases and common words in English."""
    text = unicodedata.normalize("NFC", sentence)
    text = _PLACE.sub(lambda m: _PLACES[m.group(1).lower()], text)
    for pattern, replacement in _PHRASES[language]:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    words = _WORDS[language]
    # German writes every noun with a capital: there a capital says nothing of a name
    out = re.sub(r"(?<![\w'])[^\W\d_]+(?![\w'])", lambda m: _word(m, words, language == "de"), text)
    out = re.sub(r"\b(?:the|a) (my|our)\b", r"\1", out)
    # "soy enfermera", "je suis infirmière": a job said without the article English gives it
    out = _TITLE_WITHOUT_ARTICLE.sub(lambda m: f"{m.group(1)} {'an' if m.group(2) in 'aeiou' else 'a'} ", out)
    out = re.sub(r"\s+", " ", out).strip()
    return out[:1].upper() + out[1:] if out else out


# A lone "i" is the user, but not before a name, nor in a text with letters English never
# writes: there it is another language's "in" or "and" ("kör på Nordic Wellness i Sundbyberg",
# "no i sprzedałem tę skodę"), which read as "I" made "User Sundbybergs nu"
_LONE_I = re.compile(r"\bi\b(?!\s+[A-ZÀ-ÖØ-Þ])")
# (no IGNORECASE: Turkish dotless i, U+0131, would match every "i")
_OTHER_LETTERS = re.compile("[łęąśżźćńřěščžğşıåøæŁĘĄŚŻŹĆŃŘĚŠČŽĞŞİÅØÆ]")
# Informal English: contractions without apostrophes, text-speak and filler.
_INFORMAL = [
    (r"\b(?:im|Im|i'm)\b", "I'm"),
    (r"\b(?:ive|Ive|i've)\b", "I've"),
    (r"\b(?:i'll)\b", "I'll"),
    (r"\b(?:i'd)\b", "I'd"),
    (r"\bdont\b", "don't"),
    (r"\bdoesnt\b", "doesn't"),
    (r"\bdidnt\b", "didn't"),
    (r"\bcant\b", "can't"),
    (r"\bwont\b", "won't"),
    (r"\bisnt\b", "isn't"),
    (r"\barent\b", "aren't"),
    (r"\bwasnt\b", "wasn't"),
    (r"\bhavent\b", "haven't"),
    (
        r"(?<!\bwe )(?<!\bthey )(?<!\byou )(?<!\bWe )(?<!\bThey )(?<!\bYou )\bwere\s+(?=(?:moving|switching|migrating|using|now|on|at|in|based|down|up)\b)",
        "we're ",
    ),
    (r"\bgonna\b", "going to"),
    (r"\bwanna\b", "want to"),
    (r"\bgotta\b", "have to"),
    (r"\bkinda\b", "kind of"),
    (r"\b(?:cuz|coz|cos|bc|b/c)\b", "because"),
    (r"\btho\b", "though"),
    (r"\bu\b", "you"),
    (r"\bur\b", "your"),
    (r"\bw/\s?", "with "),
    (r"\bppl\b", "people"),
    (r"\bbf\b", "boyfriend"),
    (r"\bgf\b", "girlfriend"),
    (r"\bhubby\b", "husband"),
    (r"\bwifey\b", "wife"),
    (r"\bmgr\b", "manager"),
    (r"\bmo\b", "month"),
    (r"\bthx\b|\bty\b", "thanks"),
]
_FILLER = re.compile(
    r"(?:^|(?<=\s)|(?<=[,.!?]))(?:lol+|lmao|lmfao|rofl|haha+|hehe+|ngl|tbh|tbf|imo|imho|fwiw|omg|"
    r"btw|fyi|smh|ugh+|yay+|woo+|lmk|fr|xd|:\)|:\(|:d|;\))(?=$|[\s,.!?])(?P<stop>[,!.]*)",
    re.IGNORECASE,
)
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]+")


def _filler_out(found: re.Match[str]) -> str:
    before, after = found.string[: found.start()].rstrip(), found.string[found.end() :].strip()
    stop = found.group("stop")[:1]
    return f"{stop} " if stop and after and before and before[-1] not in ",.!?" else " "


def plain_english(text: str) -> str:
    """Informal English as plain English: "im on obsidian now lol" -> "I'm on obsidian now"."""
    text = _EMOJI.sub(" ", text)
    # "I got the promotion btw, I'm design lead now": the filler goes, and the comma or stop
    # after it stays where a statement goes on after it
    text = _FILLER.sub(_filler_out, text)
    text = re.sub(r"\s+([,.!])(?=\s|$)", r"\1", text)
    if not _OTHER_LETTERS.search(text):
        text = _LONE_I.sub("I", text)
    for pattern, replacement in _INFORMAL:
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"([!?.])\1+", r"\1", text)
    return re.sub(r"[ \t]+", " ", text).strip()


# English words a translated fact may keep from the sentence it was read from: the words of
# both languages (a place's "in", a name's "is") and those English speakers mix in.
_SHARED = frozenset(
    """a an the and or but of to in on at for with from by as is are was were be been am has have
    had do does did not no now still also just since last next this that these those it its their
    they them he she his her we our my me i user very much more less new old one two three four
    five six seven eight nine ten year years month months week weeks day days job team""".split()
)


def _english_words() -> frozenset[str]:
    words: set[str] = set(_SHARED) | _ENGLISH
    for table in _WORDS.values():
        for english in table.values():
            words.update(english.lower().split())
    for phrases in _PHRASES.values():
        for _, english in phrases:
            words.update(re.findall(r"[a-z']+", english.lower()))
    words.update(name.lower() for name in (*_MONTHS.values(), *_DAYS.values()))
    return frozenset(words)


_ENGLISH_WORDS = _english_words()
_EDGES = ".,;:!?()[]\"'"  # around a word, not of it


def untranslated(fact: str, original: str) -> bool:
    """Whether a fact read from a translated sentence keeps words of the user's language the
    tables did not translate: lower-case words of the original sentence that are no English
    words the tables give (names, capitalised, pass)."""
    said = {word.strip(_EDGES).lower() for word in original.split()}
    words = [word.strip(_EDGES) for word in fact.split()]
    words = [word for word in words if word.isalpha() and word.islower()]  # "Bol.com", "Lezennes" pass
    left = sum(word in said and word not in _ENGLISH_WORDS for word in words)
    # One such word may be a name written in lower case ("lives in lyon") or a word English
    # shares ("platform engineer at a fintech"); two, and a third of the fact, are not.
    return left >= 2 and left >= 0.3 * len(words)


def read_in_english(text: str) -> str:
    """A memory kept as the user said it in one of these languages ("User said: Mi sono
    trasferita a Torino ..."), as the phrase tables read it ("User said: I moved to Turin ..."),
    for what reads English only: the rules classifier and the offline embedders. The memory
    keeps the user's words. Any other text is returned as it is."""
    if not text.startswith(SAID):
        return text
    said = text[len(SAID) :]
    language = language_of(said)
    return SAID + to_english(said, language) if language else text
