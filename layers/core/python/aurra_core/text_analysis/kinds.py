"""Kinds of things and their instances, so that candidate search can meet "editor" with "Emacs".

A fact about a user's editor and a later one naming another editor share no word ("User writes
code in Emacs" / "User's editor is now VS Code"), and a small embedding model often misses that
they are about the same thing. Each kind below is a list of phrases: the words that name the
kind, then well-known instances of it. A fact that mentions any phrase of a kind is about that
kind; candidate search then also looks at the memories that mention any phrase of the same kind
(`store.find_candidates`), ranked by the embedder.

Written from general knowledge, never from an evaluation set's texts; which areas were missing
(homes, pay, papers, contacts, dietary laws, plans changing) was read off the development set's
misses (`evals/candidates_dev.jsonl`), never off the acceptance set. Words that are as often something
else ("edge", "golf" the car, "swift" the adjective, "train" the verb, "C++", which PostgreSQL
reads as the letter "c") are left out: a kind only lifts candidates the embedder already finds
alike, but one that matches everything lifts nothing in particular.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

from aurra_core.text_analysis.rules_lexicon import COUNTRIES, REGIONS

_CITIES = """amsterdam athens atlanta auckland austin bangalore bangkok barcelona beijing belfast
belgrade berlin bern bogota bologna bordeaux boston brisbane bristol brussels bucharest budapest
buenos-aires cairo calgary cape-town casablanca chicago copenhagen dallas delhi denver detroit
doha dubai dublin dusseldorf edinburgh florence frankfurt geneva glasgow gothenburg hamburg hanoi
helsinki ho-chi-minh-city honolulu houston istanbul jakarta johannesburg karachi kolkata krakow
kuala-lumpur kyiv kyoto lagos las-vegas leeds lima lisbon liverpool ljubljana london los-angeles
lyon madrid manchester manila marseille melbourne mexico-city miami milan minneapolis montreal
moscow mumbai munich nairobi nantes naples new-delhi new-orleans new-york new-york-city
nashville oakland osaka oslo ottawa oxford palo-alto paris perth philadelphia phoenix pittsburgh
portland porto prague quebec-city reykjavik riga rio-de-janeiro rome rotterdam sacramento
salt-lake-city san-diego san-francisco san-jose santiago sao-paulo seattle seoul seville
shanghai shenzhen singapore sofia stockholm stuttgart sydney taipei tallinn tel-aviv the-hague
tokyo toronto toulouse turin valencia vancouver venice vienna vilnius warsaw washington-dc
wellington zagreb zurich nyc sf""".split()

_DOGS = (
    "dog dogs puppy puppies pup retriever golden-retriever labrador labradoodle poodle beagle "
    "corgi terrier spaniel bulldog dachshund husky greyhound german-shepherd chihuahua pug collie "
    "border-collie schnauzer shiba-inu doodle"
).split()
_CATS = "cat cats kitten kittens siamese tabby maine-coon ragdoll sphynx".split()
_BIRDS = "bird birds parrot parrots budgie cockatiel canary macaw".split()

KINDS: dict[str, list[str]] = {
    # software and devices
    "editor": (
        "editor editors ide text-editor code-editor vim neovim nvim emacs vs-code vscode "
        "visual-studio-code visual-studio sublime sublime-text intellij pycharm webstorm goland "
        "clion xcode nano notepad++ helix zed eclipse netbeans android-studio bbedit textmate "
        "gedit jetbrains cursor-editor kate"
    ).split(),
    "browser": (
        "browser browsers web-browser chrome google-chrome chromium firefox safari microsoft-edge "
        "brave opera vivaldi arc-browser internet-explorer tor-browser"
    ).split(),
    "operating_system": (
        "operating-system os windows windows-10 windows-11 macos mac-os osx linux ubuntu fedora "
        "debian arch-linux linux-mint centos rhel red-hat chromeos ios android ipados freebsd nixos "
        "pop!_os manjaro"
    ).split(),
    "phone": (
        "phone phones smartphone cellphone cell-phone mobile-phone iphone pixel galaxy oneplus "
        "xperia nokia motorola huawei xiaomi fairphone android-phone samsung galaxy-s24 galaxy-s23"
    ).split(),
    "computer": (
        "laptop laptops notebook-computer computer desktop pc workstation macbook macbook-pro "
        "macbook-air imac mac-mini thinkpad xps chromebook zenbook latitude dell lenovo asus acer "
        "razer-blade surface-pro surface-laptop"
    ).split(),
    "tablet": "tablet ipad galaxy-tab surface-go e-reader ereader kindle kobo nook remarkable".split(),
    "wearable": (
        "watch smartwatch smart-watch fitness-tracker wearable apple-watch fitbit garmin whoop "
        "oura galaxy-watch pixel-watch"
    ).split(),
    "programming_language": (
        "programming-language language languages python rust golang java javascript typescript "
        "ruby kotlin scala haskell elixir erlang clojure php perl lua julia dart zig ocaml "
        "fortran cobol"
    ).split(),
    "framework": (
        "framework react vue angular svelte django flask fastapi rails ruby-on-rails spring "
        "laravel express.js nextjs next.js"
    ).split(),
    "cloud": (
        "cloud cloud-provider hosting aws amazon-web-services azure gcp google-cloud heroku "
        "digitalocean linode vercel netlify cloudflare hetzner ovh oracle-cloud ibm-cloud"
    ).split(),
    "database": (
        "database databases db postgresql postgres mysql mariadb sqlite mongodb mongo redis "
        "dynamodb cassandra sql-server snowflake bigquery elasticsearch supabase firebase"
    ).split(),
    "messaging": (
        "messaging messenger messaging-app chat whatsapp signal telegram slack microsoft-teams "
        "discord imessage wechat viber google-chat sms text-message"
    ).split(),
    "video_call": "video-call videocall zoom google-meet webex skype facetime".split(),
    "email": (
        "email e-mail mail inbox gmail outlook proton-mail protonmail yahoo-mail hotmail icloud-mail fastmail"
    ).split(),
    "tracker": (
        "issue-tracker tracker project-management ticketing tickets jira linear asana trello "
        "clickup monday.com basecamp youtrack github-issues"
    ).split(),
    "notes": "notes note-taking notion evernote obsidian onenote apple-notes roam bear-notes".split(),
    "task_manager": (
        "task-manager to-do-list todo-list todo-app todoist ticktick things-3 omnifocus microsoft-to-do "
        "any.do remember-the-milk google-tasks sunsama akiflow"
    ).split(),
    "helpdesk": (
        "helpdesk help-desk support-desk ticketing-system zendesk intercom freshdesk help-scout "
        "gorgias kayako zoho-desk"
    ).split(),
    "website_platform": (
        "blog-platform website-builder cms wordpress wordpress.com ghost substack squarespace wix "
        "webflow hugo jekyll tumblr beehiiv shopify woocommerce bigcommerce"
    ).split(),
    "music_production": (
        "daw garageband ableton ableton-live logic-pro fl-studio pro-tools cubase reaper bitwig studio-one"
    ).split(),
    "cad": "cad autocad archicad revit sketchup vectorworks solidworks fusion-360 rhino3d".split(),
    "video_editor": (
        "video-editor premiere premiere-pro final-cut final-cut-pro davinci-resolve imovie capcut lumafusion"
    ).split(),
    "budgeting_app": (
        "budgeting-app budget-app ynab you-need-a-budget mint monarch-money copilot-money goodbudget "
        "pocketguard emma-app"
    ).split(),
    "newsletter_tool": "newsletter-tool mailchimp convertkit kit.com buttondown mailerlite".split(),
    "code_hosting": "repository repo repos github gitlab bitbucket".split(),
    "crm": "crm salesforce hubspot pipedrive zoho".split(),
    "accounting_software": (
        "accounting-software bookkeeping quickbooks xero freshbooks sage freeagent myob wave-accounting "
        "zoho-books kashflow"
    ).split(),
    "design_tool": "design-tool figma sketch photoshop illustrator canva".split(),
    "photo_editor": "photo-editor lightroom lightroom-classic capture-one darktable luminar".split(),
    "password_manager": "password-manager 1password lastpass bitwarden dashlane keepass".split(),
    "cloud_storage": "cloud-storage dropbox google-drive onedrive icloud-drive box.com".split(),
    "social_media": (
        "social-media twitter instagram facebook tiktok linkedin mastodon bluesky reddit youtube snapchat"
    ).split(),
    "music_streaming": (
        "music-streaming spotify apple-music tidal deezer youtube-music pandora soundcloud"
    ).split(),
    "video_streaming": (
        "streaming-service netflix hulu disney+ disney-plus hbo-max prime-video apple-tv paramount+ peacock"
    ).split(),
    "theme": "theme dark-mode light-mode dark-theme light-theme".split(),
    "keyboard_layout": "keyboard-layout qwerty dvorak colemak azerty".split(),
    # vehicles and getting around
    "car": (
        "car cars vehicle vehicles auto automobile suv sedan hatchback pickup pickup-truck "
        "minivan ev electric-car honda toyota tesla ford subaru bmw audi mercedes mercedes-benz "
        "volkswagen vw nissan mazda hyundai kia volvo chevrolet chevy jeep lexus porsche fiat "
        "peugeot renault skoda rivian polestar land-rover range-rover jaguar dodge cadillac buick "
        "gmc acura infiniti mitsubishi citroen opel byd lucid civic corolla camry prius accord "
        "outback forester model-3 model-y model-s f-150 mustang rav4 cr-v wrangler miata"
    ).split(),
    "two_wheeler": (
        "motorcycle motorbike scooter moped e-bike ebike bike bicycle vespa harley harley-davidson "
        "ducati kawasaki"
    ).split(),
    "transport": (
        "commute commutes commuting transport transit public-transport car bus tram subway metro "
        "underground bike bicycle cycling cycles scooter carpool ferry taxi uber lyft drives "
        "driving"
    ).split(),
    "airline": (
        "airline airlines carrier lufthansa klm air-france british-airways delta united-airlines "
        "american-airlines southwest jetblue alaska-airlines ryanair easyjet emirates qatar-airways "
        "singapore-airlines japan-airlines air-canada qantas iberia swiss-air turkish-airlines "
        "virgin-atlantic aer-lingus wizz-air etihad"
    ).split(),
    "lodging": (
        "hotel hotels lodging accommodation marriott hilton hyatt ihg holiday-inn airbnb "
        "four-seasons sheraton westin accor novotel ibis best-western vrbo booking.com hostel motel"
    ).split(),
    # money
    "bank": (
        "bank banks banking checking-account savings-account chase jpmorgan wells-fargo "
        "bank-of-america citi citibank hsbc barclays lloyds natwest santander monzo revolut n26 "
        "capital-one td-bank deutsche-bank bnp-paribas usaa pnc rbc scotiabank "
        "commonwealth-bank anz westpac nubank starling credit-union"
    ).split(),
    "brokerage": (
        "brokerage broker investing investments index-funds vanguard fidelity schwab "
        "charles-schwab robinhood etrade interactive-brokers wealthfront betterment "
        "trading-212 degiro"
    ).split(),
    "payment_method": (
        "payment-method card cards credit-card debit-card visa mastercard amex american-express "
        "paypal apple-pay google-pay venmo zelle klarna bank-transfer wire-transfer "
        "direct-debit sepa ach invoice invoices invoicing pay-by-invoice purchase-order net-30 "
        "net-60 payment-terms"
    ).split(),
    "plan": (
        "plan tier subscription free-plan free-tier basic-plan starter premium enterprise "
        "pro-plan pro-tier business-plan team-plan upgrade upgraded downgrade downgraded "
        "subscribed unsubscribed trial free-trial"
    ).split(),
    # food and drink
    "diet": (
        "diet vegan vegetarian pescatarian keto ketogenic paleo carnivore flexitarian halal kosher "
        "gluten-free low-carb dairy-free plant-based omnivore intermittent-fasting whole30"
    ).split(),
    "animal_food": (
        "meat fish seafood dairy eggs beef pork chicken lamb bacon ham turkey steak sausage "
        "salmon tuna shrimp vegan vegetarian pescatarian carnivore omnivore"
    ).split(),
    "caffeine": (
        "caffeine coffee espresso latte cappuccino americano flat-white decaf tea matcha energy-drink"
    ).split(),
    "alcohol": (
        "alcohol drinking beer wine whisky whiskey vodka gin rum tequila cocktail cocktails sake "
        "teetotal sober sobriety"
    ).split(),
    "nuts": "nut nuts peanut peanuts almond almonds cashew cashews walnut walnuts pecan hazelnut pistachio".split(),
    "gluten": "gluten wheat bread pasta barley rye celiac coeliac".split(),
    "dairy": "dairy lactose milk cheese butter yogurt yoghurt cream".split(),
    "allergy": "allergy allergies allergic intolerance intolerant anaphylaxis epipen".split(),
    "spice": "spicy spice spices chili chilli hot-sauce jalapeno jalapenos sriracha".split(),
    # animals
    "pet": [
        *"pet pets animal animals rabbit rabbits bunny hamster guinea-pig goldfish aquarium".split(),
        *"turtle tortoise snake lizard gecko ferret horse pony".split(),
        *_DOGS,
        *_CATS,
        *_BIRDS,
    ],
    "dog": _DOGS,
    "cat": _CATS,
    "bird": _BIRDS,
    # places and people
    "place": [
        "city",
        "town",
        "country",
        "hometown",
        *(c.replace("-", " ") for c in _CITIES),
        # "us" is as often the pronoun
        *(country for country in COUNTRIES if country != "us"),
        *REGIONS,
    ],
    "human_language": (
        "language languages native-language mother-tongue fluent english spanish french german "
        "italian portuguese dutch swedish norwegian danish finnish polish czech russian ukrainian "
        "greek turkish arabic hebrew hindi bengali urdu japanese korean chinese mandarin cantonese "
        "vietnamese thai indonesian malay tagalog swahili persian farsi punjabi tamil catalan "
        "welsh"
    ).split(),
    "partner": (
        "partner spouse wife husband girlfriend boyfriend fiance fiancee married marriage "
        "wedding engaged divorced"
    ).split(),
    "relationship_status": "single dating engaged married divorced separated widowed relationship".split(),
    "children": "kids kid children child son sons daughter daughters baby toddler newborn".split(),
    "parents": "parents mother father mom mum dad".split(),
    "siblings": "siblings sibling brother brothers sister sisters".split(),
    "job": (
        "job role position profession occupation career title engineer developer programmer "
        "designer manager nurse doctor physician teacher accountant lawyer attorney paramedic "
        "analyst consultant architect scientist researcher writer journalist chef pilot "
        "pharmacist electrician plumber founder cto cfo ceo director product-manager intern "
        "freelancer contractor unemployed job-hunting job-search job-seeking laid-off new-job"
    ).split(),
    "employer": (
        "employer company startup google alphabet microsoft amazon meta facebook netflix ibm "
        "oracle salesforce shopify stripe uber spotify intel nvidia deloitte accenture mckinsey"
    ).split(),
    "degree": (
        "degree diploma bachelor bachelors bachelor's master masters master's mba phd doctorate bsc msc"
    ).split(),
    "university": (
        "university college mit stanford harvard oxford cambridge berkeley yale princeton ucla "
        "caltech eth columbia cornell nyu ucl imperial-college epfl carnegie-mellon cmu upenn duke "
        "northwestern mcgill waterloo georgia-tech uni grad-school community-college"
    ).split(),
    # pastimes
    "sport": (
        "sport sports exercise workout workouts gym fitness tennis squash badminton football soccer "
        "basketball baseball volleyball cricket rugby hockey swimming cycling climbing bouldering "
        "surfing skiing snowboarding boxing yoga pilates weightlifting crossfit jogging marathon "
        "marathons triathlon padel pickleball table-tennis martial-arts judo karate fencing rowing "
        "hiking"
    ).split(),
    "gym": (
        "gym gyms gym-membership fitness-club health-club leisure-centre climbing-gym bouldering-gym "
        "puregym the-gym-group planet-fitness anytime-fitness equinox virgin-active david-lloyd "
        "nuffield-health gold's-gym la-fitness 24-hour-fitness crunch-fitness orangetheory f45 "
        "snap-fitness basic-fit mcfit smart-fit fitness-first jetts goodlife-fitness life-time-fitness "
        "ymca blink-fitness"
    ).split(),
    "instrument": (
        "instrument instruments piano guitar violin cello viola drums flute clarinet saxophone "
        "trumpet trombone ukulele harp banjo accordion oboe"
    ).split(),
    "music_genre": (
        "music genre jazz rock classical hip-hop rap lo-fi lofi metal blues techno edm reggae "
        "folk punk indie r&b opera"
    ).split(),
    "hobby": (
        "hobby hobbies pastime painting drawing knitting crochet gardening photography pottery "
        "woodworking baking gaming chess fishing birdwatching camping sewing calligraphy "
        "knit needlework embroidery cross-stitch quilting "
        "cooking video-games board-games puzzles crosswords sudoku scrapbooking origami"
    ).split(),
    # home, money and papers
    "home": (
        "home house apartment flat condo townhouse studio rent rents renting renter lease landlord "
        "mortgage homeowner roommate roommates housemate"
    ).split(),
    "address": (
        "address home-address mailing-address shipping-address street avenue road lane boulevard "
        "zip-code postcode postal-code"
    ).split(),
    "pay": (
        "salary salaries income wage wages paycheck pay-rise raise bonus compensation earns "
        "earning per-hour hourly-rate day-rate"
    ).split(),
    "budget": "budget budgets spending savings".split(),
    "insurance": (
        "insurance insurer insurance-policy premium deductible health-insurance car-insurance "
        "life-insurance geico allstate state-farm progressive aetna cigna coverage blue-cross "
        "blue-shield kaiser kaiser-permanente unitedhealthcare humana anthem bupa"
    ).split(),
    "currency": (
        "currency usd eur gbp jpy cad aud chf dollars euros pounds sterling yen rupees bitcoin"
    ).split(),
    "identity_document": (
        "passport passports travel-document travel-documents identity-document citizen "
        "citizenship nationality visa visas green-card residency "
        "resident permanent-resident work-permit driver's-license drivers-license id-card"
    ).split(),
    "travel_program": (
        "global-entry tsa-precheck precheck nexus frequent-flyer miles air-miles "
        "loyalty-program elite-status lounge skymiles mileageplus aadvantage avios"
    ).split(),
    "seat": "seat-preference aisle window-seat aisle-seat exit-row legroom economy business-class first-class premium-economy".split(),
    "contact": (
        "contact point-of-contact main-contact account-manager account-executive champion "
        "stakeholder decision-maker liaison"
    ).split(),
    "phone_number": "phone-number mobile-number cell-number landline".split(),
    "dietary_law": "halal kosher pork ham bacon lard gelatin shellfish".split(),
    "meal": "breakfast brunch lunch dinner supper snack snacks meal meals".split(),
    # devices and work tools beyond the above
    "audio": ("headphones earbuds earphones airpods headset sonos bose noise-cancelling").split(),
    "smart_home": (
        "smart-home smart-speaker alexa echo google-home nest homepod thermostat ring-doorbell "
        "philips-hue homekit"
    ).split(),
    "game_console": (
        "console game-console playstation ps4 ps5 xbox nintendo nintendo-switch steam-deck gaming-pc"
    ).split(),
    "camera": "camera cameras dslr mirrorless canon nikon fujifilm gopro leica".split(),
    "shell": "shell terminal bash zsh fish-shell powershell iterm tmux".split(),
    "dev_tooling": (
        "docker kubernetes k8s terraform ansible jenkins circleci github-actions gha gitlab-ci "
        "travis git mercurial"
    ).split(),
    "workplace": (
        "office remote remotely hybrid on-site onsite in-office wfh work-from-home coworking headquarters hq "
        "co-working hot-desk wework regus industrious second-home"
    ).split(),
    "department": (
        "department engineering marketing sales finance hr human-resources legal customer-success"
    ).split(),
    "units": "metric imperial celsius fahrenheit kilometers miles kilograms pounds".split(),
    "sleep": "sleep sleeps bedtime wakes-up early-bird night-owl nap naps insomnia".split(),
    "reading": "book books novel novels author authors reading audiobook audiobooks kindle podcast podcasts".split(),
    "tv_film": "tv television tv-show tv-shows series film films movie movies documentary anime sitcom".split(),
    # time
    "weekday": "weekday weekdays workweek work-week weekend weekends monday tuesday wednesday thursday friday saturday sunday".split(),
    "meeting": "meeting meetings standup stand-up sync one-on-one check-in call calls".split(),
    "timezone": [
        *(
            "timezone time-zone pst pdt pacific-time est edt eastern-time cst central-time mst "
            "mountain-time utc gmt cet cest bst ist jst aest local-time daylight-saving dst "
            "america/new_york america/chicago america/denver america/los_angeles america/toronto "
            "america/sao_paulo europe/london europe/dublin europe/lisbon europe/paris europe/berlin "
            "europe/madrid europe/amsterdam europe/stockholm europe/warsaw europe/moscow "
            "asia/tokyo asia/seoul asia/shanghai asia/singapore asia/kolkata asia/dubai "
            "australia/sydney australia/melbourne pacific/auckland"
        ).split(),
        # people name a time zone by its city: "on Lisbon time", "9am London time"
        *(f"{city} time" for city in _CITIES),
    ],
    # the kinds below: areas an assistant's memories are often about, from general knowledge
    "reply_style": (
        "concise verbose brief terse succinct detailed in-depth step-by-step bullet-points "
        "bullet-point bulleted short-answers long-answers tone formal informal casual emoji emojis "
        "summary summaries tl;dr replies responses long-form short-form answer-length "
        "response-length"
    ).split(),
    "code_style": (
        "indentation indent indents tabs spaces two-spaces four-spaces 2-space 4-space "
        "snake_case camelcase camel-case pascalcase kebab-case semicolons trailing-commas "
        "line-length formatter linter prettier eslint ruff flake8 pylint rubocop gofmt "
        "type-hints type-annotations docstrings"
    ).split(),
    "package_manager": (
        "package-manager npm yarn pnpm pip pipenv poetry conda cargo homebrew "
        "maven gradle bundler composer nuget"
    ).split(),
    "test_framework": "test-framework testing-framework pytest unittest jest vitest mocha junit rspec cypress playwright selenium".split(),
    "monitoring": (
        "monitoring observability alerting datadog grafana prometheus sentry new-relic "
        "pagerduty opsgenie splunk honeycomb cloudwatch"
    ).split(),
    "ai_assistant": (
        "ai-assistant chatbot chatgpt gpt-4 gpt-4o claude copilot github-copilot gemini perplexity cursor llm"
    ).split(),
    "office_docs": (
        "spreadsheet spreadsheets excel google-sheets airtable word-processor "
        "microsoft-word ms-word google-docs latex overleaf markdown powerpoint keynote "
        "google-slides slides slide-deck"
    ).split(),
    "calendar": "calendar calendars google-calendar outlook-calendar ical calendly fantastical".split(),
    "vpn": "vpn nordvpn expressvpn mullvad protonvpn tailscale wireguard openvpn".split(),
    "search_engine": "search-engine google-search bing duckduckgo kagi ecosia".split(),
    "maps": "maps navigation google-maps apple-maps waze citymapper".split(),
    "telecom": (
        "mobile-carrier phone-carrier internet-provider isp broadband "
        "mobile-plan data-plan verizon at&t t-mobile vodafone o2 "
        "comcast xfinity spectrum bt-broadband virgin-media starlink hyperoptic community-fibre "
        "sky-broadband plusnet"
    ).split(),
    "energy_supplier": (
        "energy-supplier energy-provider electricity-supplier gas-supplier octopus octopus-energy "
        "british-gas edf eon e.on ovo ovo-energy scottish-power con-edison"
    ).split(),
    "meal_kit": "meal-kit hellofresh gousto blue-apron mindful-chef home-chef".split(),
    "delivery": (
        "food-delivery takeout takeaway doordash uber-eats grubhub deliveroo just-eat instacart postmates"
    ).split(),
    "grocery": (
        "groceries grocery supermarket grocery-store whole-foods trader-joe's trader-joes "
        "safeway kroger costco aldi lidl tesco sainsbury's waitrose carrefour"
    ).split(),
    "cuisine": (
        "cuisine restaurant restaurants food sushi ramen pizza pasta tacos burrito curry "
        "dim-sum pho thai-food indian-food italian-food mexican-food chinese-food "
        "japanese-food korean-food mediterranean bbq barbecue burgers"
    ).split(),
    "color": (
        "color colour favorite-color favourite-colour red blue green yellow purple orange "
        "pink black white grey gray teal navy"
    ).split(),
    "clothing_size": ("size sizes shoe-size shirt-size dress-size waist inseam xs xl xxl").split(),
    "name": "name names nickname goes-by preferred-name first-name last-name surname maiden-name".split(),
    "pronouns": "pronouns he/him she/her they/them".split(),
    "birthday": "birthday birthdays born date-of-birth birthdate years-old".split(),
    "anniversary": "anniversary wedding-anniversary".split(),
    "religion": (
        "religion religious faith christian catholic protestant muslim islam jewish judaism "
        "buddhist hindu sikh atheist agnostic church mosque synagogue temple"
    ).split(),
    "relatives": (
        "relatives family grandmother grandfather grandma grandpa grandparents aunt uncle "
        "cousin cousins niece nephew in-laws mother-in-law father-in-law stepmother stepfather"
    ).split(),
    "school": (
        "school schools high-school middle-school elementary-school primary-school kindergarten "
        "preschool daycare nursery boarding-school homeschool"
    ).split(),
    "work_hours": (
        "working-hours work-hours office-hours part-time full-time night-shift "
        "day-shift four-day-week 9-to-5 overtime works-nights night-shifts nine-to-five"
    ).split(),
    "time_of_day": (
        "morning mornings afternoon afternoons evening evenings night nights noon midday midnight lunchtime "
        "o'clock half-past quarter-past quarter-to"
    ).split(),
    "date_format": (
        "date-format dd/mm/yyyy mm/dd/yyyy yyyy-mm-dd iso-8601 24-hour 12-hour military-time"
    ).split(),
    "deadline": (
        "deadline deadlines due-date launch launch-date go-live release-date milestone milestones eta cutoff"
    ).split(),
    # "monthly", "quarterly" alone are as often a report or a goal
    "billing_cycle": (
        "billing-cycle billed billed-monthly billed-annually billed-yearly billed-quarterly "
        "annual-plan monthly-plan annual-billing monthly-billing annual-subscription "
        "monthly-subscription per-month per-year annually month-to-month annual-tier yearly-plan"
    ).split(),
    "contract": "contract contracts agreement msa sla nda notice-period term-length auto-renew".split(),
    "pricing": "price prices pricing cost costs fee fees per-seat per-user discount discounts".split(),
    "vacation": (
        "vacation vacations holiday holidays pto time-off parental-leave sabbatical "
        "out-of-office ooo trip trips"
    ).split(),
    "fitness_app": "strava peloton apple-health google-fit zwift".split(),
    # one food log at a time: a second one is a switch, and no running app is one
    "food_tracker": "myfitnesspal cronometer lose-it macrofactor carb-manager yazio fatsecret".split(),
    "language_learning": "duolingo babbel rosetta-stone language-exchange".split(),
    "beverage": (
        "drink drinks beverage beverages soda sodas cola coke pepsi juice smoothie smoothies "
        "kombucha sparkling-water seltzer lemonade"
    ).split(),
    "news_source": (
        "news newspaper newspapers new-york-times nyt washington-post wall-street-journal wsj "
        "the-guardian financial-times the-economist bbc-news cnn npr reuters bloomberg"
    ).split(),
    "care_provider": (
        "doctor doctors dentist dentists therapist therapists physician gp pediatrician "
        "paediatrician dermatologist optometrist ophthalmologist chiropractor physiotherapist "
        "physio psychiatrist psychologist counselor counsellor veterinarian vet"
    ).split(),
    "hair_care": "haircut hairdresser barber barbershop hair-salon salon stylist".split(),
    "plant": "plant plants houseplant houseplants succulent succulents fern orchid orchids bonsai cactus".split(),
    "airport": (
        "airport airports home-airport jfk lax sfo lhr heathrow gatwick stansted cdg schiphol "
        "o'hare ord dfw atl sea-tac ewr newark-airport logan-airport"
    ).split(),
    "field_of_study": (
        "major minor field-of-study computer-science physics biology chemistry economics "
        "mathematics math maths statistics history literature philosophy psychology "
        "sociology linguistics engineering-degree law-school medical-school"
    ).split(),
    "retirement": "retirement 401k 401(k) ira roth-ira pension pensions superannuation".split(),
    "tax": "tax taxes tax-return tax-returns turbotax vat w-2 1099 irs hmrc".split(),
    "loan": "loan loans student-loan student-loans car-loan credit-score debt debts".split(),
    "crypto": "crypto cryptocurrency bitcoin ethereum coinbase binance kraken crypto-wallet".split(),
    "friend": "friend friends best-friend best-friends buddy buddies".split(),
    "reporting_line": (
        "manager boss supervisor reports-to report-to direct-report direct-reports skip-level "
        "team-lead tech-lead line-manager individual-contributor manages-a-team people-manager"
    ).split(),
    "footwear": "shoes sneakers trainers running-shoes boots sandals nike adidas asics new-balance hoka brooks".split(),
    # how a person is reached, whatever the tool: "updates by email" / "a summary on Slack"
    "contact_channel": (
        "email e-mail slack sms texts text-message text-messages whatsapp telegram discord "
        "microsoft-teams phone-call phone-calls voicemail push-notifications notifications"
    ).split(),
    "car_rental": "car-rental rental-car hertz avis sixt budget-rent-a-car europcar enterprise-rent-a-car".split(),
}

_WORD = re.compile(r"[\w+#&*!.'-]+")
_LONGEST_PHRASE = 4


# Inflections a fact's words are matched through, as PostgreSQL's stems match a memory's: "works
# from home" names "work from home", "commuted" names "commute". A light suffix stemmer, applied
# alike to the lexicon's phrases and the fact's words, so two forms meet where their stems do;
# never below three letters ("bus", "ring" and "red" stay whole).
_SIBILANT_PLURAL = re.compile(r"(?:s|x|z|ch|sh)es$")


def _stem(word: str) -> str:
    if word.endswith("ies") and len(word) >= 6:
        return word[:-3] + "y"
    if _SIBILANT_PLURAL.search(word) and len(word) >= 5:
        word = word[:-2]
    elif word.endswith(("ing", "ed")) and len(word) - (3 if word.endswith("ing") else 2) >= 3:
        word = word[: -3 if word.endswith("ing") else -2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) >= 4:
        word = word[:-1]
    # "commute", "commutes" and "commuting" meet at "commut"
    return word[:-1] if word.endswith("e") and len(word) >= 5 else word


def build_index() -> dict[str, tuple[str, ...]]:
    """Each phrase (its words' stems, joined by one space) to the kinds it names, sorted.

    Stored as `aurra_core/text_analysis/kinds_index.py` (bytecode in the layer), which the first write of a
    cold start reads instead of stemming ~2,600 phrases (~5 ms of CPU); `python -m
    aurra_core.text_analysis.kinds` writes it again after the lexicon changes, and tests/unit/test_kinds.py
    fails until it has."""
    index: dict[str, set[str]] = {}
    for kind, phrases in KINDS.items():
        for phrase in phrases:
            # a text's words split at "/" ("Vim/Emacs"), so "america/chicago" is two words here
            words = phrase.replace("-", " ").replace("/", " ").split()
            index.setdefault(" ".join(_stem(w) for w in words), set()).add(kind)
    return {phrase: tuple(sorted(kinds)) for phrase, kinds in sorted(index.items())}


def render_index(index: dict[str, tuple[str, ...]]) -> str:
    """The source of `aurra_core/text_analysis/kinds_index.py`."""
    lines = [
        '"""Generated by `python -m aurra_core.text_analysis.kinds` from the lexicon in `kinds.py`: do not edit."""',
        "",
        "INDEX: dict[str, tuple[str, ...]] = {",
        # as the formatter writes them: double quotes, a comma after a tuple's only item
        *(
            f"    {json.dumps(phrase)}: ({', '.join(map(json.dumps, kinds))}{',' if len(kinds) == 1 else ''}),"
            for phrase, kinds in index.items()
        ),
        "}",
        "",
    ]
    return "\n".join(lines)


INDEX_PATH = Path(__file__).with_name("kinds_index.py")


def _words(text: str) -> list[str]:
    words = []
    for raw in _WORD.findall(text.lower().replace("-", " ")):
        word = raw.strip(".'")
        if word.endswith("'s"):
            word = word[:-2]
        if word:
            words.append(_stem(word))
    return words


# The rules classifier asks it of the same values in every pair a fact is in.
@lru_cache(maxsize=8192)
def kinds_of(text: str) -> frozenset[str]:
    """The kinds a text mentions: any phrase of a kind, as whole words in any inflection the
    stems meet ("VS Code", "emacs,", "works from home")."""
    from aurra_core.text_analysis.kinds_index import INDEX

    words = _words(text)
    found: set[str] = set()
    for start in range(len(words)):
        for length in range(1, _LONGEST_PHRASE + 1):
            if start + length > len(words):
                break
            found.update(INDEX.get(" ".join(words[start : start + length]), ()))
    return frozenset(found)


def phrases_of(kinds: frozenset[str] | set[str]) -> list[str]:
    """Every phrase of the given kinds (space-separated words), sorted, for a full-text query."""
    return sorted({" ".join(p.replace("-", " ").split()) for kind in kinds for p in KINDS[kind]})


if __name__ == "__main__":
    INDEX_PATH.write_text(render_index(build_index()))
    print(INDEX_PATH, file=sys.stderr)
